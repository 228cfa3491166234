#include "aten/autograd/FunctionsManualBinary.h"

#include "generated/ops/add.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/ge.h"
#include "generated/ops/gt.h"
#include "generated/ops/le.h"
#include "generated/ops/lt.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::autograd::generated {
namespace {

Tensor zero_like_scalar(const Tensor& grad) { return tl::zeros(IntArrayRef(), grad.dtype(), grad.device()); }

// Logical and / or / not of bool tensors with the ops there are (mul, add, eq).
Tensor logical_and(const Tensor& a, const Tensor& b) { return tl::mul(a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return tl::add(a, b); }
Tensor logical_not(const Tensor& a) { return tl::eq(a, false); }

}  // namespace

Tensor grad_where(const Tensor& mask, const Tensor& grad) { return tl::where(mask, grad, zero_like_scalar(grad)); }

Tensor copysign_tensor_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  const Tensor ratio = tl::where(tl::eq(self, 0), zero_like_scalar(result), tl::div(result, self));
  return tl::mul(grad, ratio);
}

Tensor max_min_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_self, bool is_max) {
  const Tensor split = tl::where(tl::eq(self, other), tl::div(grad, 2), grad);
  // The input loses where the other one is strictly beyond it.
  const Tensor loses = (is_self == is_max) ? tl::lt(self, other) : tl::gt(self, other);
  return tl::where(loses, zero_like_scalar(split), split);
}

Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_self, bool is_max) {
  const Tensor self_chosen = logical_or(is_max ? tl::ge(self, other) : tl::le(self, other), tl::ne(other, other));
  return grad_where(is_self ? self_chosen : logical_not(self_chosen), grad);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  if (min && max) return grad_where(logical_and(tl::ge(self, *min), tl::le(self, *max)), grad);
  if (min) return grad_where(tl::ge(self, *min), grad);
  if (max) return grad_where(tl::le(self, *max), grad);
  return grad;
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max) {
  if (min && max) return grad_where(logical_and(tl::ge(self, *min), tl::le(self, *max)), grad);
  if (min) return grad_where(tl::ge(self, *min), grad);
  if (max) return grad_where(tl::le(self, *max), grad);
  return grad;
}

std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self,
                                                  const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                                                  const std::array<bool, 2>& grad_input_mask) {
  std::tuple<Tensor, Tensor> ret;
  if (!grad.defined()) return ret;
  if (min && max) {
    if (grad_input_mask[0]) std::get<0>(ret) = grad_where(logical_and(tl::lt(self, *min), tl::lt(*min, *max)), grad);
    if (grad_input_mask[1]) std::get<1>(ret) = grad_where(logical_or(tl::gt(self, *max), tl::lt(*max, *min)), grad);
  } else if (min && grad_input_mask[0]) {
    std::get<0>(ret) = grad_where(tl::lt(self, *min), grad);
  } else if (max && grad_input_mask[1]) {
    std::get<1>(ret) = grad_where(tl::gt(self, *max), grad);
  }
  return ret;
}

}  // namespace tl::autograd::generated
