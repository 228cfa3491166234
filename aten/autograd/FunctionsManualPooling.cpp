#include "aten/autograd/FunctionsManualPooling.h"

#include "generated/ops/flatten.h"
#include "generated/ops/gather.h"
#include "generated/ops/reshape.h"

namespace tl::autograd::generated {

Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t dim) {
  // Indices address a plane of the gradient, so both are flattened over their `dim` spatial dims.
  return reshape(gather(flatten(grad, -dim), -1, flatten(indices, -dim)), indices.sizes());
}

std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n) {
  return std::vector<int64_t>(sizes.end() - n, sizes.end());
}

}  // namespace tl::autograd::generated
