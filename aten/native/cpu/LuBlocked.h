// LU with partial pivoting of one large column-major matrix on several threads (LAPACK's blocked
// right-looking getrf, with the trailing update split across tl::parallel_for).
//
// Why: every LAPACK call runs single-threaded (Blas.h pins the BLAS to one thread so its workers never
// spin against OpenMP's), which leaves one of the two cores idle for a single 512 x 512 matrix while
// PyTorch's MKL uses both. Here getrf factors only the narrow panels (single-threaded, ~10% of the
// flops at n = 512); the row interchanges, the triangular solve for U's block row and the rank-`block`
// update of the trailing matrix (the other ~90%) are independent per column, so each thread does
// them for its own columns with single-threaded BLAS calls. The pivots are those of unblocked partial
// pivoting, as getrf's; info is getrf's (the first exactly zero U[i, i], 1-based).
//
// Parallel regions are few (one per panel after the first, 3 for n = 512 with 128-column panels), and
// the matrix is copied into `a` inside them (`fill`, by each column's owner): on the loaded shared
// machine every region waits until both threads have been scheduled, which costs more than the
// narrower panels would save (64-column panels and a separate copy region: 9 regions, median solve
// 512 x 512 ~200x its fastest call at load 19; 3 regions: ~30x at load 22, as PyTorch's MKL call).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>

#include "aten/core/Parallel.h"
#include "aten/native/cpu/Blas.h"
#include "aten/native/cpu/BlasComplex.h"
#include "aten/native/cpu/Lapack.h"

namespace tl::native::linalg {

// Matrices with min(m, n) below this are factored by one getrf call: their update is too small to
// pay for the parallel regions (one per panel).
constexpr int64_t kLuParallelMin = 256;

// `fill(c0, c1)` writes columns [c0, c1) of the matrix into `a` (the first panel's before it is
// factored, every other column by the thread that updates it first).
template <typename T, typename Fill>
int lu_parallel(int64_t m, int64_t n, T* a, int64_t lda, int* ipiv, const Fill& fill, int64_t block = 128) {
  const int64_t K = std::min(m, n);
  const int64_t threads = std::max<int64_t>(1, get_num_threads());
  int info = 0;
  fill(0, std::min(block, n));
  for (int64_t k = 0; k < K; k += block) {
    const int64_t jb = std::min(block, K - k);
    const int pinfo = lapack::getrf<T>(static_cast<int>(m - k), static_cast<int>(jb), a + k + k * lda,
                                       static_cast<int>(lda), ipiv + k);
    if (pinfo > 0 && info == 0) info = static_cast<int>(pinfo + k);
    for (int64_t i = k; i < k + jb; ++i) ipiv[i] += static_cast<int>(k);
    const int64_t left = k, right = n - k - jb, below = m - k - jb;
    if (left + right == 0) continue;
    if (right == 0) {  // the last panel of a square or tall matrix: interchanges left of it only
      for (int64_t j = 0; j < left; ++j)
        for (int64_t i = k; i < k + jb; ++i)
          if (ipiv[i] - 1 != i) std::swap(a[i + j * lda], a[ipiv[i] - 1 + j * lda]);
      continue;
    }
    const T* l11 = a + k + k * lda;
    const T* l21 = a + (k + jb) + k * lda;
    // Task t: its share of the columns left of the panel (interchanges only) and right of it.
    parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        auto swap_rows = [&](int64_t j0, int64_t j1) {
          for (int64_t j = j0; j < j1; ++j) {
            T* col = a + j * lda;
            for (int64_t i = k; i < k + jb; ++i) {
              const int64_t p = ipiv[i] - 1;
              if (p != i) std::swap(col[i], col[p]);
            }
          }
        };
        swap_rows(left * t / threads, left * (t + 1) / threads);
        const int64_t r0 = right * t / threads, r1 = right * (t + 1) / threads, w = r1 - r0;
        if (w == 0) continue;
        const int64_t c0 = k + jb + r0;
        if (k == 0) fill(c0, c0 + w);
        swap_rows(c0, c0 + w);
        T* a12 = a + k + c0 * lda;
        // U12 = L11^-1 A12 (L11 unit lower triangular), then A22 -= L21 U12.
        lapack::trsm<T>(true, false, false, true, static_cast<int>(jb), static_cast<int>(w), l11,
                        static_cast<int>(lda), a12, static_cast<int>(lda));
        // Column-major A22 -= L21 U12 is row-major A22^T -= U12^T L21^T (blas::gemm is row-major).
        if (below > 0)
          blas::gemm<T>(false, false, w, below, jb, T(-1), a12, lda, l21, lda, T(1), a + (k + jb) + c0 * lda, lda);
      }
    });
  }
  return info;
}

}  // namespace tl::native::linalg
