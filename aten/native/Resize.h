// Resizing tensors in place (out= arguments and resize_).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::native {

// Gives `self` the sizes `shape` with contiguous strides, keeping its storage offset. When the
// storage is too small it is grown in place (contents kept, new bytes uninitialised), so every
// tensor sharing that storage sees the new memory, as in PyTorch. Meta tensors only change shape.
// All or nothing: when the size overflows or the allocation fails, `self` is left unchanged.
void resize_(const Tensor& self, IntArrayRef shape);

// out= semantics: when out's shape differs from `shape`, resizes it (resize_) and returns true;
// otherwise leaves it untouched (its strides too) and returns false. PyTorch warns when a
// non-empty out is resized; torchlite resizes silently. `op` names the caller in errors.
bool resize_output(const Tensor& out, IntArrayRef shape, const char* op);

// For out= kernels that read an input after resizing `out`: the input itself, or, when it is the
// very tensor `out` (mm(a, b, out=a)), a new handle on the same memory with the input's current
// sizes and strides, so that resizing `out` does not change what the kernel reads. Kernels must
// still compute into a temporary when `out` shares memory with an input.
Tensor input_unaffected_by_resize(const Tensor& input, const Tensor& out);

// Bytes of storage needed (from the storage start) to hold a tensor of these sizes/strides at
// `storage_offset` elements (0 when any size is 0). RuntimeError "Storage size calculation
// overflowed ..." when that does not fit int64.
size_t storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset, size_t itemsize);

// Grows the storage of `self` in place to at least `nbytes` (keeping its contents). A storage
// NumPy points into refuses: RuntimeError "Trying to resize storage that is not resizable".
void maybe_grow_storage(const Tensor& self, size_t nbytes);

}  // namespace tl::native
