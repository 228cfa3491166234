// Resizing tensors in place (out= arguments and resize_).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::native {

// Gives `self` the sizes `shape` with contiguous strides, keeping its storage offset. When the
// storage is too small it is grown in place (contents kept, new bytes uninitialised), so every
// tensor sharing that storage sees the new memory, as in PyTorch. Meta tensors only change shape.
void resize_(const Tensor& self, IntArrayRef shape);

// out= semantics: when out's shape differs from `shape`, resizes it (resize_) and returns true;
// otherwise leaves it untouched (its strides too) and returns false. PyTorch warns when a
// non-empty out is resized; torchlite resizes silently. `op` names the caller in errors.
bool resize_output(const Tensor& out, IntArrayRef shape, const char* op);

// Bytes of storage needed (from the storage start) to hold a tensor of these sizes/strides at
// `storage_offset` elements (0 when any size is 0).
size_t storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset, size_t itemsize);

// Grows the storage of `self` in place to at least `nbytes` (keeping its contents).
void maybe_grow_storage(const Tensor& self, size_t nbytes);

}  // namespace tl::native
