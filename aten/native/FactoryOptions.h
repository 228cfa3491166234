// Checks of the tensor options factories take besides dtype and device.
#pragma once
#include <optional>

#include "aten/core/Exception.h"

namespace tl::native {

// torchlite has no accelerator, so no pinned memory: pin_memory=True fails as in a CPU-only PyTorch.
inline void check_pin_memory(std::optional<bool> pin_memory) {
  TL_CHECK(!pin_memory.value_or(false),
           "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is available "
           "on this system.");
}

}  // namespace tl::native
