// unbind: one view per index of a dimension (split, chunk and tensor_split are composites over
// narrow/slice in native_functions.yaml).
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/unbind.h"

namespace tl::native {

std::vector<Tensor> unbind_kernel(const Tensor& self, int64_t dim) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "unbind");  // range first, as PyTorch
  TL_CHECK_INDEX(self.dim() > 0, "unbind: Dimension specified as 0 but tensor has no dimensions");
  DimVector sizes(self.sizes()), strides(self.strides());
  const int64_t n = sizes[d], step = strides[d];
  sizes.erase(d);
  strides.erase(d);
  std::vector<Tensor> result;
  result.reserve(n);
  for (int64_t i = 0; i < n; ++i) result.push_back(make_view(self, sizes, strides, self.storage_offset() + i * step));
  return result;
}

}  // namespace tl::native
