// broadcast_tensors and meshgrid: views (expand) of their inputs at a common shape.
#include <string_view>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/broadcast_tensors.h"
#include "generated/ops/expand.h"
#include "generated/ops/meshgrid.h"
#include "generated/ops/view.h"

namespace tl::native {

// A tensor that already has the common shape is returned as it is (PyTorch's expand_outplace).
std::vector<Tensor> broadcast_tensors_composite(TensorList tensors) {
  std::vector<IntArrayRef> shapes;
  shapes.reserve(tensors.size());
  for (const Tensor& t : tensors) shapes.push_back(t.sizes());
  const DimVector shape = broadcast_shapes(ArrayRef<IntArrayRef>(shapes.data(), shapes.size()));
  std::vector<Tensor> result;
  result.reserve(tensors.size());
  for (const Tensor& t : tensors) result.push_back(t.sizes() == IntArrayRef(shape) ? t : expand(t, shape));
  return result;
}

// Grid i is input i laid along dimension i and expanded to the grid's shape; "xy" swaps the roles
// of the first two inputs (and so the first two dimensions), NumPy's Cartesian indexing.
std::vector<Tensor> meshgrid_indexing_composite(TensorList tensors, std::string_view indexing) {
  TL_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  for (const Tensor& t : tensors) {
    TL_CHECK(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
    TL_CHECK(t.device() == tensors[0].device(), "meshgrid expects all tensors to have the same device");
    TL_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape ",
             t.sizes());
  }
  TL_CHECK(indexing == "ij" || indexing == "xy",
           "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  const size_t n = tensors.size();
  std::vector<Tensor> inputs(tensors.begin(), tensors.end());
  const bool swap = indexing == "xy" && n >= 2;
  if (swap) std::swap(inputs[0], inputs[1]);
  DimVector shape;
  for (const Tensor& t : inputs) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  grids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    DimVector along(n, 1);
    along[i] = -1;
    grids.push_back(expand(view(inputs[i], along), shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

}  // namespace tl::native
