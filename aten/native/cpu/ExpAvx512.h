// exp in 16 float lanes with AVX-512 intrinsics, for the kernels whose time is their exps (the softmax rows,
// SoftmaxRowsAvx512.cpp; the fused cross_entropy rows, CrossEntropyRowsAvx512.cpp): k = round(x / ln2) through
// the 1.5 * 2^23 shifter, r = x - k ln2 with ln2 in two floats (Cody-Waite, |r| <= ln2 / 2),
// exp(r) = 1 + r + r^2 P(r) with P a degree-4 minimax fit of (exp(r) - 1 - r) / r^2 on [-ln2/2, ln2/2]
// (relative error 3e-9, far below float's rounding; one term fewer than Cephes' degree-5 P: 0.91 ulp worst
// case over every float against double exp, Cephes' 0.89), times 2^k by one vscalefps (exact, subnormal
// results and overflow correct). x is clamped to [-104, 88.7228394] first: below, the result rounds to 0;
// above, 2^128 overflows to inf as it should; -inf must not reach r (inf - inf). max/min return x when it is
// NaN (the second operand), so NaN stays NaN. Callers whose x is known <= 0 or NaN (softmax's x - max(x))
// skip the upper clamp (Upper = false): those loops are compute bound, and every instruction counts.
// Include only from files compiled for x86-64 with GCC (TL_EXP_AVX512 says so).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstdint>

#define TL_EXP_AVX512 1
#define TL_AVX512_FN __attribute__((target("arch=x86-64-v4")))

namespace tl::native::avx512 {

template <bool Upper = true>
TL_AVX512_FN inline __m512 exp_ps(__m512 x) {
  x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
  if constexpr (Upper) x = _mm512_min_ps(_mm512_set1_ps(88.7228394f), x);
  const __m512 shifter = _mm512_set1_ps(12582912.0f);
  const __m512 k = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), shifter), shifter);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.381461275741458e-3f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.368710055947304e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.166838899254799e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666652113199234e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.999999403953552e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, k);
}

// The lanes [0, left) of a 16-lane step (0 < left < 16).
TL_AVX512_FN inline __mmask16 tail_mask(int64_t left) { return static_cast<__mmask16>((1u << left) - 1u); }

// Horizontal sum through memory, in a fixed tree order (the same result on every call).
TL_AVX512_FN inline float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) t[j] += t[j + w];
  return t[0];
}

}  // namespace tl::native::avx512

#endif
