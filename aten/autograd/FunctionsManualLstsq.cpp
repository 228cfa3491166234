#include "aten/autograd/FunctionsManualLstsq.h"

#include "generated/ops/add.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/matmul.h"
#include "generated/ops/neg.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace tl::autograd::generated {

namespace {
Tensor mH(const Tensor& t) { return transpose(t, -2, -1); }
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

std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& gX, const Tensor& A, const Tensor& B,
                                                 std::array<bool, 2> grad_input_mask) {
  if (!gX.defined() || (!grad_input_mask[0] && !grad_input_mask[1])) return {};
  // B is a batch of vectors as linalg_lstsq reads it: 1-D, or A's shape without its last dim.
  bool vector_case = B.dim() == 1;
  if (B.dim() == A.dim() - 1) {
    vector_case = true;
    for (int64_t d = 0; d < B.dim(); ++d) vector_case = vector_case && B.size(d) == A.size(d);
  }
  const Tensor g = vector_case ? unsqueeze(gX, -1) : gX;
  const Tensor b = vector_case ? unsqueeze(B, -1) : B;
  const Tensor pinvA = linalg_pinv(A, std::optional<double>(), std::optional<double>(), false);
  Tensor gA, gB;
  if (grad_input_mask[0]) gA = pinv_backward(matmul(g, mH(b)), pinvA, A);
  if (grad_input_mask[1]) {
    gB = matmul(mH(pinvA), g);
    if (vector_case) gB = squeeze(gB, -1);
  }
  return {gA, gB};
}

}  // namespace tl::autograd::generated
