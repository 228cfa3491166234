#include "aten/native/Resize.h"

#include <algorithm>
#include <cstring>

#include "aten/core/Exception.h"

namespace tl::native {

size_t storage_nbytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset, size_t itemsize) {
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    extent += (sizes[i] - 1) * strides[i];
  }
  return static_cast<size_t>(storage_offset + extent) * itemsize;
}

void maybe_grow_storage(const Tensor& self, size_t nbytes) {
  StorageImpl& st = *self.storage();
  if (st.nbytes >= nbytes) return;
  if (st.device.is_meta()) {
    st.nbytes = nbytes;
    return;
  }
  DataPtr fresh = get_allocator(st.device.type)->allocate(nbytes);
  if (st.data() && st.nbytes > 0) std::memcpy(fresh.get(), st.data(), st.nbytes);
  st.data_ptr = std::move(fresh);
  st.nbytes = nbytes;
}

void resize_(const Tensor& self, IntArrayRef shape) {
  for (int64_t s : shape) TL_CHECK(s >= 0, "resize_: Trying to create tensor with negative dimension ", s, ": ", shape);
  TensorImpl* impl = self.impl();
  impl->set_sizes_contiguous(shape);
  maybe_grow_storage(self, storage_nbytes_needed(impl->sizes(), impl->strides(), impl->storage_offset(),
                                                 impl->itemsize()));
}

bool resize_output(const Tensor& out, IntArrayRef shape, const char* op) {
  TL_CHECK(out.defined(), op, ": out= tensor is undefined");
  if (out.sizes().equals(shape)) return false;
  resize_(out, shape);
  return true;
}

}  // namespace tl::native
