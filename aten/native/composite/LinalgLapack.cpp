// The torch.linalg ops built on the LAPACK kernels (cpu/LinalgFactorizations.cpp: lu_factor_ex,
// lu_unpack; cpu/LinalgSolve.cpp: lu_solve, solve_triangular), so their gradients come from those
// kernels' formulas: det/slogdet/logdet from the diagonal of U and the pivots' parity, solve as
// lu_factor + lu_solve (getrf + getrs, LAPACK's gesv), inv as solve with the identity (as PyTorch).
// PyTorch's checks come first, each message naming the op; a singular matrix raises
// torchlite.linalg.LinAlgError naming the batch element, the *_ex forms return `info` instead.
#include <string>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/det.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/div.h"
#include "generated/ops/eye.h"
#include "generated/ops/inverse.h"
#include "generated/ops/linalg_det.h"
#include "generated/ops/linalg_inv.h"
#include "generated/ops/linalg_inv_ex.h"
#include "generated/ops/linalg_lu.h"
#include "generated/ops/linalg_lu_factor.h"
#include "generated/ops/linalg_lu_factor_ex.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_slogdet.h"
#include "generated/ops/linalg_solve.h"
#include "generated/ops/linalg_solve_ex.h"
#include "generated/ops/log.h"
#include "generated/ops/logdet.h"
#include "generated/ops/lt.h"
#include "generated/ops/lu_solve.h"
#include "generated/ops/lu_unpack.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/prod.h"
#include "generated/ops/remainder.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sgn.h"
#include "generated/ops/slogdet.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"

namespace tl::native {

using namespace linalg;

namespace {

std::string lu_zero_message(int i) {
  return str("U[", i, ",", i, "] is zero and using it on lu_solve would result in a division by zero. "
             "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
             "linalg.lu_factor_ex(A, pivot)");
}

// The determinant's sign from the row interchanges: -1 for an odd number of them.
Tensor permutation_sign(const Tensor& pivots, ScalarType dtype) {
  const int64_t k = pivots.size(-1);
  Tensor moved = ne(pivots, arange(1, k + 1, 1, ScalarType::Int32, pivots.device()));
  Tensor odd = remainder(sum(moved, IntArrayRef{-1}, false, ScalarType::Int64), 2);
  return to(rsub(mul(odd, 2), 1), dtype);
}

// The diagonal of U (LU's diagonal) and the permutation's sign of each square matrix of A.
std::tuple<Tensor, Tensor> lu_diagonal_and_sign(const Tensor& A) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A);
  return {diagonal(LU, 0, -2, -1), permutation_sign(pivots, A.scalar_type())};
}

void check_square_float(const char* op, const Tensor& A) {
  check_ge2(op, A);
  check_floating(op, A);
  check_square(op, A);
}

// linalg.det and linalg.solve refuse integers themselves and leave 16-bit floats to the LU kernel.
void check_square_not_integral(const char* op, const Tensor& A) {
  check_ge2(op, A);
  TL_CHECK((is_floating_type(A.scalar_type()) || is_complex_type(A.scalar_type())), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(A.scalar_type()));
  check_square(op, A);
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_lu_factor_composite(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A, pivot);
  check_infos("torch.linalg.lu_factor", info, A.dim() > 2, false, lu_zero_message);
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_composite(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A, pivot);
  return lu_unpack(LU, pivots);
}

Tensor lu_solve_composite(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return linalg_lu_solve(LU_data, LU_pivots, self);
}

Tensor linalg_det_composite(const Tensor& A) {
  check_square_not_integral("linalg.det", A);
  auto [diag, sign] = lu_diagonal_and_sign(A);
  return mul(prod(diag, -1), sign);
}

Tensor det_composite(const Tensor& self) { return linalg_det(self); }

std::tuple<Tensor, Tensor> linalg_slogdet_composite(const Tensor& A) {
  check_square_float("linalg.slogdet", A);
  auto [diag, sign] = lu_diagonal_and_sign(A);
  // Real: the sign is piecewise constant, its gradient zero (sgn's), but part of the graph, as PyTorch's.
  // Complex: the sign is det / |det|, of unit modulus, written as diag / |diag| so that its gradient
  // (PyTorch's (g_abs - i Im(conj(g_sign) sign)) A^-H) comes from the ops' formulas.
  Tensor unit = is_complex_type(A.scalar_type()) ? div(diag, abs(diag)) : sgn(diag);
  Tensor s = mul(prod(unit, -1), sign);
  return {s, sum(log(abs(diag)), IntArrayRef{-1})};
}

std::tuple<Tensor, Tensor> slogdet_composite(const Tensor& self) { return linalg_slogdet(self); }

Tensor logdet_composite(const Tensor& self) {
  check_square_float("logdet", self);
  auto [sign, logabsdet] = linalg_slogdet(self);
  // Complex: the complex logarithm log(sign) + log|det| (PyTorch's).
  if (is_complex_type(self.scalar_type())) return add(log(sign), logabsdet);
  // A negative determinant has no real logarithm; a zero one gives -inf (logabsdet already).
  return where(lt(sign, 0), std::numeric_limits<double>::quiet_NaN(), logabsdet);
}

std::tuple<Tensor, Tensor> linalg_solve_ex_composite(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* op = "linalg.solve";
  check_square_not_integral(op, A);
  TL_CHECK(A.scalar_type() == B.scalar_type(), op, ": Expected A and B to have the same dtype, but found A of type ",
           legacy_type_name(A.scalar_type()), " and B of type ", legacy_type_name(B.scalar_type()), " instead");
  // B is a (batch of) vector(s) when it is 1-D or has A's shape without its last dim.
  const bool vector_case =
      B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, static_cast<size_t>(A.dim() - 1)));
  Tensor B2 = vector_case ? unsqueeze(B, -1) : B;
  const int64_t n = A.size(-1);
  TL_CHECK(left ? B2.size(-2) == n : B2.size(-1) == n, op, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B (" : "XA = B (", A.size(-2), "x", n, " and ", B2.size(-2), "x", B2.size(-1), ")");
  auto [LU, pivots, info] = linalg_lu_factor_ex(A);
  Tensor X = linalg_lu_solve(LU, pivots, B2, left);
  if (vector_case) X = squeeze(X, -1);
  if (check_errors)
    check_infos("torch.linalg.solve_ex", info, A.dim() > 2, true,
                [](int) { return std::string("The solver failed because the input matrix is singular."); });
  return {X, info};
}

Tensor linalg_solve_composite(const Tensor& A, const Tensor& B, bool left) {
  auto [X, info] = linalg_solve_ex(A, B, left);
  check_infos("torch.linalg.solve", info, A.dim() > 2, true,
              [](int) { return std::string("The solver failed because the input matrix is singular."); });
  return X;
}

namespace {

std::tuple<Tensor, Tensor> inverse_and_info(const Tensor& A, const char* api, bool check_errors) {
  check_square_float("linalg.inv", A);
  auto [LU, pivots, info] = linalg_lu_factor_ex(A);
  Tensor X = linalg_lu_solve(LU, pivots, eye(A.size(-1), A.scalar_type(), std::nullopt, A.device()));
  if (check_errors)
    check_infos(api, info, A.dim() > 2, true, [](int i) {
      return str("The diagonal element ", i,
                 " is zero, the inversion could not be completed because the input matrix is singular.");
    });
  return {X, info};
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_inv_ex_composite(const Tensor& A, bool check_errors) {
  return inverse_and_info(A, "linalg.inv_ex", check_errors);
}

Tensor linalg_inv_composite(const Tensor& A) { return std::get<0>(inverse_and_info(A, "linalg.inv", true)); }

Tensor inverse_composite(const Tensor& self) { return linalg_inv(self); }

}  // namespace tl::native
