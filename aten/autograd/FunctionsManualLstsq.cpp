#include "aten/autograd/FunctionsManualLstsq.h"

#include "generated/ops/add.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace tl::autograd::generated {

namespace {
// The adjoint (conjugate transpose).
Tensor mH(const Tensor& t) {
  Tensor tt = transpose(t, -2, -1);
  return is_complex_type(t.scalar_type()) ? conj_physical(tt) : tt;
}
}  // namespace

Tensor pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor pinvAh = mH(pinvA), gradh = mH(grad);
  // The two orders give the same value; each keeps the intermediate products min(m, n) wide.
  if (m <= n) {
    Tensor K = matmul(gradh, pinvA);
    Tensor KpinvAh = matmul(K, pinvAh);
    return add(sub(KpinvAh, mH(matmul(pinvA, K))),
               sub(matmul(matmul(pinvAh, pinvA), sub(gradh, matmul(K, A))), matmul(matmul(A, pinvA), KpinvAh)));
  }
  Tensor K = matmul(pinvA, gradh);
  Tensor pinvAhK = matmul(pinvAh, K);
  return add(sub(matmul(matmul(sub(gradh, matmul(A, K)), pinvA), pinvAh), mH(matmul(K, pinvA))),
             sub(pinvAhK, matmul(matmul(pinvAhK, pinvA), A)));
}

std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX, const Tensor& gL, const Tensor& A,
                                                 const Tensor& B, const Tensor& X,
                                                 std::array<bool, 2> grad_input_mask) {
  const bool has_gL = gL.defined() && gL.numel() > 0;  // empty residuals: no gradient to pass on
  if ((!gX.defined() && !has_gL) || (!grad_input_mask[0] && !grad_input_mask[1])) return {};
  // B is a batch of vectors as linalg_lstsq reads it: 1-D, or A's shape without its last dim.
  bool vector_case = B.dim() == 1;
  if (B.dim() == A.dim() - 1) {
    vector_case = true;
    for (int64_t d = 0; d < B.dim(); ++d) vector_case = vector_case && B.size(d) == A.size(d);
  }
  auto matrix = [&](const Tensor& t) { return vector_case ? unsqueeze(t, -1) : t; };
  const Tensor b = matrix(B);
  Tensor gA, gB;
  if (gX.defined()) {
    const Tensor g = matrix(gX);
    const Tensor pinvA = linalg_pinv(A, std::optional<double>(), std::optional<double>(), false);
    if (grad_input_mask[0]) gA = pinv_backward(matmul(g, mH(b)), pinvA, A);
    if (grad_input_mask[1]) gB = matmul(mH(pinvA), g);
  }
  if (has_gL) {
    const Tensor x = matrix(X);
    const Tensor weighted = mul(sub(b, matmul(A, x)), unsqueeze(gL, -2));  // R * gL, column by column
    if (grad_input_mask[0]) {
      Tensor part = mul(matmul(weighted, mH(x)), -2.0);
      gA = gA.defined() ? add(gA, part) : part;
    }
    if (grad_input_mask[1]) {
      Tensor part = mul(weighted, 2.0);
      gB = gB.defined() ? add(gB, part) : part;
    }
  }
  if (gB.defined() && vector_case) gB = squeeze(gB, -1);
  return {gA, gB};
}

}  // namespace tl::autograd::generated
