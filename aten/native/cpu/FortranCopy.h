// Strided matrices copied into LAPACK's column-major buffers by the thread that then factors or
// solves them, inside the kernels' batch loops: a separate copy_ of the whole batch is a parallel
// region of its own, and on the loaded 2-core machine waiting for its second thread can cost more
// than the LAPACK call (see cpu/LinalgCholesky.cpp, which copies a triangle the same way).
#pragma once
#include <algorithm>
#include <cstdint>

#include "aten/core/ArrayRef.h"

namespace tl::native::linalg {

// Offset of matrix `b` (row-major numbering of the batch) through the batch dims' sizes and strides
// (the first sizes.size() - 2 of them): broadcast (stride-0) batch dims read the same matrix again.
inline int64_t matrix_offset(int64_t b, IntArrayRef sizes, IntArrayRef strides) {
  int64_t offset = 0;
  for (int64_t d = int64_t(sizes.size()) - 3; d >= 0; --d) {
    offset += (b % sizes[size_t(d)]) * strides[size_t(d)];
    b /= sizes[size_t(d)];
  }
  return offset;
}

// Columns [c0, c1) of the m-row column-major matrix `dst` (leading dim ld) from `src`, whose element
// (i, j) is at i * sr + j * sc; in 32 x 32 tiles, so a transposing copy stays in cache.
template <typename T>
void columns_to_fortran(const T* src, int64_t sr, int64_t sc, T* dst, int64_t ld, int64_t m, int64_t c0,
                        int64_t c1) {
  constexpr int64_t kTile = 32;
  if (sr == 1) {  // columns already contiguous
    for (int64_t j = c0; j < c1; ++j) std::copy_n(src + j * sc, m, dst + j * ld);
    return;
  }
  for (int64_t i0 = 0; i0 < m; i0 += kTile) {
    const int64_t i1 = std::min(m, i0 + kTile);
    for (int64_t j0 = c0; j0 < c1; j0 += kTile) {
      const int64_t j1 = std::min(c1, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        T* col = dst + j * ld;
        const T* s = src + j * sc;
        for (int64_t i = i0; i < i1; ++i) col[i] = s[i * sr];
      }
    }
  }
}

}  // namespace tl::native::linalg
