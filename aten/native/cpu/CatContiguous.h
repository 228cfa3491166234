// cat's fast path for contiguous inputs and output of one dtype (most calls): the output is written
// in order, row by row, each input's chunk of a row by one memcpy, as PyTorch's serial cat kernel.
#pragma once
#include <cstdint>

#include "aten/core/Tensor.h"

namespace tl::native {

// Joins `tensors` (skipping 1-D empty ones, cat's legacy rule) along `dim` into `out`, already of
// the joined shape, and returns true; returns false (nothing written) when a tensor or `out` is
// not contiguous or has another dtype or device than `out`, for the general copy to do it.
bool cat_contiguous(TensorList tensors, int64_t dim, const Tensor& out);

}  // namespace tl::native
