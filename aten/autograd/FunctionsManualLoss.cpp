#include "aten/autograd/FunctionsManualLoss.h"

#include "aten/autograd/GradMode.h"
#include "aten/native/Losses.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/log_sigmoid.h"
#include "generated/ops/logit.h"
#include "generated/ops/neg.h"
#include "generated/ops/pow.h"
#include "generated/ops/rsub.h"
#include "generated/ops/exp.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/soft_margin_loss_backward.h"
#include "generated/ops/div.h"
#include "generated/ops/huber_loss_backward.h"
#include "generated/ops/lt.h"
#include "generated/ops/mse_loss_backward.h"
#include "generated/ops/mul.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/smooth_l1_loss_backward.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {

namespace {

// The backward kernels divide by self.numel() for mean; so do their derivatives.
Tensor mean_scaled(const Tensor& t, const Tensor& self, int64_t reduction) {
  return reduction == native::kReductionMean ? div(t, static_cast<double>(self.numel())) : t;
}

// The derivative of a backward kernel, linear in its grad_output: for 'none' the kernel itself applied
// to `grad`; for a reduction (a 0-d grad_output), the kernel's slope summed against `grad`.
template <typename Backward>
Tensor grad_output_of(const Tensor& grad, const Tensor& grad_output, int64_t reduction, const Backward& backward) {
  if (reduction == native::kReductionNone) return backward(grad);
  return sum(mul(backward(ones_like(grad_output)), grad));
}

// grad where |self - target| < bound (the quadratic zone), else 0.
Tensor inside_zone(const Tensor& grad, const Tensor& self, const Tensor& target, double bound) {
  return mul(grad, to(lt(abs(sub(self, target)), bound), grad.dtype()));
}

}  // namespace

Tensor mse_loss_double_backward(const Tensor& grad, const Tensor& self, int64_t reduction) {
  return mean_scaled(mul(grad, 2.0), self, reduction);
}

Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                            const Tensor& target, int64_t reduction) {
  return grad_output_of(grad, grad_output, reduction,
                        [&](const Tensor& g) { return mse_loss_backward(g, self, target, reduction); });
}

Tensor smooth_l1_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                      double beta) {
  if (beta == 0) return zeros_like(grad);
  return mean_scaled(div(inside_zone(grad, self, target, beta), beta), self, reduction);
}

Tensor smooth_l1_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& target, int64_t reduction, double beta) {
  return grad_output_of(grad, grad_output, reduction,
                        [&](const Tensor& g) { return smooth_l1_loss_backward(g, self, target, reduction, beta); });
}

Tensor huber_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                  double delta) {
  return mean_scaled(inside_zone(grad, self, target, delta), self, reduction);
}

Tensor huber_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                              const Tensor& target, int64_t reduction, double delta) {
  return grad_output_of(grad, grad_output, reduction,
                        [&](const Tensor& g) { return huber_loss_backward(g, self, target, reduction, delta); });
}

namespace {

Tensor weighted(const Tensor& t, const std::optional<Tensor>& weight) {
  return weight && weight->defined() ? mul(t, *weight) : t;
}

}  // namespace

// d/dy of the loss (y - 1) log(1 - p) - y log(p): -logit(p).
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction) {
  return mean_scaled(weighted(mul(neg(logit(self)), grad), weight), target, reduction);
}

// d/dp of (p - y) / (p (1 - p)), with the forward's epsilon: (p^2 - 2py + y) / ((p + eps)^2 (1 - p + eps)^2).
Tensor binary_cross_entropy_double_backward(const Tensor& grad_output, const Tensor& grad, const Tensor& self,
                                            const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction) {
  constexpr double eps = 1e-12;
  const Tensor num = add(sub(mul(self, self), mul(mul(self, target), 2.0)), target);
  const Tensor den = mul(pow(add(self, eps), 2.0), pow(add(rsub(self, 1.0), eps), 2.0));
  return mean_scaled(weighted(mul(div(num, den), mul(grad, grad_output)), weight), self, reduction);
}

Tensor binary_cross_entropy_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight, int64_t reduction) {
  constexpr double eps = 1e-12;
  const Tensor slope = div(sub(self, target), mul(add(self, eps), add(rsub(self, 1.0), eps)));
  return mean_scaled(weighted(mul(slope, grad), weight), self, reduction);
}

// d/dy of grad_output (p - y) / max(p (1 - p), eps): -grad_output / max(p (1 - p), eps).
Tensor binary_cross_entropy_double_backward_target(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& target, const std::optional<Tensor>& weight,
                                                   int64_t reduction) {
  // As PyTorch: p (1 - p) is differentiated, the clamp to 1e-12 (in place, grad mode off) is not.
  const Tensor denom = mul(rsub(self, 1.0), self);
  {
    AutoGradMode no_grad(false);
    clamp_min_(denom, 1e-12);
  }
  return mean_scaled(div(weighted(neg(mul(grad, grad_output)), weight), denom), self, reduction);
}

// sigmoid(x) - y, or with pos_weight w: (1 + (w - 1) y) sigmoid(x) - w y.
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction) {
  Tensor g;
  if (pos_weight && pos_weight->defined()) {
    const Tensor wy = mul(*pos_weight, target);
    g = sub(mul(sub(add(wy, 1.0), target), sigmoid(self)), wy);
  } else {
    g = sub(sigmoid(self), target);
  }
  return mean_scaled(weighted(mul(g, grad), weight), self, reduction);
}

// d/dy: -x, or with pos_weight w: log_sigmoid(-x) - w log_sigmoid(x).
Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  Tensor g = pos_weight && pos_weight->defined()
                 ? sub(log_sigmoid(neg(self)), mul(log_sigmoid(self), *pos_weight))
                 : neg(self);
  return mean_scaled(weighted(mul(g, grad), weight), target, reduction);
}

// d/dx of -y exp(-y x) / (1 + exp(-y x)): y^2 z / (1 + z)^2 with z = exp(-y x).
Tensor soft_margin_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                        int64_t reduction) {
  const Tensor z = exp(mul(neg(target), self));
  const Tensor z1 = add(z, 1.0);
  return mean_scaled(div(mul(mul(grad, mul(target, target)), z), mul(z1, z1)), self, reduction);
}

Tensor soft_margin_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                    const Tensor& target, int64_t reduction) {
  return grad_output_of(grad, grad_output, reduction,
                        [&](const Tensor& g) { return soft_margin_loss_backward(g, self, target, reduction); });
}

}  // namespace tl::autograd::generated
