// Row-major C (+)= op(A) op(B) for the dtypes convolution and linear compute in: float32/float64
// through the BLAS (single-threaded; callers split work with tl::parallel_for), integers (and
// builds without a BLAS) through a plain loop that accumulates in uint64 / double. The integer
// result wraps as the type's own arithmetic would: the sum is taken modulo 2^64 in unsigned
// arithmetic (signed overflow would be undefined behaviour) and modulo 2^bits when cast back.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aten/native/cpu/Blas.h"

namespace tl::native {

// op(A) is m x k (stored m x k with row stride lda, or k x m when trans_a), op(B) is k x n;
// `accumulate` adds to C instead of overwriting it. Any of m, n, k may be 0.
template <typename T>
void gemm_or_loop(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, bool accumulate, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (blas::kAvailable) {
      blas::gemm<T>(trans_a, trans_b, m, n, k, T(1), a, lda, b, ldb, accumulate ? T(1) : T(0), c, ldc);
      return;
    }
  }
  using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      acc_t acc = accumulate ? static_cast<acc_t>(c[i * ldc + j]) : acc_t(0);
      for (int64_t p = 0; p < k; ++p) {
        const T av = trans_a ? a[p * lda + i] : a[i * lda + p];
        const T bv = trans_b ? b[j * ldb + p] : b[p * ldb + j];
        acc += static_cast<acc_t>(av) * static_cast<acc_t>(bv);
      }
      c[i * ldc + j] = static_cast<T>(acc);
    }
}

}  // namespace tl::native
