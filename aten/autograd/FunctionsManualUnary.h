// Derivative helpers for the unary catalog ops (sinc, nan_to_num).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// d sinc(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), and 0 at x = 0 (where sinc is flat), as PyTorch.
Tensor sinc_backward(const Tensor& grad, const Tensor& self);
// The gradient flows where self is finite; replaced nan/inf elements get 0.
Tensor nan_to_num_backward(const Tensor& grad, const Tensor& self);

}  // namespace tl::autograd::generated
