// Double-backward helpers for the activations: the derivatives of their backward ops with respect
// to the input (grad is the incoming gradient, grad_output the backward op's own first argument).
#pragma once
#include <string_view>

#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self, std::string_view approximate);
// silu's and mish's gradients written with differentiable ops: what their formulas use when grad mode is
// on (a backward with create_graph), as PyTorch, whose silu_backward / mish_backward have no derivative.
Tensor silu_backward_differentiable(const Tensor& grad, const Tensor& self);
Tensor mish_backward_differentiable(const Tensor& grad, const Tensor& self);
Tensor softplus_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                                const Scalar& threshold);
Tensor hardswish_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
Tensor log_sigmoid_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);

}  // namespace tl::autograd::generated
