// The elementwise losses and their backward kernels: mse_loss, smooth_l1_loss, huber_loss,
// binary_cross_entropy, binary_cross_entropy_with_logits, soft_margin_loss.
//
// As PyTorch's: the elementwise loss of `self` and `target` (broadcast, promoted) on TensorIterator
// (math_kernel, computed in double and rounded once), then the reduction through mean / sum, so
// out= follows their rules when reduced and the binary-op rules for 'none'. The backward kernels
// map (self - target, grad_output) to the gradient; for 'mean' they divide by `self.numel()`, as
// PyTorch does (not by the broadcast size). Their own derivatives are in FunctionsManualLoss.cpp.
#include <cmath>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/Losses.h"
#include "aten/native/cpu/ActivationLoops.h"
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/binary_cross_entropy.h"
#include "generated/ops/binary_cross_entropy_backward.h"
#include "generated/ops/binary_cross_entropy_with_logits.h"
#include "generated/ops/copy.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/ge.h"
#include "generated/ops/le.h"
#include "generated/ops/where.h"
#include "generated/ops/log_sigmoid.h"
#include "generated/ops/max.h"
#include "generated/ops/min.h"
#include "generated/ops/exp.h"
#include "generated/ops/log1p.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsub.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/huber_loss.h"
#include "generated/ops/huber_loss_backward.h"
#include "generated/ops/mean.h"
#include "generated/ops/mse_loss.h"
#include "generated/ops/mse_loss_backward.h"
#include "generated/ops/smooth_l1_loss.h"
#include "generated/ops/soft_margin_loss.h"
#include "generated/ops/soft_margin_loss_backward.h"
#include "generated/ops/smooth_l1_loss_backward.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"

namespace tl::native {

using activation::binary_float;
using activation::binary_iter;
using vec::dsel;

Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == kReductionMean) return mean(loss);
  if (reduction == kReductionSum) return sum(loss);
  return loss;
}

namespace {

void check_reduction(int64_t reduction, const char* op) {
  TL_CHECK(reduction >= kReductionNone && reduction <= kReductionSum, op,
           ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

// `loss` reduced into `out` (undefined: allocated; 'none' and defined: resized and copied into).
// `exact`: out= must have the loss's dtype (PyTorch's ops that compute into out in place).
void reduce_into(const Tensor& loss, int64_t reduction, Tensor& out, const char* op, bool exact = false) {
  if (exact && out.defined()) {
    TL_CHECK(out.dtype() == loss.dtype(), op, ": Expected out tensor to have dtype ", scalar_type_name(loss.dtype()),
             ", but got ", scalar_type_name(out.dtype()), " instead");
  }
  if (!out.defined()) {
    out = apply_loss_reduction(loss, reduction);
  } else if (reduction == kReductionMean) {
    mean_out(out, loss);
  } else if (reduction == kReductionSum) {
    sum_out(out, loss, std::nullopt, false, std::nullopt);
  } else if (!out.is_same(loss)) {
    prepare_output(out, {op, loss.sizes(), loss.dtype(), loss.device(), OutDtype::CanCast});
    if (!out.is_meta()) copy_(out, loss);
  }
}

// loss = f(self, target) elementwise, then reduced into `out` (undefined: allocated).
template <typename F>
void pointwise_loss(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out, const char* op,
                    const F& f) {
  check_reduction(reduction, op);
  Tensor loss;
  Tensor& dest = reduction == kReductionNone ? out : loss;
  auto iter = binary_iter(dest, self, target, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
  if (reduction != kReductionNone) reduce_into(loss, reduction, out, op);
}

bool has(const std::optional<Tensor>& t) { return t && t->defined(); }

// grad_input = f(self - target, grad_output) * norm, broadcast over the three.
template <typename F>
Tensor pointwise_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction,
                               const char* op, const F& f) {
  check_reduction(reduction, op);
  return binary_float(sub(self, target), grad_output, op, f);
}

double mean_norm(const Tensor& self, int64_t reduction) {
  return reduction == kReductionMean && self.numel() > 0 ? 1.0 / static_cast<double>(self.numel()) : 1.0;
}

}  // namespace

void mse_loss_kernel(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out) {
  pointwise_loss(self, target, reduction, out, "mse_loss", [](double x, double y) TL_MATH_INLINE {
    const double d = x - y;
    return d * d;
  });
}

// Integer inputs: PyTorch's kernels compute these two backward ops in the integer type itself, the
// norm (and beta) truncated to it; the same ops in that type give the same values.
bool integral_common(const Tensor& a, const Tensor& b, const Tensor& c) {
  return !is_floating_type(a.dtype()) && !is_floating_type(b.dtype()) && !is_floating_type(c.dtype()) &&
         a.dtype() != ScalarType::Bool;
}

// The norm as the integer PyTorch's kernel converts it to (2 / 0 for an empty mean overflows, as there).
int64_t integral_norm(double norm, const char* op) {
  TL_CHECK(std::isfinite(norm) && std::abs(norm) < 9.2e18, op,
           ": value cannot be converted to type int64_t without overflow");
  return static_cast<int64_t>(norm);
}

Tensor mse_loss_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                int64_t reduction) {
  const double norm = 2.0 * mean_norm(self, reduction);
  if (integral_common(grad_output, self, target)) {
    check_reduction(reduction, "mse_loss_backward");
    const double raw = reduction == kReductionMean ? 2.0 / static_cast<double>(self.numel()) : 2.0;
    return mul(mul(sub(self, target), integral_norm(raw, "mse_loss_backward")), grad_output);
  }
  return pointwise_loss_backward(grad_output, self, target, reduction, "mse_loss_backward",
                                 [=](double d, double g) TL_MATH_INLINE { return norm * d * g; });
}

void smooth_l1_loss_kernel(const Tensor& self, const Tensor& target, int64_t reduction, double beta, Tensor& out) {
  TL_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) {  // the l1 loss, as PyTorch (no division by beta)
    pointwise_loss(self, target, reduction, out, "smooth_l1_loss",
                   [](double x, double y) TL_MATH_INLINE { return vec::dabs(x - y); });
    return;
  }
  const double half_over_beta = 0.5 / beta, half_beta = 0.5 * beta;
  pointwise_loss(self, target, reduction, out, "smooth_l1_loss", [=](double x, double y) TL_MATH_INLINE {
    const double z = vec::dabs(x - y);
    return dsel(z < beta, half_over_beta * z * z, z - half_beta);
  });
}

Tensor smooth_l1_loss_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                      int64_t reduction, double beta) {
  const double norm = mean_norm(self, reduction);
  if (integral_common(grad_output, self, target)) {
    check_reduction(reduction, "smooth_l1_loss_backward");
    const double raw = reduction == kReductionMean ? 1.0 / static_cast<double>(self.numel()) : 1.0;
    const int64_t n = integral_norm(raw, "smooth_l1_loss_backward"), b = integral_norm(beta, "smooth_l1_loss_backward");
    const Tensor d = sub(self, target);
    const Tensor inside = mul(div(mul(d, n), b, "trunc"), grad_output);
    return where(le(d, -b), mul(grad_output, -n), where(ge(d, b), mul(grad_output, n), inside));
  }
  // PyTorch's branches: the sign at |d| >= beta (so -1 at d == 0 for beta 0), d / beta inside.
  const double inv_beta = beta == 0 ? 0.0 : 1.0 / beta;
  return pointwise_loss_backward(grad_output, self, target, reduction, "smooth_l1_loss_backward",
                                 [=](double d, double g) TL_MATH_INLINE {
                                   return dsel(d <= -beta, -norm * g,
                                               dsel(d >= beta, norm * g, norm * d * inv_beta * g));
                                 });
}

void huber_loss_kernel(const Tensor& self, const Tensor& target, int64_t reduction, double delta, Tensor& out) {
  TL_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  const double half_delta = 0.5 * delta;
  pointwise_loss(self, target, reduction, out, "huber_loss", [=](double x, double y) TL_MATH_INLINE {
    const double z = vec::dabs(x - y);
    return dsel(z < delta, 0.5 * z * z, delta * (z - half_delta));
  });
}

Tensor huber_loss_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  int64_t reduction, double delta) {
  const double norm = mean_norm(self, reduction);
  return pointwise_loss_backward(grad_output, self, target, reduction, "huber_loss_backward",
                                 [=](double d, double g) TL_MATH_INLINE {
                                   return dsel(d <= -delta, -norm * g * delta,
                                               dsel(d >= delta, norm * g * delta, norm * d * g));
                                 });
}

// ---- binary cross entropy

void binary_cross_entropy_kernel(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, Tensor& out) {
  const char* op = "binary_cross_entropy";
  check_reduction(reduction, op);
  TL_CHECK_AS(NotImplementedError, is_floating_type(self.dtype()), op, ": not implemented for '",
              scalar_type_name(self.dtype()), "'");
  TL_CHECK(target.dtype() == self.dtype(), op, ": Found dtype ", scalar_type_name(target.dtype()), " but expected ",
           scalar_type_name(self.dtype()));
  // As PyTorch: the loss has self's shape, computed on the squeezed self and target (target broadcast to it).
  const Tensor x = squeeze(self);
  Tensor loss = empty(x.sizes(), self.dtype(), self.device());
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(loss).add_input(x).add_input(squeeze(target)).build();
  if (!self.is_meta() && self.numel() > 0 && is_floating_type(self.dtype())) {
    // NaN fails both comparisons, as it fails PyTorch's per-element check.
    const double lo = to(min(self), ScalarType::Float64).data_ptr<double>()[0];
    const double hi = to(max(self), ScalarType::Float64).data_ptr<double>()[0];
    TL_CHECK(lo >= 0 && hi <= 1, op, ": all elements of input should be between 0 and 1");
  }
  // The logs are clamped at -100, so a probability of exactly 0 or 1 gives a finite loss.
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    math_kernel<scalar_t>(iter, [](double p, double y) TL_MATH_INLINE {
      const double log_p = vec::log_f64(p), log_1mp = vec::log1p_f64(-p);
      return (y - 1.0) * dsel(log_1mp > -100.0, log_1mp, -100.0) - y * dsel(log_p > -100.0, log_p, -100.0);
    });
  });
  loss = reshape(loss, self.sizes());
  if (has(weight)) mul_(loss, *weight);  // in place, as PyTorch: weight may not grow the loss or change its dtype
  reduce_into(loss, reduction, out, op, /*exact=*/true);
}

Tensor binary_cross_entropy_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  check_reduction(reduction, op);
  // (p - y) / max(p (1 - p), 1e-12): PyTorch's epsilon keeps p = 0 or 1 finite.
  Tensor grad = binary_float(self, target, op, [](double p, double y) TL_MATH_INLINE {
    const double d = (1.0 - p) * p;
    return (p - y) / dsel(d > 1e-12, d, 1e-12);
  });
  grad = mul(grad, grad_output);
  if (has(weight)) grad = mul(grad, *weight);
  if (reduction == kReductionMean) grad = div(grad, static_cast<double>(self.numel()));
  return grad;
}

Tensor binary_cross_entropy_with_logits_kernel(const Tensor& self, const Tensor& target,
                                               const std::optional<Tensor>& weight,
                                               const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  check_reduction(reduction, op);
  // PyTorch computes in place on (1 - target), on log_sigmoid(self) when pos_weight is given, then on the
  // loss for weight: each must already have the broadcast shape.
  auto check_grows = [&](IntArrayRef held, IntArrayRef other) {
    const DimVector b = broadcast_shapes(held, other);
    TL_CHECK(IntArrayRef(b) == held, op, ": output with shape ", held, " doesn't match the broadcast shape ",
             IntArrayRef(b));
  };
  check_grows(target.sizes(), self.sizes());
  if (has(pos_weight)) check_grows(self.sizes(), broadcast_shapes(pos_weight->sizes(), target.sizes()));
  if (has(weight)) check_grows(target.sizes(), weight->sizes());
  Tensor loss;
  if (!has(pos_weight) && self.dtype() == target.dtype()) {
    // (1 - y) x - log_sigmoid(x) = (1 - y) x + max(-x, 0) + log1p(exp(-|x|)): one pass, no overflow.
    loss = binary_float(
        self, target, op,
        [](double x, double y) TL_MATH_INLINE {
          return (1.0 - y) * x + dsel(x < 0, -x, 0.0) + vec::log1p_f64(vec::exp_f64(-vec::dabs(x)));
        },
        [](double x, double y) TL_MATH_INLINE {
          return (1.0 - y) * x + dsel(x < 0, -x, 0.0) + vec::log1p_unit_for_float(vec::exp_for_float(-vec::dabs(x)));
        });
  } else {
    // PyTorch's in-place steps, which fix the result dtype (target's): (1 - y) * x - lw * log_sigmoid(x),
    // lw = 1 + (pos_weight - 1) * y.
    Tensor log_sig = log_sigmoid(self);
    if (has(pos_weight)) mul_(log_sig, add(mul(sub(*pos_weight, 1.0), target), 1.0));
    loss = rsub(target, 1.0);
    sub_(mul_(loss, self), log_sig);
  }
  if (has(weight)) mul_(loss, *weight);
  return apply_loss_reduction(loss, reduction);
}

// ---- soft margin: log(1 + exp(-target * self)), computed as PyTorch does (no rewriting for large -y x).

// As PyTorch (which computes in place on a tensor like self): the result has self's shape and dtype, and a
// target whose promotion self cannot hold is refused ("result type Double can't be cast to ... Char").
// The forward keeps self's shape; the backward (PyTorch's mul_out into an empty tensor) takes the broadcast one.
static Tensor soft_margin_map(const Tensor& self, const Tensor& target, const char* op,
                              double (*f)(double, double, double), double norm, bool broadcast) {
  Tensor out = empty(self.sizes(), self.dtype(), self.device());
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_input(target)
                  .resize_outputs(broadcast).build();
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    math_kernel<scalar_t>(iter, [=](double x, double y) TL_MATH_INLINE { return f(x, y, norm); });
  });
  return out;
}

void soft_margin_loss_kernel(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out) {
  const char* op = "soft_margin_loss";
  check_reduction(reduction, op);
  if (is_complex_type(self.dtype()) || is_complex_type(target.dtype())) {
    // PyTorch's own sequence (no complex loop of the fused map): neg, then mul_/exp_/log1p_ in place in
    // self's dtype (a complex target with a real self is refused by mul_, as there).
    Tensor loss = neg(self);
    mul_(loss, target);
    exp_(loss);
    log1p_(loss);
    reduce_into(loss, reduction, out, op, /*exact=*/true);
    return;
  }
  const Tensor loss = soft_margin_map(self, target, op, [](double x, double y, double) TL_MATH_INLINE {
    return vec::log1p_f64(vec::exp_f64(-y * x));
  }, 1.0, false);
  reduce_into(loss, reduction, out, op, /*exact=*/true);
}

Tensor soft_margin_loss_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                        int64_t reduction) {
  const char* op = "soft_margin_loss_backward";
  check_reduction(reduction, op);
  // -y exp(-y x) / (1 + exp(-y x)) per element (in self's dtype), times grad_output in place.
  const Tensor grad = soft_margin_map(self, target, op, [](double x, double y, double norm) TL_MATH_INLINE {
    const double z = vec::exp_f64(-y * x);
    return -norm * y * z / (z + 1.0);
  }, mean_norm(self, reduction), true);
  return mul_(grad, grad_output);
}

}  // namespace tl::native
