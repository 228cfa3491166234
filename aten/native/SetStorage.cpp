// Tensor.set_ (every overload) and is_set_to: a tensor takes another storage and geometry in place.
// The geometry is checked against the storage before anything changes (all or nothing), and a
// storage too small for it is grown (Resize.h), so no tensor ever views bytes its storage lacks.
#include "aten/core/Exception.h"
#include "aten/native/Resize.h"
#include "generated/ops/is_set_to.h"
#include "generated/ops/set.h"

namespace tl::native {
namespace {

void check_same_device_and_dtype(const Tensor& self, const Tensor& source) {
  TL_CHECK(self.device().type == source.device().type, "set_: Attempted to set the storage of a tensor on device \"",
           self.device().str(), "\" to a storage on different device \"", source.device().str(),
           "\".  This is no longer allowed; the devices must match.");
  TL_CHECK(self.dtype() == source.dtype(), "set_: Could not set tensor of type ", scalar_type_name(source.dtype()),
           " to a tensor of type ", scalar_type_name(self.dtype()));
}

// Points `self` at `storage` with the given geometry, growing the storage when it is too small.
void set_geometry(const Tensor& self, const Tensor& storage_holder, int64_t storage_offset, IntArrayRef size,
                  IntArrayRef stride) {
  TL_CHECK(storage_offset >= 0, "set_: Tensor: invalid storage offset ", storage_offset);
  for (int64_t s : size) TL_CHECK(s >= 0, "set_: Trying to create tensor with negative dimension ", s, ": ", size);
  compute_numel(size);  // raises when the element count overflows int64
  for (int64_t s : stride) {
    TL_CHECK(s >= 0, "set_: Negative strides are not supported, got strides: ", stride);
  }
  const size_t needed = storage_nbytes_needed(size, stride, storage_offset, self.itemsize());
  maybe_grow_storage(storage_holder, needed);  // same storage and dtype as self will have
  TensorImpl* impl = self.impl();
  if (impl->storage() != storage_holder.storage()) impl->set_storage(storage_holder.storage());
  impl->set_sizes_and_strides(size, stride, storage_offset);
}

}  // namespace

const Tensor& set_tensor_kernel(const Tensor& self, const Tensor& source) {
  check_same_device_and_dtype(self, source);
  if (!self.is_same(source)) set_geometry(self, source, source.storage_offset(), source.sizes(), source.strides());
  return self;
}

const Tensor& set_tensor_storage_offset_kernel(const Tensor& self, const Tensor& source, int64_t storage_offset,
                                               IntArrayRef size, IntArrayRef stride) {
  TL_CHECK(source.is_contiguous(), "set_: passed in tensor to be used as storage must be contiguous");
  check_same_device_and_dtype(self, source);
  if (!stride.empty()) {
    TL_CHECK(stride.size() == size.size(), "set_: unequal size length (", size.size(), ") and stride length (",
             stride.size(), ")");
    set_geometry(self, source, storage_offset, size, stride);
  } else {
    set_geometry(self, source, storage_offset, size, contiguous_strides(size));
  }
  return self;
}

const Tensor& set_empty_kernel(const Tensor& self) {
  const int64_t zero[1] = {0};
  const int64_t one[1] = {1};
  self.impl()->set_storage(StorageImpl::allocate(0, self.device()));
  self.impl()->set_sizes_and_strides(IntArrayRef(zero, 1), IntArrayRef(one, 1), 0);
  return self;
}

bool is_set_to_kernel(const Tensor& self, const Tensor& tensor) {
  return self.storage() == tensor.storage() && self.storage_offset() == tensor.storage_offset() &&
         self.sizes().equals(tensor.sizes()) && self.strides().equals(tensor.strides());
}

}  // namespace tl::native
