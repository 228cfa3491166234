// reshape, as PyTorch builds it: `view` of a contiguous input, `_reshape_alias` (a view with the strides
// found here) of another input that can be viewed, otherwise a contiguous copy reshaped (`_unsafe_view`:
// not a view of that copy). Built from public ops so autograd comes from them.
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/_reshape_alias.h"
#include "generated/ops/_unsafe_view.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/reshape.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor reshape_composite(const Tensor& self, IntArrayRef shape) {
  DimVector size = infer_size(shape, self.numel(), "reshape");  // resolves -1, raises PyTorch's errors
  if (self.is_contiguous()) return tl::view(self, size);
  if (auto stride = compute_view_strides(self.sizes(), self.strides(), size)) {
    return tl::_reshape_alias(self, size, *stride);
  }
  return tl::_unsafe_view(tl::contiguous(self), size);  // a contiguous copy can always be reshaped
}

}  // namespace tl::native
