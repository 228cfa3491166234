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

// The inner loops: see FusedOptimizer.h. Template parameters only where they change which arrays a loop
// reads (momentum, the first step, amsgrad); weight decay, Nesterov and lerp's formula are bit selects on
// run-time masks (`Decay`, `RtLerp`, `select_bits`), exactly the values of the former per-flag instances.
template <typename T>
struct SgdScalars {
  Decay<T> wd;
  T mom, keep, neg_lr, sign;
  bits_t<T> nesterov;
};

// kFirst: the buffers are set to the gradient (a parameter's first step).
template <typename scalar_t, bool kMomentum, bool kFirst>
TL_ALWAYS_INLINE void sgd_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const SgdScalars<T> s = *static_cast<const SgdScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict m = ptrs[2];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;  // maximize: the negated gradient (exact)
    const T param = to_opmath(p[d]);
    grad = s.wd.template l2<scalar_t>(grad, param);
    if constexpr (kMomentum) {
      T buf = grad;
      if constexpr (!kFirst) buf = as_stored<scalar_t>(as_stored<scalar_t>(to_opmath(m[d]) * s.mom) + s.keep * grad);
      m[d] = from_opmath<scalar_t>(buf);
      grad = select_bits(s.nesterov, as_stored<scalar_t>(grad + s.mom * buf), buf);
    }
    p[d] = from_opmath<scalar_t>(param + s.neg_lr * grad);
  }
}

template <typename T>
struct AdamScalars {
  Decay<T> wd;
  RtLerp<T> lerp;
  T b2, w2, bc2, eps, neg_step_size, sign;
};

template <typename scalar_t, bool kAmsgrad>
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
    param = s.wd.template decoupled<scalar_t>(param);
    grad = s.wd.template l2<scalar_t>(grad, param);
    const T avg = as_stored<scalar_t>(s.lerp(to_opmath(m1[d]), grad));
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
  Decay<T> wd;
  T eps, neg_clr, sign;
};

template <typename scalar_t>
TL_ALWAYS_INLINE void adagrad_loop(int64_t n, scalar_t* const* ptrs, const void* raw) {
  using T = opmath_t<scalar_t>;
  const AdagradScalars<T> s = *static_cast<const AdagradScalars<T>*>(raw);  // a local copy: stores cannot alias it
  scalar_t* __restrict p = ptrs[0];
  const scalar_t* __restrict g = ptrs[1];
  scalar_t* __restrict sums = ptrs[2];
  _Pragma("omp simd") for (int64_t d = 0; d < n; ++d) {
    T grad = to_opmath(g[d]) * s.sign;
    const T param = to_opmath(p[d]);
    grad = s.wd.template l2<scalar_t>(grad, param);
    const T sum = as_stored<scalar_t>(to_opmath(sums[d]) + grad * grad);
    sums[d] = from_opmath<scalar_t>(sum);
    const T std_ = as_stored<scalar_t>(as_stored<scalar_t>(std::sqrt(sum)) + s.eps);
    p[d] = from_opmath<scalar_t>(param + s.neg_clr * as_stored<scalar_t>(grad / std_));
  }
}

template <typename scalar_t, bool kMomentum, bool kFirst>
TL_TARGET_CLONES void sgd_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  sgd_loop<scalar_t, kMomentum, kFirst>(n, ptrs, s);
}
template <typename scalar_t, bool kAmsgrad>
TL_TARGET_CLONES void adam_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adam_loop<scalar_t, kAmsgrad>(n, ptrs, s);
}
template <typename scalar_t>
TL_TARGET_CLONES void adagrad_clones(int64_t n, scalar_t* const* ptrs, const void* s) {
  adagrad_loop<scalar_t>(n, ptrs, s);
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
      const SgdScalars<T> s{Decay<T>(wd_kind, weight_decay, 1.0), T(momentum), T(1 - dampening), T(-lr),
                            T(maximize ? -1 : 1), mask_of<T>(nesterov)};
      for_each_element<scalar_t, 3>({self[i], grad_list[i], buf}, [&](int64_t b, int64_t e, auto ptrs) {
        const auto at = offset(ptrs, b);
        const int64_t n = e - b;
        auto go = [&](auto mom, auto first) {
          constexpr bool kMom = decltype(mom)::value, kFirst = decltype(first)::value;
          run_loop<scalar_t>(n, at.data(), &s, sgd_clones<scalar_t, kMom, kFirst>, sgd_loop<scalar_t, kMom, kFirst>);
        };
        if (!use_momentum) go(std::false_type{}, std::false_type{});
        else with_bool(is_first_step, [&](auto first) { go(std::true_type{}, first); });
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
      const AdamScalars<T> s{Decay<T>(wd_kind, weight_decay, 1 - lr * weight_decay), RtLerp<T>(w1), T(beta2),
                             T(1 - beta2), T(bias_correction2_sqrt), T(eps), T(-(lr / bias_correction1)),
                             T(maximize ? -1 : 1)};
      for_each_element<scalar_t, 5>(
          {self[i], grad_list[i], exp_avgs[i], exp_avg_sqs[i], max_sq}, [&](int64_t b, int64_t e, auto ptrs) {
            scalar_t* at[5] = {ptrs[0] + b, ptrs[1] + b, ptrs[2] + b, ptrs[3] + b, ptrs[4] ? ptrs[4] + b : nullptr};
            const int64_t n = e - b;
            with_bool(amsgrad, [&](auto ams) {
              constexpr bool kAms = decltype(ams)::value;
              run_loop<scalar_t>(n, at, &s, adam_clones<scalar_t, kAms>, adam_loop<scalar_t, kAms>);
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
      const AdagradScalars<T> s{Decay<T>(wd_kind, weight_decay, 1.0), T(eps), T(-clr), T(maximize ? -1 : 1)};
      for_each_element<scalar_t, 3>({self[i], grad_list[i], state_sums[i]}, [&](int64_t b, int64_t e, auto ptrs) {
        scalar_t* at[3] = {ptrs[0] + b, ptrs[1] + b, ptrs[2] + b};
        const int64_t n = e - b;
        run_loop<scalar_t>(n, at, &s, adagrad_clones<scalar_t>, adagrad_loop<scalar_t>);
      });
    });
  }
}

}  // namespace tl::native
