// norm::affine_run (NormalizationLoops.h) written out streamed or not: batch_norm's and group_norm's output and input
// gradient over one contiguous run with scalar coefficients. Streamed (StreamStore.h) when the output would not stay
// cached, so an ordinary store's read of each destination line is wasted traffic. float32 goes through
// BatchNormRowsAvx2.cpp where the CPU has AVX2 (the same fused multiply-adds as affine_run's x86-64-v3 clone); other
// types, and CPUs without AVX2, compute pieces into an L1 buffer that stream_copy writes out. The caller fences.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aten/native/cpu/BatchNormRowsAvx2.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/StreamStore.h"

namespace tl::native {

template <typename T>
void affine_run_out(const T* a, const T* b, opmath_t<T> p, opmath_t<T> q, opmath_t<T> r, int64_t n, T* out,
                    bool stream) {
  if constexpr (std::is_same_v<T, float>) {
    if (n > 0 && batch_norm_rows_avx2()) {
      batch_norm_affine_run_f32_avx2(a, b, p, q, r, n, out, stream);
      return;
    }
  }
  if (!stream) {
    norm::affine_run<T>(a, b, p, q, r, n, out);
    return;
  }
  T buf[kStreamPiece];
  for (int64_t i = 0; i < n; i += kStreamPiece) {
    const int64_t w = std::min(kStreamPiece, n - i);
    norm::affine_run<T>(a + i, b ? b + i : nullptr, p, q, r, w, buf);
    stream_copy(out + i, buf, w * static_cast<int64_t>(sizeof(T)));
  }
}

}  // namespace tl::native
