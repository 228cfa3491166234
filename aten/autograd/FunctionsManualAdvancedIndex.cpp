// Formula helpers for advanced indexing (FunctionsManualAdvancedIndex.h).
#include "aten/autograd/FunctionsManualAdvancedIndex.h"

#include "aten/native/ShapeUtils.h"
#include "generated/ops/cat.h"
#include "generated/ops/index_put.h"
#include "generated/ops/masked_scatter.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/reshape.h"
#include "generated/ops/zeros.h"

namespace tl::autograd::generated {

Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<std::optional<Tensor>>& indices) {
  return tl::index_put(tl::zeros(self_sizes, grad.scalar_type(), grad.device()), indices, grad, true);
}

Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask) {
  const DimVector shape = tl::broadcast_shapes(self_sizes, mask.sizes());
  return tl::masked_scatter(tl::zeros(shape, grad.scalar_type(), grad.device()), mask, grad);
}

Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef source_sizes) {
  int64_t numel = 1;
  for (int64_t s : source_sizes) numel *= s;
  Tensor selected = tl::masked_select(grad, mask);
  const int64_t pad = numel - selected.numel();
  if (pad > 0) selected = tl::cat({selected, tl::zeros({pad}, grad.scalar_type(), grad.device())}, 0);
  return tl::reshape(selected, source_sizes);
}

}  // namespace tl::autograd::generated
