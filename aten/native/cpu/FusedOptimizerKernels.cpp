// The fused optimizer steps (_fused_sgd_, _fused_adam_, _fused_adamw_, _fused_adagrad_): each parameter of a
// group is updated in one pass over its elements, the whole rule applied to an element while it is in
// registers, instead of the 6-10 tensor ops (each a pass over memory) of the single-tensor path.
//
// Numerics: the update is the single-tensor optimizers' sequence of operations, element by element, in
// the op-math type (float for Half/BFloat16/float32, double for float64), with the scalars cast to it as
// the tensor ops cast them. For Half/BFloat16 every intermediate the single-tensor path would store as a
// tensor is rounded to the parameter's dtype (`round`), so the results are those of that op sequence.
#include <cmath>
#include <vector>

#include "aten/native/cpu/FusedOptimizer.h"
#include "generated/ops/_fused_adagrad.h"
#include "generated/ops/_fused_adam.h"
#include "generated/ops/_fused_adamw.h"
#include "generated/ops/_fused_sgd.h"

namespace tl::native {
namespace {
using namespace fused_optim;

// The automatic-mixed-precision inputs: a found_inf of 1 skips the step; a grad_scale divides the
// gradients (which are written back unscaled).
struct Amp {
  bool skip = false;
  bool scaled = false;
  double scale = 1.0;
};

Amp read_amp(const char* op, const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  Amp amp;
  for (const auto* t : {&grad_scale, &found_inf}) {
    if (t->has_value() && (*t)->defined())
      TL_CHECK((*t)->numel() == 1, op, ": grad_scale and found_inf must have one element, got ", (*t)->numel());
  }
  if (found_inf.has_value() && found_inf->defined()) amp.skip = tensor_item(*found_inf).to_double() == 1.0;
  if (grad_scale.has_value() && grad_scale->defined()) {
    amp.scaled = true;
    amp.scale = tensor_item(*grad_scale).to_double();
  }
  return amp;
}

// The inner loops: see FusedOptimizer.h.
template <typename T>
struct SgdScalars {
  T wd, mom, keep, neg_lr, sign;
};

// kFirst: the buffers are set to the gradient (a parameter's first step).
template <typename scalar_t, int kWd, bool kMomentum, bool kFirst, bool kNesterov>
TL_ALWAYS_INLINE void sgd_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const SgdScalars<T> s = *static_cast<const SgdScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m = ptrs[2];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;  // maximize: the negated gradient (exact)
    const T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    if constexpr (kMomentum) {
      T buf = grad;
      if constexpr (!kFirst) buf = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(m[d]) * s.mom) + s.keep * grad);
      m[d] = from_opmath<scalar_t>(buf);
      if constexpr (kNesterov) grad = as_stored<scalar_t>(grad + s.mom * buf);
      else grad = buf;
    }
    p[d] = from_opmath<scalar_t>(param + s.neg_lr * grad);
  }
}

template <typename T>
struct AdamScalars {
  T wd, decay, w1, b2, w2, bc2, eps, neg_step_size, sign;
};

template <typename scalar_t, int kWd, bool kAmsgrad, bool kLow>
TL_ALWAYS_INLINE void adam_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AdamScalars<T> s = *static_cast<const AdamScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m1 = ptrs[2];
  scalar_t* __restrict m2 = ptrs[3];
  scalar_t* __restrict mx = ptrs[4];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    T param = to_opmath(p[d]);
    if constexpr (kWd == kDecoupled) param = as_stored<scalar_t>(param * s.decay);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T avg = as_stored<scalar_t>(lerp<kLow>(to_opmath(m1[d]), grad, s.w1));
    const T sq = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(m2[d]) * s.b2) + s.w2 * grad * grad);
    m1[d] = from_opmath<scalar_t>(avg);
    m2[d] = from_opmath<scalar_t>(sq);
    T second = sq;
    if constexpr (kAmsgrad) {
      second = nan_max(to_opmath(mx[d]), sq);
      mx[d] = from_opmath<scalar_t>(second);
    }
    const T denom = as_stored<scalar_t>(as_stored<scalar_t>(as_stored<scalar_t>(std::sqrt(second)) / s.bc2) + s.eps);
    p[d] = from_opmath<scalar_t>(param + s.neg_step_size * as_stored<scalar_t>(avg / denom));
  }
}

template <typename T>
struct AdagradScalars {
  T wd, eps, neg_clr, sign;
};

template <typename scalar_t, int kWd>
TL_ALWAYS_INLINE void adagrad_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AdagradScalars<T> s = *static_cast<const AdagradScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict sums = ptrs[2];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    const T param = to_opmath(p[d]);
    if constexpr (kWd == kL2) grad = as_stored<scalar_t>(grad + s.wd * param);
    const T sum = as_stored<scalar_t>(to_opmath(sums[d]) + grad * grad);
    sums[d] = from_opmath<scalar_t>(sum);
    const T std_ = as_stored<scalar_t>(as_stored<scalar_t>(std::sqrt(sum)) + s.eps);
    p[d] = from_opmath<scalar_t>(param + s.neg_clr * as_stored<scalar_t>(grad / std_));
  }
}

template <typename scalar_t, int kWd, bool kMomentum, bool kFirst, bool kNesterov>
TL_TARGET_CLONES void sgd_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  sgd_loop<scalar_t, kWd, kMomentum, kFirst, kNesterov>(n, ptrs, s);
}
template <typename scalar_t, int kWd, bool kAmsgrad, bool kLow>
TL_TARGET_CLONES void adam_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adam_loop<scalar_t, kWd, kAmsgrad, kLow>(n, ptrs, s);
}
template <typename scalar_t, int kWd>
TL_TARGET_CLONES void adagrad_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adagrad_loop<scalar_t, kWd>(n, ptrs, s);
}

}  // namespace

void fused_sgd_kernel(TensorList self, TensorList grad_list, TensorList momentum_buffer_list, double weight_decay,
                      double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
                      const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_sgd_";
  check_lists(op, self, {{"grads", grad_list, false}, {"momentum_buffer_list", momentum_buffer_list, true}});
  const bool use_momentum = momentum != 0;
  TL_CHECK(!use_momentum || !momentum_buffer_list.empty(), op, ": momentum needs momentum_buffer_list");
  const Amp amp = read_amp(op, grad_scale, found_inf);
  if (amp.skip) return;
  if (amp.scaled) unscale_grads(op, grad_list, amp.scale);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor buf = use_momentum ? momentum_buffer_list[i] : Tensor();
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const SgdScalars<T> s{T(weight_decay), T(momentum), T(1 - dampening), T(-lr), T(maximize ? -1 : 1)};
      for_each_element<scalar_t, 3>({self[i], grad_list[i], buf}, [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        const int64_t n = e - b;
        auto go = [&](auto wd, auto mom, auto first, auto nest) {
          constexpr int kWd = decltype(wd)::value;
          constexpr bool kMom = decltype(mom)::value, kFirst = decltype(first)::value, kNest = decltype(nest)::value;
          run_loop<scalar_t>(n, at.data(), &s, sgd_clones<scalar_t, kWd, kMom, kFirst, kNest>,
                             sgd_loop<scalar_t, kWd, kMom, kFirst, kNest>);
        };
        with_weight_decay(wd_kind == kL2 ? kL2 : kNoDecay, [&](auto wd) {
          if (!use_momentum) {
            go(wd, std::false_type{}, std::false_type{}, std::false_type{});
            return;
          }
          with_bool(is_first_step, [&](auto first) {
            with_bool(nesterov, [&](auto nest) { go(wd, std::true_type{}, first, nest); });
          });
        });
      });
    });
  }
}

namespace {

void fused_adam_impl(const char* op, bool decoupled, TensorList self, TensorList grad_list, TensorList exp_avgs,
                     TensorList exp_avg_sqs, TensorList max_exp_avg_sqs, TensorList state_steps, double lr,
                     double beta1, double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                     const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  check_lists(op, self, {{"grads", grad_list, false}, {"exp_avgs", exp_avgs, false},
                         {"exp_avg_sqs", exp_avg_sqs, false}, {"max_exp_avg_sqs", max_exp_avg_sqs, !amsgrad}});
  TL_CHECK(state_steps.size() == self.size(), op, ": expected state_steps to hold one tensor per parameter (",
           self.size(), "), got ", state_steps.size());
  const Amp amp = read_amp(op, grad_scale, found_inf);
  if (amp.skip) return;
  if (amp.scaled) unscale_grads(op, grad_list, amp.scale);
  const int wd_kind = weight_decay_kind(weight_decay, decoupled);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = step_value(state_steps[i], op, i);
    // The scalars as PyTorch's single-tensor Adam computes them (in double, then cast by each tensor op).
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
    const Tensor max_sq = amsgrad ? max_exp_avg_sqs[i] : Tensor();
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T w1 = T(1 - beta1);
      const AdamScalars<T> s{T(weight_decay), T(1 - lr * weight_decay), w1, T(beta2), T(1 - beta2),
                             T(bias_correction2_sqrt), T(eps), T(-(lr / bias_correction1)), T(maximize ? -1 : 1)};
      for_each_element<scalar_t, 5>(
          {self[i], grad_list[i], exp_avgs[i], exp_avg_sqs[i], max_sq}, [&](int64_t b, int64_t e, auto ptrs) {
            scalar_t* at[5] = {ptrs[0] + b, ptrs[1] + b, ptrs[2] + b, ptrs[3] + b, ptrs[4] ? ptrs[4] + b : nullptr};
            const int64_t n = e - b;
            with_weight_decay(wd_kind, [&](auto wd) {
              with_bool(amsgrad, [&](auto ams) {
                with_bool(lerp_low(w1), [&](auto low) {
                  constexpr int kWd = decltype(wd)::value;
                  constexpr bool kAms = decltype(ams)::value, kLow = decltype(low)::value;
                  run_loop<scalar_t>(n, at, &s, adam_clones<scalar_t, kWd, kAms, kLow>,
                                     adam_loop<scalar_t, kWd, kAms, kLow>);
                });
              });
            });
          });
    });
  }
}

}  // namespace

void fused_adam_kernel(TensorList self, TensorList grad_list, TensorList exp_avgs, TensorList exp_avg_sqs,
                       TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                       double weight_decay, double eps, bool amsgrad, bool maximize,
                       const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_adam_impl("_fused_adam_", false, self, grad_list, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
                  beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void fused_adamw_kernel(TensorList self, TensorList grad_list, TensorList exp_avgs, TensorList exp_avg_sqs,
                        TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                        double weight_decay, double eps, bool amsgrad, bool maximize,
                        const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_adam_impl("_fused_adamw_", true, self, grad_list, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
                  beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void fused_adagrad_kernel(TensorList self, TensorList grad_list, TensorList state_sums, TensorList state_steps,
                          double lr, double lr_decay, double weight_decay, double eps, bool maximize,
                          const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_adagrad_";
  check_lists(op, self, {{"grads", grad_list, false}, {"state_sums", state_sums, false}});
  TL_CHECK(state_steps.size() == self.size(), op, ": expected state_steps to hold one tensor per parameter (",
           self.size(), "), got ", state_steps.size());
  const Amp amp = read_amp(op, grad_scale, found_inf);
  if (amp.skip) return;
  if (amp.scaled) unscale_grads(op, grad_list, amp.scale);
  const int wd_kind = weight_decay_kind(weight_decay, false);
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = step_value(state_steps[i], op, i);
    const double clr = lr / (1 + (step - 1) * lr_decay);
    TL_DISPATCH_FLOAT(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const AdagradScalars<T> s{T(weight_decay), T(eps), T(-clr), T(maximize ? -1 : 1)};
      for_each_element<scalar_t, 3>({self[i], grad_list[i], state_sums[i]}, [&](int64_t b, int64_t e, auto ptrs) {
        scalar_t* at[3] = {ptrs[0] + b, ptrs[1] + b, ptrs[2] + b};
        const int64_t n = e - b;
        if (wd_kind == kL2) run_loop<scalar_t>(n, at, &s, adagrad_clones<scalar_t, kL2>, adagrad_loop<scalar_t, kL2>);
        else run_loop<scalar_t>(n, at, &s, adagrad_clones<scalar_t, kNoDecay>, adagrad_loop<scalar_t, kNoDecay>);
      });
    });
  }
}

}  // namespace tl::native
