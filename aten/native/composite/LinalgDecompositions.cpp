// The Cholesky, QR and spectral ops built on the LAPACK kernels (cpu/LinalgCholesky.cpp,
// cpu/LinalgQr.cpp, cpu/LinalgEigen.cpp) and on solve_triangular, so their gradients come from
// those kernels' formulas. PyTorch's checks come first, each message naming the op.
#include <string>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/LinalgEig.h"
#include "generated/ops/add.h"
#include "generated/ops/cholesky.h"
#include "generated/ops/cholesky_inverse.h"
#include "generated/ops/cholesky_solve.h"
#include "generated/ops/clone.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/eye.h"
#include "generated/ops/linalg_cholesky.h"
#include "generated/ops/linalg_cholesky_ex.h"
#include "generated/ops/linalg_eig.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_eigvals.h"
#include "generated/ops/linalg_eigvalsh.h"
#include "generated/ops/linalg_householder_product.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/linalg_svd.h"
#include "generated/ops/linalg_svdvals.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/orgqr.h"
#include "generated/ops/sub.h"
#include "generated/ops/svd.h"
#include "generated/ops/transpose.h"
#include "generated/ops/tril.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/zeros.h"

namespace tl::native {

using namespace linalg;

namespace {

// The adjoint (conjugate transpose).
Tensor mH(const Tensor& t) {
  Tensor tt = transpose(t, -2, -1);
  return is_complex_type(t.scalar_type()) ? conj_physical(tt) : tt;
}

Tensor cholesky_checked(const char* op, const Tensor& self, bool upper) {
  auto [L, info] = linalg_cholesky_ex(self, upper);
  check_infos(op, info, self.dim() > 2, true, cholesky_failure);
  return L;
}

}  // namespace

Tensor linalg_cholesky_composite(const Tensor& self, bool upper) {
  return cholesky_checked("linalg.cholesky", self, upper);
}

Tensor cholesky_composite(const Tensor& self, bool upper) {
  // The older op checks only the shape of an empty input (any dtype passes, as PyTorch).
  if (self.numel() == 0) {
    check_square("cholesky", self);
    return clone(self);
  }
  return cholesky_checked("cholesky", self, upper);
}

Tensor linalg_householder_product_composite(const Tensor& input, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  TL_CHECK(input.dim() >= 2, op, ": input must have at least 2 dimensions.");
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.dim() >= 1 ? tau.size(-1) : 1;
  TL_CHECK(m >= n, op, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TL_CHECK(n >= k, op, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TL_CHECK(input.dim() - tau.dim() == 1, op, ": Expected tau to have one dimension less than input, but got tau.ndim "
           "equal to ", tau.dim(), " and input.ndim is equal to ", input.dim());
  TL_CHECK(tau.sizes().slice(0, tau.dim() - 1) == batch_dims(input), op,
           ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
           tau.sizes().slice(0, tau.dim() - 1));
  TL_CHECK(input.scalar_type() == tau.scalar_type(), op, ": tau dtype ", legacy_type_name(tau.scalar_type()),
           " does not match input dtype ", legacy_type_name(input.scalar_type()));
  check_lapack_dtype(op, "orgqr_cpu", input);
  // The reflectors' vectors are the columns of V: below the diagonal of input, 1 on it. Applying
  // H_k, ..., H_1 in turn to the first n columns of the identity gives H_1 ... H_k [I; 0].
  Tensor E = eye(m, n, input.scalar_type(), std::nullopt, input.device());
  Tensor V = add(tril(input, -1), E);
  Tensor Q = E;
  for (int64_t i = k - 1; i >= 0; --i) {
    Tensor v = narrow(V, -1, i, 1);
    Tensor t = unsqueeze(narrow(tau, -1, i, 1), -1);
    Q = sub(Q, mul(t, matmul(v, matmul(mH(v), Q))));
  }
  return Q;
}

Tensor orgqr_composite(const Tensor& self, const Tensor& input2) { return linalg_householder_product(self, input2); }

Tensor linalg_eigvalsh_composite(const Tensor& A, std::string_view UPLO) { return std::get<0>(linalg_eigh(A, UPLO)); }

// PyTorch's rule: the eigenvectors are computed only when the gradient needs them.
Tensor linalg_eigvals_composite(const Tensor& A) {
  if (autograd::GradMode::is_enabled() && A.requires_grad()) return std::get<0>(linalg_eig(A));
  return linalg_eigvals_values(A);
}

Tensor linalg_svdvals_composite(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(linalg_svd(A, /*full_matrices=*/false, driver));
}

std::tuple<Tensor, Tensor, Tensor> svd_composite(const Tensor& self, bool some, bool compute_uv) {
  auto [U, S, Vh] = linalg_svd(self, /*full_matrices=*/!some);
  if (compute_uv) return {U, S, mH(Vh)};
  // Without vectors PyTorch returns zero-filled U (m x m) and V (n x n).
  DimVector us(batch_dims(self)), vs(batch_dims(self));
  const int64_t m = self.size(-2), n = self.size(-1);
  us.push_back(m), us.push_back(m), vs.push_back(n), vs.push_back(n);
  return {zeros(us, self.scalar_type(), self.device()), S, zeros(vs, self.scalar_type(), self.device())};
}

}  // namespace tl::native
