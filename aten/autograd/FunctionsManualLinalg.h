// Derivative helpers for the LAPACK-backed linalg ops (LU factorization, LU and triangular solves),
// written with tl:: ops so that they are differentiable again (double backward).
#pragma once
#include <array>
#include <string_view>
#include <tuple>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The gradient of A = P L U (partial pivoting; any m x n) from the gradients of L and U, through
// triangular solves (square, wide and tall cases).
Tensor linalg_lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U);
// linalg_lu_factor_ex: the packed LU's gradient split into L's (strictly lower) and U's (upper) parts.
Tensor linalg_lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots);
// lu_unpack: L's gradient below the diagonal and U's on and above it, placed in LU_data's shape.
Tensor lu_unpack_backward(const Tensor& gL, const Tensor& gU, IntArrayRef sizes);
// linalg_lu_solve: (gradient of LU, gradient of B) for X = op(A)^-1 B (left) or B op(A)^-1.
std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots,
                                                    const Tensor& X, bool left, bool adjoint,
                                                    std::array<bool, 2> grad_input_mask);
// linalg_solve_triangular: (gradient of A, restricted to its triangle, gradient of B).
std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X,
                                                            bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> grad_input_mask);

// linalg_cholesky_ex / cholesky: the gradient of A = L L^H from L's (U^H U from U's when `upper`).
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L);
// cholesky_inverse: the gradient of the factor L (or U) of (L L^H)^-1 = `inverse`.
Tensor cholesky_inverse_backward(const Tensor& grad, const Tensor& L, bool upper, const Tensor& inverse);
// linalg_qr: the gradient of A = Q R from Q's and R's (modes reduced and complete with m <= n, r has none).
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode);
// linalg_eigh: the gradient of a symmetric A = V diag(L) V^H from the eigenvalues' and eigenvectors'.
Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V);
// linalg_eig: PyTorch's formula for unit-norm eigenvectors (refuses phase-dependent losses).
Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V);
// linalg_svd: the gradient of A = U diag(S) Vh from U's, S's and Vh's.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh, bool full_matrices);

}  // namespace tl::autograd::generated
