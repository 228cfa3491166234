// Derivative helpers for linear and the convolutions: their gradients as differentiable ops, and the
// double backward of convolution_backward (as PyTorch's _convolution_double_backward).
#pragma once
#include <array>
#include <optional>
#include <tuple>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

std::tuple<Tensor, Tensor, Tensor> linear_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const std::optional<Tensor>& bias, std::array<bool, 3> mask);

// convolution's gradients: convolution_backward for the inputs `mask` asks for (the bias only when present).
std::tuple<Tensor, Tensor, Tensor> convolution_backward_from_forward(
    const Tensor& grad, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> mask);

// The gradients of convolution_backward's outputs (gI, gW, gb), given their incoming gradients
// ggI, ggW, ggb (any may be undefined), with respect to grad_output, input and weight. The op is
// bilinear: gI is linear in (gO, W), gW in (gO, I), gb in gO.
std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& grad_output, const Tensor& input,
    const Tensor& weight, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> mask);

}  // namespace tl::autograd::generated
