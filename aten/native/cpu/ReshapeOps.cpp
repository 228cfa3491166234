// The two internal ops reshape is made of besides `view`, as in PyTorch:
// - _reshape_alias: a view with strides reshape already computed, for an input that is not
//   contiguous but can be viewed (ReshapeAliasBackward0);
// - _unsafe_view: view's geometry without view semantics, for the copy reshape had to make. That copy
//   is reachable from nothing else, so the result is an ordinary tensor (no `_base`; in-place changes
//   of it are not changes of a view).
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/_reshape_alias.h"
#include "generated/ops/_unsafe_view.h"
#include "generated/ops/as_strided.h"

namespace tl::native {

// reshape passes strides that fit; a direct call with others gets as_strided's checks (PyTorch's
// reads past the storage) rather than a read outside it.
Tensor reshape_alias_kernel(const Tensor& self, IntArrayRef size, IntArrayRef stride) {
  return as_strided_kernel(self, size, stride, std::nullopt);
}

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
