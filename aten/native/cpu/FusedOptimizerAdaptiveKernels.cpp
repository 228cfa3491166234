// The fused steps of the optimizers PyTorch runs op by op on the CPU (_fused_rmsprop_, _fused_adadelta_,
// _fused_adamax_, _fused_nadam_, _fused_radam_, _fused_rprop_, _fused_asgd_: torchlite's private ops, on
// the engine of FusedOptimizer.h): one pass over each parameter's elements per step, for a whole group.
//
// Each element runs the single-tensor optimizer's sequence of tensor ops in the op-math type, in the same
// order (`(value * t1) / t2` for addcdiv, `self + value * t1 * t2` for addcmul, as PyTorch's kernels);
// for Half/BFloat16 every intermediate tensor is rounded to the parameter dtype (`as_stored`). Unlike
// PyTorch's _fused_adam_, these ops increment `state_steps` themselves (one call does the whole step);
// the per-parameter scalars (bias corrections, NAdam's momentum products, RAdam's rectification) are
// computed in double from each parameter's step, as the Python optimizers compute them.
#include <algorithm>
#include <cmath>

#include "aten/native/cpu/FusedOptimizer.h"
#include "generated/ops/_fused_adadelta.h"
#include "generated/ops/_fused_adamax.h"
#include "generated/ops/_fused_asgd.h"
#include "generated/ops/_fused_nadam.h"
#include "generated/ops/_fused_radam.h"
#include "generated/ops/_fused_rmsprop.h"
#include "generated/ops/_fused_rprop.h"

namespace tl::native {
namespace {
using namespace fused_optim;

template <typename T>
T sign_of(bool maximize) {
  return maximize ? T(-1) : T(1);  // the negated gradient (exact)
}

// ---- RMSprop ------------------------------------------------------------------------------------------------
template <typename T>
struct RmspropScalars {
  T wd, alpha, w, eps, mom, neg_lr, sign;
};

// ptrs: param, grad, square_avg, grad_avg (centered), momentum_buffer (momentum > 0)
template <typename scalar_t, int kWd, bool kCentered, bool kMomentum, bool kLow>
TL_ALWAYS_INLINE void rmsprop_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const RmspropScalars<T> s = *static_cast<const RmspropScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict sq = ptrs[2];
  scalar_t* __restrict ga = ptrs[3];
  scalar_t* __restrict mb = ptrs[4];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    const T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T square = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(sq[d]) * s.alpha) + s.w * grad * grad);
    sq[d] = from_opmath<scalar_t>(square);
    T avg;
    if constexpr (kCentered) {
      const T gavg = as_stored<scalar_t>(lerp<kLow>(to_opmath(ga[d]), grad, s.w));
      ga[d] = from_opmath<scalar_t>(gavg);
      avg = as_stored<scalar_t>(std::sqrt(as_stored<scalar_t>(square + T(-1) * gavg * gavg)));
    } else {
      avg = as_stored<scalar_t>(std::sqrt(square));
    }
    avg = as_stored<scalar_t>(avg + s.eps);
    if constexpr (kMomentum) {
      const T buf = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(mb[d]) * s.mom) + grad / avg);
      mb[d] = from_opmath<scalar_t>(buf);
      p[d] = from_opmath<scalar_t>(param + s.neg_lr * buf);
    } else {
      p[d] = from_opmath<scalar_t>(param + s.neg_lr * grad / avg);
    }
  }
}

template <typename scalar_t, int kWd, bool kCentered, bool kMomentum, bool kLow>
TL_TARGET_CLONES void rmsprop_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  rmsprop_loop<scalar_t, kWd, kCentered, kMomentum, kLow>(n, ptrs, s);
}

// ---- Adadelta -----------------------------------------------------------------------------------------------
template <typename T>
struct AdadeltaScalars {
  T wd, rho, w, eps, neg_lr, sign;
};

// ptrs: param, grad, square_avg, acc_delta
template <typename scalar_t, int kWd>
TL_ALWAYS_INLINE void adadelta_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AdadeltaScalars<T> s = *static_cast<const AdadeltaScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict sq = ptrs[2];
  scalar_t* __restrict acc = ptrs[3];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    const T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T square = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(sq[d]) * s.rho) + s.w * grad * grad);
    sq[d] = from_opmath<scalar_t>(square);
    const T std_ = as_stored<scalar_t>(std::sqrt(as_stored<scalar_t>(square + s.eps)));
    const T acc_old = to_opmath(acc[d]);
    T delta = as_stored<scalar_t>(std::sqrt(as_stored<scalar_t>(acc_old + s.eps)));
    delta = as_stored<scalar_t>(as_stored<scalar_t>(delta / std_) * grad);
    acc[d] = from_opmath<scalar_t>(as_stored<scalar_t>(acc_old * s.rho) + s.w * delta * delta);
    p[d] = from_opmath<scalar_t>(param + s.neg_lr * delta);
  }
}

template <typename scalar_t, int kWd>
TL_TARGET_CLONES void adadelta_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adadelta_loop<scalar_t, kWd>(n, ptrs, s);
}

// ---- Adamax -------------------------------------------------------------------------------------------------
template <typename T>
struct AdamaxScalars {
  T wd, w1, b2, eps, neg_clr, sign;
};

// ptrs: param, grad, exp_avg, exp_inf
template <typename scalar_t, int kWd, bool kLow>
TL_ALWAYS_INLINE void adamax_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AdamaxScalars<T> s = *static_cast<const AdamaxScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m1 = ptrs[2];
  scalar_t* __restrict inf = ptrs[3];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    const T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T avg = as_stored<scalar_t>(lerp<kLow>(to_opmath(m1[d]), grad, s.w1));
    m1[d] = from_opmath<scalar_t>(avg);
    const T norm = nan_max(as_stored<scalar_t>(to_opmath(inf[d]) * s.b2),
                           as_stored<scalar_t>(as_stored<scalar_t>(std::abs(grad)) + s.eps));
    inf[d] = from_opmath<scalar_t>(norm);
    p[d] = from_opmath<scalar_t>(param + s.neg_clr * avg / norm);
  }
}

template <typename scalar_t, int kWd, bool kLow>
TL_TARGET_CLONES void adamax_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adamax_loop<scalar_t, kWd, kLow>(n, ptrs, s);
}

// ---- NAdam --------------------------------------------------------------------------------------------------
template <typename T>
struct NadamScalars {
  T wd, decay, w1, b2, w2, bc2, eps, c_grad, c_avg, sign;
};

// ptrs: param, grad, exp_avg, exp_avg_sq
template <typename scalar_t, int kWd, bool kLow>
TL_ALWAYS_INLINE void nadam_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const NadamScalars<T> s = *static_cast<const NadamScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m1 = ptrs[2];
  scalar_t* __restrict m2 = ptrs[3];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    T param = to_opmath(p[d]);
    if constexpr (kWd == kDecoupled) param = as_stored<scalar_t>(param * s.decay);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T avg = as_stored<scalar_t>(lerp<kLow>(to_opmath(m1[d]), grad, s.w1));
    const T sq = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(m2[d]) * s.b2) + s.w2 * grad * grad);
    m1[d] = from_opmath<scalar_t>(avg);
    m2[d] = from_opmath<scalar_t>(sq);
    const T denom = as_stored<scalar_t>(as_stored<scalar_t>(std::sqrt(as_stored<scalar_t>(sq / s.bc2))) + s.eps);
    param = as_stored<scalar_t>(param + s.c_grad * grad / denom);
    p[d] = from_opmath<scalar_t>(param + s.c_avg * avg / denom);
  }
}

template <typename scalar_t, int kWd, bool kLow>
TL_TARGET_CLONES void nadam_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  nadam_loop<scalar_t, kWd, kLow>(n, ptrs, s);
}

// ---- RAdam --------------------------------------------------------------------------------------------------
template <typename T>
struct RadamScalars {
  T wd, decay, w1, b2, w2, bc1, lr, bc2_sqrt, eps, rect, sign;
};

// ptrs: param, grad, exp_avg, exp_avg_sq. kRectify: the variance is tractable (rho_t > 5), the adaptive
// step; otherwise the un-adapted momentum step.
template <typename scalar_t, int kWd, bool kRectify, bool kLow>
TL_ALWAYS_INLINE void radam_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const RadamScalars<T> s = *static_cast<const RadamScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m1 = ptrs[2];
  scalar_t* __restrict m2 = ptrs[3];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    T param = to_opmath(p[d]);
    if constexpr (kWd == kDecoupled) param = as_stored<scalar_t>(param * s.decay);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T avg = as_stored<scalar_t>(lerp<kLow>(to_opmath(m1[d]), grad, s.w1));
    const T sq = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(m2[d]) * s.b2) + s.w2 * grad * grad);
    m1[d] = from_opmath<scalar_t>(avg);
    m2[d] = from_opmath<scalar_t>(sq);
    T update = as_stored<scalar_t>(as_stored<scalar_t>(avg / s.bc1) * s.lr);
    if constexpr (kRectify) {
      const T root = as_stored<scalar_t>(as_stored<scalar_t>(std::sqrt(sq)) + s.eps);
      const T adaptive = as_stored<scalar_t>(s.bc2_sqrt / root);
      update = as_stored<scalar_t>(as_stored<scalar_t>(update * adaptive) * s.rect);
    }
    p[d] = from_opmath<scalar_t>(param + T(-1) * update);
  }
}

template <typename scalar_t, int kWd, bool kRectify, bool kLow>
TL_TARGET_CLONES void radam_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  radam_loop<scalar_t, kWd, kRectify, kLow>(n, ptrs, s);
}

// ---- Rprop --------------------------------------------------------------------------------------------------
template <typename T>
struct RpropScalars {
  T etaminus, etaplus, min_step, max_step, sign;
};

// torch.sign on the CPU: NaN gives 0.
template <typename T>
TL_ALWAYS_INLINE T sign(T x) {
  return T((T(0) < x) - (x < T(0)));
}

// ptrs: param, grad, prev, step_size. etaminus/etaplus are the parameter dtype's values (the op-by-op path
// writes them into a tensor of that dtype, then compares with them). This loop does not vectorize yet: GCC
// turns the sign of the selected gradient into control flow (one pass still beats the op-by-op path's ten).
template <typename scalar_t>
TL_ALWAYS_INLINE void rprop_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const RpropScalars<T> s = *static_cast<const RpropScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict prev = ptrs[2];
  scalar_t* __restrict step = ptrs[3];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    const T grad = to_opmath(g[d]) * s.sign;
    // the step-size factor: etaplus where the gradient kept its sign, etaminus where it flipped, else 1
    const T agree = sign(as_stored<scalar_t>(grad * to_opmath(prev[d])));
    const T factor = agree > T(0) ? s.etaplus : agree < T(0) ? s.etaminus : T(1);
    T size = as_stored<scalar_t>(to_opmath(step[d]) * factor);
    size = std::min(std::max(size, s.min_step), s.max_step);  // (NaN stays NaN, as clamp)
    size = as_stored<scalar_t>(size);
    step[d] = from_opmath<scalar_t>(size);
    // where the sign flipped no step is taken and the next step sees a zero gradient
    const T kept = factor == s.etaminus ? T(0) : grad;
    prev[d] = from_opmath<scalar_t>(kept);
    p[d] = from_opmath<scalar_t>(to_opmath(p[d]) + T(-1) * sign(kept) * size);
  }
}

template <typename scalar_t>
TL_TARGET_CLONES void rprop_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  rprop_loop<scalar_t>(n, ptrs, s);
}

// ---- ASGD ---------------------------------------------------------------------------------------------------
template <typename T>
struct AsgdScalars {
  T wd, decay, neg_eta, mu, sign;
};

// ptrs: param, grad, ax. kAverage: mu != 1 (the running average has started), else ax copies the param.
template <typename scalar_t, int kWd, bool kAverage>
TL_ALWAYS_INLINE void asgd_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AsgdScalars<T> s = *static_cast<const AsgdScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict ax = ptrs[2];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    param = as_stored<scalar_t>(param * s.decay);
    param = as_stored<scalar_t>(param + s.neg_eta * grad);
    p[d] = from_opmath<scalar_t>(param);
    if constexpr (kAverage) {
      const T avg = to_opmath(ax[d]);
      ax[d] = from_opmath<scalar_t>(avg + as_stored<scalar_t>(as_stored<scalar_t>(param - avg) * s.mu));
    } else {
      ax[d] = from_opmath<scalar_t>(param);
    }
  }
}

template <typename scalar_t, int kWd, bool kAverage>
TL_TARGET_CLONES void asgd_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  asgd_loop<scalar_t, kWd, kAverage>(n, ptrs, s);
}

// Reads a one-element float32/float64 state tensor, and writes `value` into it rounded to its dtype.
double read_scalar(const Tensor& t) {
  return tensor_item(t).to_double();
}
void write_scalar(const Tensor& t, double value) {
  if (t.scalar_type() == ScalarType::Float32) *t.data_ptr<float>() = static_cast<float>(value);
  else *t.data_ptr<double>() = value;
}

}  // namespace

void fused_rprop_kernel(TensorList self, TensorList grad_list, TensorList prevs, TensorList step_sizes,
                        TensorList state_steps, double etaminus, double etaplus, double step_size_min,
                        double step_size_max, bool maximize) {
  const char* op = "_fused_rprop_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"prevs", prevs, false}, {"step_sizes", step_sizes, false}});
  check_steps(op, self, state_steps);
  for (size_t i = 0; i < self.size(); ++i) {
    increment_step(state_steps[i]);
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const RpropScalars<T> s{as_stored<scalar_t>(T(etaminus)), as_stored<scalar_t>(T(etaplus)), T(step_size_min),
                              T(step_size_max), sign_of<T>(maximize)};
      for_each_element<scalar_t, 4>({self[i], grad_list[i], prevs[i], step_sizes[i]},
                                    [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        run_loop<scalar_t>(e - b, at.data(), &s, rprop_clones<scalar_t>, rprop_loop<scalar_t>);
      });
    });
  }
}

void fused_asgd_kernel(TensorList self, TensorList grad_list, TensorList axs, TensorList mus, TensorList etas,
                       TensorList state_steps, double lr, double lambd, double alpha, double t0, double weight_decay,
                       bool maximize) {
  const char* op = "_fused_asgd_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"axs", axs, false}});
  check_steps(op, self, state_steps);
  check_steps(op, self, mus);  // the same contract: one float element per parameter
  check_steps(op, self, etas);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = increment_step(state_steps[i]);
    const double eta = read_scalar(etas[i]), mu = read_scalar(mus[i]);
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const AsgdScalars<T> s{T(weight_decay), T(1 - lambd * eta), T(-eta), T(mu), sign_of<T>(maximize)};
      for_each_element<scalar_t, 3>({self[i], grad_list[i], axs[i]}, [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        with_weight_decay(wd_kind, [&](auto wd) {
          with_bool(mu != 1, [&](auto avg) {
            constexpr int kWd = decltype(wd)::value;
            constexpr bool kAvg = decltype(avg)::value;
            run_loop<scalar_t>(e - b, at.data(), &s, asgd_clones<scalar_t, kWd, kAvg>, asgd_loop<scalar_t, kWd, kAvg>);
          });
        });
      });
    });
    // the next step's eta and mu, from this step's count
    write_scalar(etas[i], lr / std::pow(1 + lambd * lr * step, alpha));
    write_scalar(mus[i], 1 / std::max(1.0, step - t0));
  }
}

void fused_rmsprop_kernel(TensorList self, TensorList grad_list, TensorList square_avgs, TensorList grad_avgs,
                          TensorList momentum_buffer_list, TensorList state_steps, double lr, double alpha, double eps,
                          double weight_decay, double momentum, bool centered, bool maximize) {
  const char* op = "_fused_rmsprop_";
  TL_CHECK(!centered || !grad_avgs.empty(), op, ": centered needs grad_avgs");
  TL_CHECK(momentum <= 0 || !momentum_buffer_list.empty(), op, ": momentum needs momentum_buffer_list");
  check_lists(op, self, {{"grad_list", grad_list, false}, {"square_avgs", square_avgs, false},
                         {"grad_avgs", grad_avgs, !centered}, {"momentum_buffer_list", momentum_buffer_list, momentum <= 0}});
  check_steps(op, self, state_steps);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    increment_step(state_steps[i]);
    const Tensor ga = centered ? grad_avgs[i] : Tensor();
    const Tensor mb = momentum > 0 ? momentum_buffer_list[i] : Tensor();
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T w = T(1 - alpha);
      const RmspropScalars<T> s{T(weight_decay), T(alpha), w, T(eps), T(momentum), T(-lr), sign_of<T>(maximize)};
      // (lerp's formula matters only when centered: the other loops take one instantiation)
      const bool low = centered && lerp_low(w);
      for_each_element<scalar_t, 5>({self[i], grad_list[i], square_avgs[i], ga, mb}, [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        with_weight_decay(wd_kind, [&](auto wd) {
          with_bool(centered, [&](auto c) {
            with_bool(momentum > 0, [&](auto m) {
              with_bool(low, [&](auto l) {
                constexpr int kWd = decltype(wd)::value;
                constexpr bool kC = decltype(c)::value, kM = decltype(m)::value, kLow = decltype(l)::value;
                run_loop<scalar_t>(e - b, at.data(), &s, rmsprop_clones<scalar_t, kWd, kC, kM, kLow>,
                                   rmsprop_loop<scalar_t, kWd, kC, kM, kLow>);
              });
            });
          });
        });
      });
    });
  }
}

void fused_adadelta_kernel(TensorList self, TensorList grad_list, TensorList square_avgs, TensorList acc_deltas,
                           TensorList state_steps, double lr, double rho, double eps, double weight_decay,
                           bool maximize) {
  const char* op = "_fused_adadelta_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"square_avgs", square_avgs, false},
                         {"acc_deltas", acc_deltas, false}});
  check_steps(op, self, state_steps);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    increment_step(state_steps[i]);
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const AdadeltaScalars<T> s{T(weight_decay), T(rho), T(1 - rho), T(eps), T(-lr), sign_of<T>(maximize)};
      for_each_element<scalar_t, 4>({self[i], grad_list[i], square_avgs[i], acc_deltas[i]},
                                    [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        if (wd_kind == kL2) run_loop<scalar_t>(e - b, at.data(), &s, adadelta_clones<scalar_t, kL2>, adadelta_loop<scalar_t, kL2>);
        else run_loop<scalar_t>(e - b, at.data(), &s, adadelta_clones<scalar_t, kNoDecay>, adadelta_loop<scalar_t, kNoDecay>);
      });
    });
  }
}

void fused_adamax_kernel(TensorList self, TensorList grad_list, TensorList exp_avgs, TensorList exp_infs,
                         TensorList state_steps, double lr, double beta1, double beta2, double eps,
                         double weight_decay, bool maximize) {
  const char* op = "_fused_adamax_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"exp_avgs", exp_avgs, false}, {"exp_infs", exp_infs, false}});
  check_steps(op, self, state_steps);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = increment_step(state_steps[i]);
    const double clr = lr / (1 - std::pow(beta1, step));
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T w1 = T(1 - beta1);
      const AdamaxScalars<T> s{T(weight_decay), w1, T(beta2), T(eps), T(-clr), sign_of<T>(maximize)};
      for_each_element<scalar_t, 4>({self[i], grad_list[i], exp_avgs[i], exp_infs[i]},
                                    [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        with_weight_decay(wd_kind, [&](auto wd) {
          with_bool(lerp_low(w1), [&](auto l) {
            constexpr int kWd = decltype(wd)::value;
            constexpr bool kLow = decltype(l)::value;
            run_loop<scalar_t>(e - b, at.data(), &s, adamax_clones<scalar_t, kWd, kLow>, adamax_loop<scalar_t, kWd, kLow>);
          });
        });
      });
    });
  }
}

void fused_nadam_kernel(TensorList self, TensorList grad_list, TensorList exp_avgs, TensorList exp_avg_sqs,
                        TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,
                        double eps, double weight_decay, double momentum_decay, bool decoupled_weight_decay,
                        bool maximize) {
  const char* op = "_fused_nadam_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"exp_avgs", exp_avgs, false},
                         {"exp_avg_sqs", exp_avg_sqs, false}});
  check_steps(op, self, state_steps);
  check_steps(op, self, mu_products);  // the same contract: one float element per parameter
  const int wd_kind = weight_decay_kind(weight_decay, decoupled_weight_decay);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = increment_step(state_steps[i]);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
    // mu_product *= mu, a tensor op in the product's dtype (float32: the factor rounded first)
    double mu_product;
    if (mu_products[i].scalar_type() == ScalarType::Float32) {
      float* v = mu_products[i].data_ptr<float>();
      *v = *v * static_cast<float>(mu);
      mu_product = *v;
    } else {
      double* v = mu_products[i].data_ptr<double>();
      *v = *v * mu;
      mu_product = *v;
    }
    const double mu_product_next = mu_product * mu_next;
    const double c_grad = -lr * (1.0 - mu) / (1.0 - mu_product);
    const double c_avg = (-lr * mu_next) / (1.0 - mu_product_next);
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T w1 = T(1 - beta1);
      const NadamScalars<T> s{T(weight_decay), T(1 - lr * weight_decay), w1, T(beta2), T(1 - beta2),
                              T(bias_correction2), T(eps), T(c_grad), T(c_avg), sign_of<T>(maximize)};
      for_each_element<scalar_t, 4>({self[i], grad_list[i], exp_avgs[i], exp_avg_sqs[i]},
                                    [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        with_weight_decay(wd_kind, [&](auto wd) {
          with_bool(lerp_low(w1), [&](auto l) {
            constexpr int kWd = decltype(wd)::value;
            constexpr bool kLow = decltype(l)::value;
            run_loop<scalar_t>(e - b, at.data(), &s, nadam_clones<scalar_t, kWd, kLow>, nadam_loop<scalar_t, kWd, kLow>);
          });
        });
      });
    });
  }
}

void fused_radam_kernel(TensorList self, TensorList grad_list, TensorList exp_avgs, TensorList exp_avg_sqs,
                        TensorList state_steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                        bool decoupled_weight_decay, bool maximize) {
  const char* op = "_fused_radam_";
  check_lists(op, self, {{"grad_list", grad_list, false}, {"exp_avgs", exp_avgs, false},
                         {"exp_avg_sqs", exp_avg_sqs, false}});
  check_steps(op, self, state_steps);
  const int wd_kind = weight_decay_kind(weight_decay, decoupled_weight_decay);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = increment_step(state_steps[i]);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    const bool rectify = rho_t > 5.0;
    const double rect =
        rectify ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) : 0.0;
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T w1 = T(1 - beta1);
      const RadamScalars<T> s{T(weight_decay), T(1 - lr * weight_decay), w1, T(beta2), T(1 - beta2),
                              T(bias_correction1), T(lr), T(std::sqrt(bias_correction2)), T(eps), T(rect),
                              sign_of<T>(maximize)};
      for_each_element<scalar_t, 4>({self[i], grad_list[i], exp_avgs[i], exp_avg_sqs[i]},
                                    [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        with_weight_decay(wd_kind, [&](auto wd) {
          with_bool(rectify, [&](auto r) {
            with_bool(lerp_low(w1), [&](auto l) {
              constexpr int kWd = decltype(wd)::value;
              constexpr bool kR = decltype(r)::value, kLow = decltype(l)::value;
              run_loop<scalar_t>(e - b, at.data(), &s, radam_clones<scalar_t, kWd, kR, kLow>,
                                 radam_loop<scalar_t, kWd, kR, kLow>);
            });
          });
        });
      });
    });
  }
}

}  // namespace tl::native
