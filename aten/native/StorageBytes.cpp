#include "aten/native/StorageBytes.h"

#include <cstring>
#include <utility>

namespace tl::native {
namespace {

// A block kept after a shrink: the original allocation and its size, freed with the storage.
struct KeptBlock {
  DataPtr block;
  size_t capacity;
};
void release_kept(void* ctx) { delete static_cast<KeptBlock*>(ctx); }

}  // namespace

size_t storage_capacity(const StorageImpl& st) {
  if (st.data_ptr.deleter() == &release_kept) return static_cast<const KeptBlock*>(st.data_ptr.context())->capacity;
  return st.nbytes;
}

void resize_storage_bytes(StorageImpl& st, size_t nbytes) {
  if (!st.data() && st.nbytes == 0 && nbytes > 0 && !st.device.is_meta()) {
    st.data_ptr = get_allocator(st.device.type)->allocate(nbytes);
    std::memset(st.data(), 0, nbytes);
  } else if (st.data()) {
    const size_t capacity = storage_capacity(st);
    if (nbytes > capacity) {
      DataPtr fresh = get_allocator(st.device.type)->allocate(nbytes);
      std::memcpy(fresh.get(), st.data(), st.nbytes);
      std::memset(static_cast<char*>(fresh.get()) + st.nbytes, 0, nbytes - st.nbytes);
      st.data_ptr = std::move(fresh);
    } else {
      if (nbytes > st.nbytes) std::memset(static_cast<char*>(st.data()) + st.nbytes, 0, nbytes - st.nbytes);
      if (nbytes < capacity && st.data_ptr.deleter() != &release_kept) {  // remember the block's size
        void* data = st.data();
        st.data_ptr = DataPtr(data, new KeptBlock{std::move(st.data_ptr), capacity}, &release_kept);
      }
    }
  }
  st.nbytes = nbytes;
}

}  // namespace tl::native
