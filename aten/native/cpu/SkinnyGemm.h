// C (+)= A @ B for products with few rows (an LSTM step: 16-32 batch rows against a 256 x 1024
// weight), all row-major and untransposed, cut into pieces of about 2^19 multiply-adds.
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

// C[m x n] (+)= A[m x k] @ B[k x n]; lda/ldb/ldc are row strides. The longer of n and k is cut:
// along n into column blocks, along k into partial sums added into C one after another.
template <typename T>
void skinny_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, bool accumulate,
                 T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (n >= k) {
    // Column blocks of at least 16 (a SIMD width's worth) and whole multiples of 16.
    const int64_t nc = std::max<int64_t>(16, kSkinnyPieceMacs / std::max<int64_t>(1, m * k) / 16 * 16);
    for (int64_t j = 0; j < n; j += nc)
      gemm_or_loop<T>(false, false, m, std::min(nc, n - j), k, a, lda, b + j, ldb, accumulate, c + j, ldc);
    return;
  }
  const int64_t kc = std::max<int64_t>(16, kSkinnyPieceMacs / std::max<int64_t>(1, m * n) / 16 * 16);
  for (int64_t p = 0; p < k; p += kc)
    gemm_or_loop<T>(false, false, m, n, std::min(kc, k - p), a + p, lda, b + p * ldb, ldb, accumulate || p > 0, c,
                    ldc);
}

}  // namespace tl::native
