// linalg_pinv.atol_rtol_tensor, the overload every linalg.pinv form reaches (as in PyTorch): a kernel
// rather than a composite so that its gradient is PyTorch's pseudo-inverse formula (pinv_backward),
// not the chain through the SVD, which differs where the tolerance cuts singular values.
// The values: V diag(1/s) U^H over the singular values s above max(atol, rtol * largest) (the
// eigendecomposition's |eigenvalues| when `hermitian`), computed by tl:: ops with grad mode off, so it
// runs on CPU and Meta alike. The tolerances broadcast against the batch and may widen the result.
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgTolerances.h"
#include "aten/native/LinalgUtils.h"
#include "generated/ops/abs.h"
#include "generated/ops/amax.h"
#include "generated/ops/gt.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/linalg_svd.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/narrow.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

using namespace linalg;

namespace {
// The conjugate transpose (the transpose for real types).
Tensor adjoint_of(const Tensor& t) {
  Tensor tt = transpose(t, -2, -1);
  return is_complex_type(t.scalar_type()) ? conj_physical(tt) : tt;
}
}  // namespace

void linalg_pinv_atol_rtol_tensor_kernel(const Tensor& self, const std::optional<Tensor>& atol,
                                         const std::optional<Tensor>& rtol, bool hermitian, Tensor& out) {
  const ScalarType t = self.scalar_type();
  TL_CHECK(self.dim() >= 2 && is_lapack_type(t), "linalg.pinv(",
           legacy_type_name(t), "{", self.sizes(), "}): expected a tensor with 2 or more dimensions of float, double, "
           "cfloat or cdouble types");
  autograd::NoGradGuard no_grad;  // values only: the node's formula gives the gradient
  auto [a, r] = tolerances(self, atol, rtol);
  Tensor result;
  if (self.numel() == 0) {
    DimVector shape(batch_dims(self));
    shape.push_back(self.size(-1)), shape.push_back(self.size(-2));
    result = zeros(shape, t, self.device());
  } else if (hermitian) {
    auto [w, V] = linalg_eigh(self);
    Tensor aw = abs(w);
    Tensor winv = where(gt(aw, cutoff(a, r, amax(aw, IntArrayRef{-1}, true))), reciprocal(w), 0.0);
    result = matmul(mul(V, unsqueeze(winv, -2)), adjoint_of(V));
  } else {
    auto [U, S, Vh] = linalg_svd(self, /*full_matrices=*/false);
    Tensor sinv = where(gt(S, cutoff(a, r, narrow(S, -1, 0, 1))), reciprocal(S), 0.0);  // S is descending
    result = matmul(mul(adjoint_of(Vh), unsqueeze(sinv, -2)), adjoint_of(U));
  }
  assign_output("linalg.pinv", out, result, OutDtype::CanCast);
}

}  // namespace tl::native
