// The *_scatter ops: a copy of `self` with `src` written into one of its views (select, slice,
// diagonal, as_strided), the functional forms of writing through a view. Same code for CPU and Meta.
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/DimEngine.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/as_strided_scatter.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/diagonal_scatter.h"
#include "generated/ops/select.h"
#include "generated/ops/select_scatter.h"
#include "generated/ops/slice.h"
#include "generated/ops/slice_scatter.h"

namespace tl::native {

namespace {

bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  return false;
}

// PyTorch's clone_preserve_strides: the whole storage is copied so that the result keeps self's sizes,
// strides and offset exactly (also for a non-dense view); an expanded self cannot be written through
// its own strides, so it is cloned dense instead.
Tensor clone_preserve_strides(const Tensor& self) {
  if (has_internal_overlap(self)) return clone_kernel(self, MemoryFormat::Preserve);
  const int64_t numel = static_cast<int64_t>(self.storage()->nbytes / self.itemsize());
  Tensor full = as_strided_kernel(self, {numel}, {1}, 0);
  Tensor copy = clone_kernel(full, MemoryFormat::Contiguous);
  return as_strided_kernel(copy, self.sizes(), self.strides(), self.storage_offset());
}

// src must have the slice's shape exactly (no broadcasting), as PyTorch's *_scatter kernels.
void scatter_into(const Tensor& slice, const Tensor& src) {
  TL_CHECK(slice.sizes() == src.sizes(), "expected src to have a size equal to the slice of self. src size = ",
           src.sizes(), ", slice size = ", slice.sizes());
  copy_kernel(slice, src, false);
}

}  // namespace

Tensor select_scatter_kernel(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  Tensor output = clone_preserve_strides(self);
  scatter_into(select_kernel(output, dim, index), src);
  return output;
}

void slice_scatter_kernel(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step, Tensor& out) {
  Tensor output = clone_preserve_strides(self);
  scatter_into(slice_kernel(output, dim, start, end, step), src);
  if (!out.defined()) {
    out = output;
    return;
  }
  // out= (PyTorch binds it for slice_scatter only): self's dtype exactly, resized to self's shape.
  prepare_output(out, output.sizes(), self.dtype(), self, OutDtype::Exact, "slice_scatter");  // C++ type names
  if (!out.is_meta()) copy_kernel(out, output, false);
}

Tensor diagonal_scatter_kernel(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor output = clone_preserve_strides(self);
  scatter_into(diagonal_kernel(output, offset, dim1, dim2), src);
  return output;
}

Tensor as_strided_scatter_kernel(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                                 std::optional<int64_t> storage_offset) {
  // PyTorch's backward assumes a contiguous self (its positions row-major), so it refuses the others
  // when self requires grad (an internal assert there: RuntimeError).
  TL_CHECK(!self.requires_grad() || self.is_contiguous(),
           "as_strided_scatter is currently only supported for contiguous inputs");
  Tensor output = clone_preserve_strides(self);  // PyTorch 2.13's copy here too (offset kept)
  scatter_into(as_strided_kernel(output, size, stride, storage_offset), src);
  return output;
}

}  // namespace tl::native
