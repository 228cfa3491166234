// Gradient helpers of the pooling ops (docs/kernels/pooling.md).
#pragma once
#include <cstdint>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The gradient of a max-pool backward (or max_unpool) with respect to its gradient input: `grad`
// read back at the pooled indices of each plane of `dim` spatial dims (PyTorch's max_pool_double_backward).
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t dim);
// The last `n` sizes: the output_size an adaptive pool's gradient was pooled to.
std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n);

}  // namespace tl::autograd::generated
