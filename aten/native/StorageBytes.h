// Changing the size of a storage in place (UntypedStorage.resize_, and the growth resize_ / set_
// need). Shrinking keeps the memory block: tensors may still view bytes past the new end (PyTorch
// then reads freed memory; torchlite reads the old bytes), so a block never gets smaller while its
// storage lives, and growing back within it needs no allocation.
#pragma once
#include <cstddef>

#include "aten/core/Storage.h"

namespace tl::native {

// Bytes the block behind `st` holds (at least st.nbytes).
size_t storage_capacity(const StorageImpl& st);

// Sets st.nbytes to `nbytes`: bytes past the old end read as zero; a larger block is allocated
// (contents copied) only past the capacity. The caller checks st.resizable.
void resize_storage_bytes(StorageImpl& st, size_t nbytes);

}  // namespace tl::native
