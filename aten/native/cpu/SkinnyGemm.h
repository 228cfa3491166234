// Matrix products cut into pieces of about 2^19 multiply-adds: C (+)= A @ B for products with few
// rows (an LSTM step: 16-32 batch rows against a 256 x 1024 weight), and the piece sizes for the
// convolutions' shifted products (ConvolutionKernels.cpp), which cut their own loops.
//
// Why: OpenBLAS packs both operands of every call, and a few-row product uses each weight element
// only m times, so repacking the 1 MB weight cost as much as the arithmetic (m = 16: 137 us per
// step, 61 GFLOP/s). For pieces of up to ~2^19 multiply-adds OpenBLAS's SkylakeX build runs its
// small-matrix kernels, which read the operands in place: the same step as eight 16 x 128 x 256
// pieces took 78-86 us (measured on the build machine's Zen 4, one thread; m = 32: 268 -> 170 us as
// 32 x 64 x 256 pieces). Pieces much smaller than that fell back to the packing path again (16 x 32
// x 256: 181 us), so the cut aims at the size, not at "as small as possible". With another BLAS the
// pieces cost about what one call does.
#pragma once
#include <algorithm>
#include <cstdint>

#include "aten/native/cpu/GemmOrLoop.h"

namespace tl::native {

constexpr int64_t kSkinnyPieceMacs = int64_t(1) << 19;

// Columns per piece for a product of `rows` x `depth` operands: a multiple of 16 (a SIMD width's
// worth), at least 16, with rows * columns * depth about kSkinnyPieceMacs.
inline int64_t piece_columns(int64_t rows, int64_t depth) {
  return std::max<int64_t>(16, kSkinnyPieceMacs / std::max<int64_t>(1, rows * depth) / 16 * 16);
}
// Rows per piece where the caller cuts the rows too (convolution's shifted products: 128 output
// channels as two 64-row pieces; 64 x 128 x 64 pieces ran at ~96 GFLOP/s where 128 x 512 x 64 ran at
// ~83, and 64 x 64 x 128 at ~103 against ~87 for 64 x 1024 x 128).
constexpr int64_t kPieceRows = 64;

// C[m x n] (+)= A[m x k] @ B[k x n]; lda/ldb/ldc are row strides. The longer of n and k is cut:
// along n into column blocks, along k into partial sums added into C one after another.
template <typename T>
void skinny_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, bool accumulate,
                 T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (n >= k) {
    const int64_t nc = piece_columns(m, k);
    for (int64_t j = 0; j < n; j += nc)
      gemm_or_loop<T>(false, false, m, std::min(nc, n - j), k, a, lda, b + j, ldb, accumulate, c + j, ldc);
    return;
  }
  const int64_t kc = piece_columns(m, n);
  for (int64_t p = 0; p < k; p += kc)
    gemm_or_loop<T>(false, false, m, n, std::min(kc, k - p), a + p, lda, b + p * ldb, ldb, accumulate || p > 0, c,
                    ldc);
}

}  // namespace tl::native
