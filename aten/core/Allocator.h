// All tensor memory comes from an Allocator chosen per device type, so that a caching
// allocator (or a counting one, in tests) can be swapped in without touching kernels.
#pragma once
#include <cstddef>
#include <utility>

#include "aten/core/Device.h"

namespace tl {

// Owning pointer to a block of memory with its own deleter. `context` is what the deleter
// receives (for foreign memory such as a NumPy array it is the owning object).
class DataPtr {
 public:
  using Deleter = void (*)(void* context);
  DataPtr() = default;
  DataPtr(void* data, void* context, Deleter deleter) : data_(data), context_(context), deleter_(deleter) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_;
      context_ = o.context_;
      deleter_ = o.deleter_;
      o.data_ = o.context_ = nullptr;
      o.deleter_ = nullptr;
    }
    return *this;
  }
  ~DataPtr() { release(); }
  void* get() const { return data_; }
  void* context() const { return context_; }
  Deleter deleter() const { return deleter_; }

 private:
  void release() {
    if (deleter_) deleter_(context_);
    data_ = context_ = nullptr;
    deleter_ = nullptr;
  }
  void* data_ = nullptr;
  void* context_ = nullptr;
  Deleter deleter_ = nullptr;
};

struct Allocator {
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
};

// The allocator used for new storage on `type`; `set_allocator` replaces it (not owned).
Allocator* get_allocator(DeviceType type);
void set_allocator(DeviceType type, Allocator* allocator);

// Bytes currently allocated by the default CPU allocator (for tests and benchmarks).
size_t cpu_allocated_bytes();

// The op this thread last dispatched (recorded by dispatch_device), named in out-of-memory errors:
// "empty: tried to allocate 8796093022208 bytes (8.0 TiB): out of memory". Null outside ops.
const char* current_op();
void set_current_op(const char* op);

// The RuntimeError for a failed allocation of `nbytes` (PyTorch's type for CPU memory).
[[noreturn]] void out_of_memory_error(size_t nbytes);

// Raises out_of_memory_error when a list of `count` results of about `element_bytes` each cannot fit
// in this machine's memory (split of a huge meta or expanded dim, tensor_split into 2**40 sections):
// the vector would otherwise fail with a bare std::bad_alloc, or an abort under AddressSanitizer.
void check_list_fits(uint64_t count, size_t element_bytes);

}  // namespace tl
