// The memory behind tensors. Views share one StorageImpl; it is freed with the last of them.
#pragma once
#include <cstddef>

#include "aten/core/Allocator.h"
#include "aten/core/Device.h"
#include "aten/core/intrusive_ptr.h"

namespace tl {

struct StorageImpl : intrusive_target {
  StorageImpl(size_t nbytes, Device device, DataPtr data)
      : data_ptr(std::move(data)), nbytes(nbytes), device(device) {}
  // Allocates nbytes on `device` with that device type's allocator.
  static intrusive_ptr<StorageImpl> allocate(size_t nbytes, Device device) {
    return intrusive_ptr<StorageImpl>::make(nbytes, device, get_allocator(device.type)->allocate(nbytes));
  }
  void* data() const { return data_ptr.get(); }

  DataPtr data_ptr;
  size_t nbytes;
  Device device;
  // False once memory outside torchlite points into this storage (a NumPy array from numpy(),
  // or NumPy's own memory under from_numpy): growing it would move the data under that pointer.
  bool resizable = true;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace tl
