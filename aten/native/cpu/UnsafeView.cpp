// _unsafe_view: view's geometry without view semantics. reshape uses it on the copy it had to make:
// that copy is reachable from nothing else, so the result is an ordinary tensor (no `_base`, in-place
// changes of it are not tracked as changes of a view), as in PyTorch.
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/_unsafe_view.h"

namespace tl::native {

Tensor unsafe_view_kernel(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "_unsafe_view");
  std::optional<DimVector> stride = compute_view_strides(self.sizes(), self.strides(), shape);
  TL_CHECK(stride.has_value(),
           "_unsafe_view: view size is not compatible with input tensor's size and stride (at least one dimension "
           "spans across two contiguous subspaces). Use .reshape(...) instead.");
  auto impl = intrusive_ptr<TensorImpl>::make(self.storage(), self.dtype(), shape, *stride, self.storage_offset());
  impl->share_version_counter(self.impl()->version_counter());
  impl->set_inference(self.impl()->is_inference());
  return Tensor(std::move(impl));
}

}  // namespace tl::native
