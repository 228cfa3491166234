// The vectorized forward of max_pool2d/3d_with_indices (and max_pool1d, a 2-d pool over a unit height):
// one output row at a time, the window's input rows reduced element by element into a full-width row of
// (maximum, position) pairs, then each output combines its columns of that row. MaxPoolRows.cpp says
// why the result is exactly PyTorch's scan-order result.
#pragma once
#include <cstdint>

#include "aten/core/ScalarType.h"
#include "aten/native/cpu/PoolingShape.h"

namespace tl::native::pooling {

// Pools `planes` contiguous (D, H, W) planes of `in` into contiguous (OD, OH, OW) planes of `out` and
// `indices` (positions in the input plane). Returns false, writing nothing, where the row method does not
// apply (a window with no element inside the input, which only dilation can make, or planes too large for
// 32-bit positions of a 4-byte type); the caller then runs the scalar loop.
bool max_pool_rows(ScalarType dtype, const void* in, void* out, int64_t* indices, int64_t planes, const Dims3& in_size,
                   const Dims3& out_size, const Dims3& k, const Dims3& s, const Dims3& p, const Dims3& d);

// A 2-d pool of a channels-last input: `in` holds (N, H, W, C) memory (I = (1, H, W)); the results are
// contiguous (N, C, OH, OW), as the contiguous path's. PyTorch's scan with vectors along the channels. Returns
// false, writing nothing, for planes too large for 32-bit positions of a 4-byte type or a dtype it lacks.
bool max_pool_channels_last(ScalarType dtype, const void* in, void* out, int64_t* indices, int64_t N, int64_t C,
                            const Dims3& I, const Dims3& O, const Dims3& k, const Dims3& s, const Dims3& p,
                            const Dims3& d);

}  // namespace tl::native::pooling
