// Derivative helper of linalg_lstsq (PyTorch's formula), written with tl:: ops so that it is
// differentiable again.
#pragma once
#include <array>
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// (gradient of A, gradient of B) from the solution's gradient gX and the residuals' gL. X = pinv(A) B:
// A's part from d pinv(A) (pinv_backward), B's as pinv(A)^H gX. The residuals r = |B - A X|^2 per
// column (computed only for full column rank, where A^H (B - A X) = 0, so X's own change drops out):
// -2 (R * gL) X^H for A, 2 R * gL for B, R = B - A X. Vector right-hand sides are one column.
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX, const Tensor& gL, const Tensor& A,
                                                 const Tensor& B, const Tensor& X,
                                                 std::array<bool, 2> grad_input_mask);
// The gradient of A from the gradient of pinv(A) (any m x n, full rank or not as PyTorch's formula).
Tensor pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A);

}  // namespace tl::autograd::generated
