// Derivative helper of linalg_lstsq (PyTorch's formula), written with tl:: ops so that it is
// differentiable again.
#pragma once
#include <array>
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// (gradient of A, gradient of B) for X = pinv(A) B, through the pseudo-inverse: A's from
// d pinv(A) (pinv_backward), B's as pinv(A)^H gX. Vector right-hand sides are handled as one column.
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX, const Tensor& A, const Tensor& B,
                                                 std::array<bool, 2> grad_input_mask);
// The gradient of A from the gradient of pinv(A) (any m x n, full rank or not as PyTorch's formula).
Tensor pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A);

}  // namespace tl::autograd::generated
