// cosine_similarity and pairwise_distance, composites as in PyTorch (their gradients come from the
// ops they call).
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/native/TypePromotion.h"
#include "generated/ops/add.h"
#include "generated/ops/broadcast_tensors.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clone.h"
#include "generated/ops/cosine_similarity.h"
#include "generated/ops/div.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/mul.h"
#include "generated/ops/norm.h"
#include "generated/ops/pairwise_distance.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"

namespace tl::native {

// Each input divided by its norm first (clamped to eps), then the dot product: the result stays in
// [-1, 1] and large norms do not overflow.
Tensor cosine_similarity_composite(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const ScalarType common = result_type(x1, x2);
  TL_CHECK(is_floating_type(common), "cosine_similarity: expected common dtype to be floating point, yet common dtype is ",
           scalar_type_name(common));
  const Tensor a = is_floating_type(x1.dtype()) ? x1 : tl::to(x1, common);
  const Tensor b = is_floating_type(x2.dtype()) ? x2 : tl::to(x2, common);
  const std::vector<Tensor> ab = tl::broadcast_tensors({a, b});
  const std::vector<int64_t> d{dim};
  Tensor n1 = tl::clone(tl::linalg_vector_norm(ab[0], 2, d, true));
  Tensor n2 = tl::clone(tl::linalg_vector_norm(ab[1], 2, d, true));
  {
    autograd::NoGradGuard no_grad;  // the clamp is not differentiated, as in PyTorch
    tl::clamp_min_(n1, eps);
    tl::clamp_min_(n2, eps);
  }
  return tl::sum(tl::mul(tl::div(ab[0], n1), tl::div(ab[1], n2)), d);
}

Tensor pairwise_distance_composite(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  return tl::norm(tl::add(tl::sub(x1, x2), eps), Scalar(p), std::vector<int64_t>{last}, keepdim);
}

}  // namespace tl::native
