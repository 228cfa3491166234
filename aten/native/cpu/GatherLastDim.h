// gather along the innermost dim (torch.gather(x, -1, index)) of a contiguous int64 index and
// output, from rows of x that are stride 1 along the gathered dim and evenly spaced.
//
// Why its own loop: gather_row's scalar loop spends ~4 cycles an element here, and every row of
// x is first touched at random lines (cache misses the hardware prefetcher cannot predict). This
// engine gathers 8 (AVX-512) or 4 (AVX2) elements an instruction for 4- and 8-byte dtypes, and
// prefetches the next row of x while it works on the current one: 4096x1024 float32 goes from
// ~2.8 ms (PyTorch's time too) to ~1.8 ms on 2 cores (benchmarks/bench_catalog2.md).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tl::native {

// For every flat output position k in [begin, end), with row r = k / n:
//   y[k] = x[r * x_row_stride + ix[k]]
// (elements of kSize bytes: 1, 2, 4 or 8; x_row_stride in elements). Returns false, possibly having written part
// of y, when some index lies outside [0, bound); reads go through the index clamped into that
// range, so a bad index never reads outside its row of x.
template <size_t kSize>
bool gather_last_dim(void* y, const void* x, const int64_t* ix, int64_t n, int64_t x_row_stride, int64_t bound,
                     int64_t begin, int64_t end);

extern template bool gather_last_dim<1>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
extern template bool gather_last_dim<2>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
extern template bool gather_last_dim<4>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
extern template bool gather_last_dim<8>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);

}  // namespace tl::native
