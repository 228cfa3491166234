#include "aten/autograd/FunctionsManualActivation.h"

#include "generated/ops/add.h"
#include "generated/ops/exp.h"
#include "generated/ops/gt.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/lt.h"
#include "generated/ops/mul.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/sigmoid_backward.h"
#include "generated/ops/softplus.h"
#include "generated/ops/sub.h"
#include "generated/ops/tanh.h"
#include "generated/ops/to.h"
#include "generated/ops/where.h"

namespace tl::autograd::generated {
namespace {
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;
}  // namespace

// elu_backward is grad_output * input_scale * (y + alpha * scale) from the result y <= 0 (linear in y),
// grad_output * input_scale * alpha * scale * exp(x * input_scale) from the input x <= 0; constant above 0.
// At 0 itself the second derivative is 0, as PyTorch's (its mask is `< 0`).
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  const double negiptcoef = input_scale.to_double(), negcoef = alpha.to_double() * scale.to_double();
  const Tensor gg = mul(grad, grad_output);
  if (is_result) return where(lt(self_or_result, 0), mul(gg, negiptcoef), 0);
  const Tensor e = exp(mul(self_or_result, negiptcoef));
  return where(lt(self_or_result, 0), mul(mul(gg, e), negiptcoef * negiptcoef * negcoef), 0);
}

// d/dx (Phi(x) + x phi(x)) = phi(x) (2 - x^2); the tanh form:
// d/dx (0.5 (1 + t) + 0.5 x (1 - t^2) u') = (1 - t^2) (u' - x t u'^2 + 0.5 x u''), t = tanh(u),
// u = sqrt(2/pi) (x + kappa x^3).
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  const Tensor gg = mul(grad, grad_output);
  const Tensor x2 = mul(self, self);
  if (approximate == "tanh") {
    const Tensor u = mul(add(self, mul(mul(x2, self), kKappa)), kSqrt2OverPi);
    const Tensor t = tanh(u);
    const Tensor du = mul(add(mul(x2, 3 * kKappa), 1), kSqrt2OverPi);
    const Tensor d2u = mul(self, 6 * kKappa * kSqrt2OverPi);
    const Tensor inner = add(sub(du, mul(mul(self, t), mul(du, du))), mul(mul(self, d2u), 0.5));
    return mul(gg, mul(rsub(mul(t, t), 1), inner));
  }
  const Tensor pdf = mul(exp(mul(x2, -0.5)), kInvSqrt2Pi);
  return mul(gg, mul(pdf, rsub(x2, 2)));
}

// grad * s * (1 + x * (1 - s)), s = sigmoid(x).
Tensor silu_backward_differentiable(const Tensor& grad, const Tensor& self) {
  const Tensor s = sigmoid(self);
  return mul(mul(grad, s), add(mul(self, rsub(s, 1)), 1));
}

// grad * (t + x * s * (1 - t^2)), t = tanh(softplus(x)), s = sigmoid(x).
Tensor mish_backward_differentiable(const Tensor& grad, const Tensor& self) {
  const Tensor s = sigmoid(self);
  const Tensor t = tanh(softplus(self));
  return mul(grad, add(t, mul(mul(self, s), rsub(mul(t, t), 1))));
}

// d/dx sigmoid(beta x) = beta z (1 - z), z = sigmoid(beta x), times the mask beta x < threshold (the
// gradient is the constant 1 above it): a multiplication, as PyTorch, so non-finite terms stay nan.
Tensor softplus_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                                const Scalar& threshold) {
  const Tensor bx = mul(self, beta);
  const Tensor below = to(lt(bx, threshold), grad.scalar_type());
  return mul(mul(sigmoid_backward(mul(grad, grad_output), sigmoid(bx)), below), beta);
}

// hardswish's gradient x / 3 + 1/2 has slope 1/3 inside (-3, 3).
Tensor hardswish_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  return where(logical_and(gt(self, -3.0), lt(self, 3.0)), mul(mul(grad, grad_output), 1.0 / 3.0), 0);
}

// log_sigmoid's gradient is 1 - s, whose derivative is -s (1 - s) = (s - 1) s.
Tensor log_sigmoid_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  const Tensor s = sigmoid(self);
  return mul(mul(grad, grad_output), mul(sub(s, 1), s));
}

}  // namespace tl::autograd::generated
