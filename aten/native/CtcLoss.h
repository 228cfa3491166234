// What ctc_loss's composites and kernels share.
#pragma once
#include <cstdint>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::native {

// The values of an integral lengths tensor (input_lengths / target_lengths) as int64, its elements in order
// whatever its shape, as PyTorch reads them (copied to the CPU: a meta tensor raises). RuntimeError
// "ctc_loss: <name> must be integral" for other dtypes.
std::vector<int64_t> ctc_lengths(const Tensor& lengths, const char* name);

}  // namespace tl::native
