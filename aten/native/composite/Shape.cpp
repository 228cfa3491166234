// reshape: a view when the strides allow one, otherwise a contiguous copy reshaped (_unsafe_view: not a
// view of that copy, as in PyTorch). Built from public ops so autograd comes from them.
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/_unsafe_view.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/reshape.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor reshape_composite(const Tensor& self, IntArrayRef shape) {
  DimVector size = infer_size(shape, self.numel(), "reshape");  // resolves -1, raises PyTorch's errors
  if (compute_view_strides(self.sizes(), self.strides(), size)) return tl::view(self, size);
  return tl::_unsafe_view(tl::contiguous(self), size);  // a contiguous copy can always be reshaped
}

}  // namespace tl::native
