#include "aten/autograd/FunctionsManualLinalg.h"

#include <algorithm>

#include "aten/core/Exception.h"

#include "generated/ops/add.h"
#include "generated/ops/allclose.h"
#include "generated/ops/cat.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/div.h"
#include "generated/ops/eye.h"
#include "generated/ops/imag.h"
#include "generated/ops/linalg_solve.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/lu_unpack.h"
#include "generated/ops/matmul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/real.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sub.h"
#include "generated/ops/transpose.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {

namespace {

// The adjoint: the conjugate transpose (the transpose for real dtypes).
Tensor mH(const Tensor& t) {
  Tensor tt = transpose(t, -2, -1);
  return is_complex_type(t.scalar_type()) ? conj_physical(tt) : tt;
}

// For square L (unit lower) and U (upper): L^-H phi U^-H.
Tensor sandwich(const Tensor& phi, const Tensor& L, const Tensor& U) {
  Tensor x = linalg_solve_triangular(mH(U), phi, /*upper=*/false, /*left=*/false);
  return linalg_solve_triangular(mH(L), x, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
}

}  // namespace

// With A = P L U, dA = P (dL U + L dU) where dL is strictly lower and dU upper. For square A the
// adjoint is A_grad = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H. A wide A = P L [U1 U2] has
// U2 = L^-1 P^T A2, so A2_grad = P L^-H gU2 and gU2 also reaches L (gL - L^-H gU2 U2^H); a tall
// A = P [L1; L2] U likewise has L2 = A2 U^-1 (A2_grad = P gL2 U^-H, gU - L2^H gL2 U^-H).
Tensor linalg_lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1);
  if (m == n) {
    Tensor phi = add(tril(matmul(mH(L), gL), -1), triu(matmul(gU, mH(U))));
    return matmul(P, sandwich(phi, L, U));
  }
  if (m < n) {
    Tensor U1 = narrow(U, -1, 0, m), U2 = narrow(U, -1, m, n - m);
    Tensor gU1 = narrow(gU, -1, 0, m), gU2 = narrow(gU, -1, m, n - m);
    Tensor a2 = linalg_solve_triangular(mH(L), gU2, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
    Tensor gL1 = sub(gL, matmul(a2, mH(U2)));
    Tensor phi = add(tril(matmul(mH(L), gL1), -1), triu(matmul(gU1, mH(U1))));
    return matmul(P, cat({sandwich(phi, L, U1), a2}, -1));
  }
  Tensor L1 = narrow(L, -2, 0, n), L2 = narrow(L, -2, n, m - n);
  Tensor gL1 = narrow(gL, -2, 0, n), gL2 = narrow(gL, -2, n, m - n);
  Tensor a2 = linalg_solve_triangular(mH(U), gL2, /*upper=*/false, /*left=*/false);
  Tensor gU1 = sub(gU, matmul(mH(L2), a2));
  Tensor phi = add(tril(matmul(mH(L1), gL1), -1), triu(matmul(gU1, mH(U))));
  return matmul(P, cat({sandwich(phi, L1, U), a2}, -2));
}

Tensor linalg_lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  auto [P, L, U] = lu_unpack(LU, pivots);
  Tensor gL = tril(narrow(grad, -1, 0, k), -1);
  Tensor gU = triu(narrow(grad, -2, 0, k));
  return linalg_lu_backward(gL, gU, P, L, U);
}

Tensor lu_unpack_backward(const Tensor& gL, const Tensor& gU, IntArrayRef sizes) {
  const int64_t m = sizes[sizes.size() - 2], n = sizes[sizes.size() - 1];
  if (gL.dim() < 2) return zeros(sizes, gL.scalar_type(), gL.device());  // unpack_data=False: L, U empty
  Tensor l = tril(gL, -1), u = triu(gU);  // L: m x k, U: k x n
  if (m == n) return add(l, u);
  DimVector pad(sizes);
  if (m < n) {  // U has A's shape; L misses the last n - m columns
    pad[pad.size() - 1] = n - m;
    return add(cat({l, zeros(pad, gL.scalar_type(), gL.device())}, -1), u);
  }
  pad[pad.size() - 2] = m - n;  // L has A's shape; U misses the last m - n rows
  return add(l, cat({u, zeros(pad, gU.scalar_type(), gU.device())}, -2));
}

std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots,
                                                    const Tensor& X, bool left, bool adjoint,
                                                    std::array<bool, 2> grad_input_mask) {
  // B's gradient solves with the adjoint system; A's follows from it (A_grad = -op(...) as below).
  Tensor gB = linalg_lu_solve(LU, pivots, grad, left, !adjoint);
  if (!grad_input_mask[0]) return {Tensor(), gB};
  Tensor gA = left ? (adjoint ? neg(matmul(X, mH(gB))) : neg(matmul(gB, mH(X))))
                   : (adjoint ? neg(matmul(mH(gB), X)) : neg(matmul(mH(X), gB)));
  // A = P L U: LU's gradient is L's part (strictly lower) plus U's part (upper) of A's.
  auto [P, L, U] = lu_unpack(LU, pivots);
  Tensor PtgA = matmul(mH(P), gA);
  Tensor gLU = add(tril(matmul(PtgA, mH(U)), -1), triu(matmul(mH(L), PtgA)));
  return {gLU, grad_input_mask[1] ? gB : Tensor()};
}

std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X,
                                                            bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> grad_input_mask) {
  Tensor gB = linalg_solve_triangular(mH(A), grad, !upper, left, unitriangular);
  if (!grad_input_mask[0]) return {Tensor(), gB};
  Tensor gA = left ? neg(matmul(gB, mH(X))) : neg(matmul(mH(X), gB));
  gA = upper ? triu(gA, unitriangular ? 1 : 0) : tril(gA, unitriangular ? -1 : 0);
  return {gA, grad_input_mask[1] ? gB : Tensor()};
}

namespace {

// The identity with the dtype and device of `like`.
Tensor eye_like(int64_t n, const Tensor& like) { return eye(n, like.scalar_type(), std::nullopt, like.device()); }

// X - X^H: the skew-symmetric part (twice over) that orthogonal factors' gradients live in.
Tensor skew(const Tensor& X) { return sub(X, mH(X)); }

}  // namespace

// A = L L^H gives L^-1 dA L^-H = X + X^H with X = L^-1 dL lower triangular, so dL = L Phi(L^-1 dA L^-H)
// where Phi keeps the lower triangle and halves the diagonal. Its adjoint: A_grad = L^-H phi L^-1 with phi
// the Hermitian extension of Phi(L^H gL) (only Hermitian perturbations of A are meaningful).
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L_in) {
  Tensor L = upper ? mH(L_in) : L_in;
  Tensor gL = upper ? mH(grad) : grad;
  // phi = (tril(M) + tril(M, -1)^H) / 2: Hermitian off the diagonal, and the diagonal M_ii / 2 kept
  // complex (PyTorch's formula; symmetrizing the result instead drops Im M_ii, which only complex
  // input has, and gives another gradient than PyTorch's).
  Tensor M = matmul(mH(L), gL);
  Tensor phi = mul(add(tril(M), mH(tril(M, -1))), 0.5);
  Tensor y = linalg_solve_triangular(L, phi, /*upper=*/false, /*left=*/false);   // phi L^-1
  return linalg_solve_triangular(mH(L), y, /*upper=*/true, /*left=*/true);      // L^-H phi L^-1
}

Tensor cholesky_inverse_backward(const Tensor& grad, const Tensor& L, bool upper, const Tensor& inverse) {
  // inverse = (L L^H)^-1 (or (U^H U)^-1): d inverse = -inverse dA inverse with dA = dL L^H + L dL^H.
  Tensor g = neg(matmul(matmul(inverse, add(grad, mH(grad))), inverse));
  // Full, not restricted to L's triangle: PyTorch's convention (as if every entry of L entered A).
  return upper ? matmul(L, g) : matmul(g, L);
}

// A = Q R with Q^H Q = I and R upper triangular (m >= n, or m <= n where Q is square):
// M = R gR^H - gQ^H Q, A_grad = (gQ + Q copyltu(M)) R^-H with copyltu(M) the symmetric matrix
// built from M's lower triangle. For a wide A = Q [R1 R2], R2 = Q^H A2: A2_grad = Q gR2 and Q's
// gradient gains A2 gR2^H.
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode) {
  TL_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  TL_CHECK(mode != "complete" || m <= n, "The QR decomposition is not differentiable when mode='complete' and "
           "nrows > ncols.");
  auto square_case = [](const Tensor& gQ_, const Tensor& gR_, const Tensor& Q_, const Tensor& R_) {
    Tensor M = sub(matmul(R_, mH(gR_)), matmul(mH(gQ_), Q_));
    Tensor sym = add(tril(M), mH(tril(M, -1)));
    Tensor b = add(gQ_, matmul(Q_, sym));
    return linalg_solve_triangular(mH(R_), b, /*upper=*/false, /*left=*/false);  // b R^-H
  };
  if (m >= n) return square_case(gQ, gR, Q, R);
  Tensor R1 = narrow(R, -1, 0, m), R2 = narrow(R, -1, m, n - m);
  Tensor gR1 = narrow(gR, -1, 0, m), gR2 = narrow(gR, -1, m, n - m);
  Tensor A2 = matmul(Q, R2);
  Tensor gA1 = square_case(add(gQ, matmul(A2, mH(gR2))), gR1, Q, R1);
  return cat({gA1, matmul(Q, gR2)}, -1);
}

// A = V diag(L) V^H: A_grad = V (diag(gL) + skew(V^H gV) / 2 / E) V^H with E_ij = L_j - L_i.
Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  const int64_t n = L.size(-1);
  Tensor I = eye_like(n, L);
  Tensor E = add(sub(unsqueeze(L, -2), unsqueeze(L, -1)), I);  // 1 on the diagonal, where skew is 0
  Tensor inner = mul(mul(skew(matmul(mH(V), gV)), 0.5), reciprocal(E));
  inner = add(mul(inner, rsub(I, 1)), mul(unsqueeze(gL, -2), I));
  return matmul(matmul(V, inner), mH(V));
}

// A = V diag(L) V^-1 with unit-norm columns of V (PyTorch's formula):
// A_grad = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i.
// A loss that depends on the eigenvectors' phases (Im diag(V^H gV) != 0) is refused, as PyTorch.
Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gL.defined() && !gV.defined()) return Tensor();
  Tensor Vh = mH(V);
  if (!gV.defined()) return linalg_solve(Vh, mul(unsqueeze(gL, -1), Vh));  // eigenvalues only
  Tensor VhgV = matmul(Vh, gV);
  Tensor d = diagonal(VhgV, 0, -2, -1);
  Tensor im = imag(d);
  TL_CHECK(allclose(im, zeros_like(im), 1e-2, 1e-2),
           "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
           "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
  VhgV = sub(VhgV, matmul(Vh, mul(V, unsqueeze(real(d), -2))));
  const int64_t n = L.size(-1);
  Tensor I = eye_like(n, L);
  Tensor Lc = conj_physical(L);
  Tensor inner = div(VhgV, add(sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1)), I));  // E's diagonal is 1
  if (gL.defined()) inner = add(mul(inner, rsub(I, 1)), mul(unsqueeze(gL, -2), I));
  return linalg_solve(Vh, matmul(inner, Vh));
}

// A = U diag(S) V^H (U m x k, V n x k): A_grad = U [ (skew(U^H gU) / E) S + S (skew(V^H gV) / E) + diag(gS) ] V^H
// + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H), with E_ij = S_j^2 - S_i^2 (1 on the diagonal).
// With full_matrices the columns beyond k do not enter A: their gradients are dropped, as PyTorch.
Tensor svd_backward(const Tensor& gU_in, const Tensor& gS, const Tensor& gVh_in, const Tensor& U_in, const Tensor& S,
                    const Tensor& Vh_in, bool full_matrices) {
  const int64_t m = U_in.size(-2), n = Vh_in.size(-1), k = S.size(-1);
  Tensor U = full_matrices ? narrow(U_in, -1, 0, k) : U_in;
  Tensor Vh = full_matrices ? narrow(Vh_in, -2, 0, k) : Vh_in;
  Tensor gU = full_matrices ? narrow(gU_in, -1, 0, k) : gU_in;
  Tensor gVh = full_matrices ? narrow(gVh_in, -2, 0, k) : gVh_in;
  Tensor V = mH(Vh), gV = mH(gVh);
  Tensor I = eye_like(k, S);
  Tensor S2 = mul(S, S);
  Tensor E = add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), I);
  Tensor UhgU = matmul(mH(U), gU), VhgV = matmul(mH(V), gV);
  Tensor inner = add(mul(div(skew(UhgU), E), unsqueeze(S, -2)), mul(unsqueeze(S, -1), div(skew(VhgV), E)));
  inner = add(inner, mul(unsqueeze(gS, -2), I));
  Tensor gA = matmul(matmul(U, inner), Vh);
  Tensor Sinv = reciprocal(S);
  if (m > k) gA = add(gA, matmul(mul(sub(gU, matmul(U, UhgU)), unsqueeze(Sinv, -2)), Vh));
  if (n > k) gA = add(gA, matmul(U, mul(unsqueeze(Sinv, -1), sub(gVh, matmul(mH(VhgV), Vh)))));
  return gA;
}

}  // namespace tl::autograd::generated
