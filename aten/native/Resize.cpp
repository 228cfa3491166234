#include "aten/native/Resize.h"

#include <algorithm>
#include <cstring>

#include "aten/core/Exception.h"
#include "aten/native/StorageBytes.h"

namespace tl::native {

size_t storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset, size_t itemsize) {
  int64_t extent = 1;  // elements spanned: 1 + sum((size-1)*stride), all overflow-checked
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t term = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &term);
    overflow |= __builtin_add_overflow(extent, term, &extent);
  }
  int64_t nbytes = 0;
  overflow |= __builtin_add_overflow(extent, storage_offset, &nbytes);
  overflow |= __builtin_mul_overflow(nbytes, static_cast<int64_t>(itemsize), &nbytes);
  TL_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  return static_cast<size_t>(nbytes);
}

void maybe_grow_storage(const Tensor& self, size_t nbytes) {
  StorageImpl& st = *self.storage();
  if (st.nbytes >= nbytes) return;
  TL_CHECK(st.resizable, "Trying to resize storage that is not resizable");
  if (st.device.is_meta() || nbytes <= storage_capacity(st)) {  // the block already holds them
    if (st.data() && self.dtype() == ScalarType::Bool) {
      std::memset(static_cast<char*>(st.data()) + st.nbytes, 0, nbytes - st.nbytes);
    }
    st.nbytes = nbytes;
    return;
  }
  DataPtr fresh = get_allocator(st.device.type)->allocate(nbytes);
  if (st.data() && st.nbytes > 0) std::memcpy(fresh.get(), st.data(), st.nbytes);
  // Fresh bool bytes are zeroed: a byte other than 0/1 read as bool is undefined behaviour.
  if (self.dtype() == ScalarType::Bool) std::memset(static_cast<char*>(fresh.get()) + st.nbytes, 0, nbytes - st.nbytes);
  st.data_ptr = std::move(fresh);
  st.nbytes = nbytes;
}

// All or nothing: the new geometry is validated and the storage grown (the allocation may fail)
// before the tensor changes, so a failed resize leaves it as it was and never larger than its storage.
void resize_(const Tensor& self, IntArrayRef shape) {
  for (int64_t s : shape) TL_CHECK(s >= 0, "resize_: Trying to create tensor with negative dimension ", s, ": ", shape);
  compute_numel(shape);  // throws on int64 overflow of the element count
  TensorImpl* impl = self.impl();
  DimVector strides = contiguous_strides(shape);
  maybe_grow_storage(self, storage_nbytes_needed(shape, strides, impl->storage_offset(), impl->itemsize()));
  impl->set_sizes_and_strides(shape, strides, impl->storage_offset());
}

Tensor input_unaffected_by_resize(const Tensor& input, const Tensor& out) {
  if (!out.defined() || !input.defined() || !input.is_same(out)) return input;
  Tensor copy(intrusive_ptr<TensorImpl>::make(input.storage(), input.dtype(), input.sizes(), input.strides(),
                                              input.storage_offset()));
  copy.impl()->set_math_bits(input.impl()->math_bits());
  return copy;
}

bool resize_output(const Tensor& out, IntArrayRef shape, const char* op) {
  TL_CHECK(out.defined(), op, ": out= tensor is undefined");
  if (out.sizes().equals(shape)) return false;
  set_current_op(op);  // an allocation failure names the op whose out= was being resized
  resize_(out, shape);
  return true;
}

}  // namespace tl::native
