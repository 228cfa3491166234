// The AVX-512 float32 cross_entropy gradient rows (CrossEntropyRowsAvx512.h). Every loop steps 16 floats; the
// last, partial step uses masked loads and stores (lanes past the row are neither read nor written).
#include "aten/native/cpu/CrossEntropyRowsAvx512.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's _mm512_max_ps / _mm512_min_ps pass _mm512_undefined_ps() as the unused merge operand, which -Wall
// reports as an uninitialized read (it is not read).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "aten/native/cpu/ExpAvx512.h"
#include "aten/native/cpu/SoftmaxRowsAvx512.h"

namespace tl::native {

// The softmax rows' switch: the same CPU test, and TORCHLITE_SOFTMAX_ISA=generic turns both off.
bool cross_entropy_rows_avx512() { return softmax_rows_avx512(); }

#ifdef TL_EXP_AVX512

using avx512::exp_ps;
using avx512::hsum;
using avx512::tail_mask;

namespace {

// gi[i] = f(i, mask) for the row's 16-float steps; with Stream, non-temporal stores from the first 64-byte aligned
// step on (the lines before it and the tail: plain masked stores), left unfenced.
template <bool Stream, typename F>
TL_AVX512_FN inline void write_row(float* gi, int64_t n, const F& f) {
  int64_t i = 0;
  if constexpr (Stream) {
    const int64_t head = std::min<int64_t>(n, ((64 - (reinterpret_cast<uintptr_t>(gi) & 63)) & 63) / 4);
    if ((reinterpret_cast<uintptr_t>(gi) & 3) == 0 && head > 0) {
      const __mmask16 m = tail_mask(head);
      _mm512_mask_storeu_ps(gi, m, f(0, m));
      i = head;
    }
    if ((reinterpret_cast<uintptr_t>(gi + i) & 63) == 0)
      for (; i + 16 <= n; i += 16) _mm512_stream_ps(gi + i, f(i, __mmask16(0xffff)));
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(gi + i, f(i, __mmask16(0xffff)));
  if (i < n) {
    const __mmask16 m = tail_mask(n - i);
    _mm512_mask_storeu_ps(gi + i, m, f(i, m));
  }
}

}  // namespace

TL_AVX512_FN void cross_entropy_grad_row_f32(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a,
                                             float b, const float* w, int64_t t, float at_target, bool stream) {
  if (n <= 0) return;
  const __m512 vl = _mm512_set1_ps(lse), vlo = _mm512_set1_ps(lse_lo), va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  const __m512 vt = _mm512_set1_ps(at_target);
  auto f = [&](int64_t j, __mmask16 m) TL_AVX512_FN {
    const __m512 e = exp_ps(_mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), vl), vlo));
    const __m512 off = w ? _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, w + j)) : vb;
    __m512 v = _mm512_fmsub_ps(va, e, off);
    // The target's column (one lane of one step) takes its one-hot term too.
    if (t >= j && t < j + 16) v = _mm512_mask_sub_ps(v, static_cast<__mmask16>(1u << (t - j)), v, vt);
    return v;
  };
  if (stream) write_row<true>(gi, n, f);
  else write_row<false>(gi, n, f);
}

TL_AVX512_FN void cross_entropy_prob_grad_row_f32(const float* x, const float* p, const float* w, float* gi, int64_t n,
                                                  float lse, float lse_lo, float g, float a, float b, bool stream) {
  if (n <= 0) return;
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b), vl = _mm512_set1_ps(lse), vg = _mm512_set1_ps(g);
  const __m512 vlo = _mm512_set1_ps(lse_lo);
  __m512 q0 = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : tail_mask(n - i);
    __m512 q = _mm512_maskz_mov_ps(m, _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, p + i), vb));
    if (w) q = _mm512_mul_ps(q, _mm512_maskz_loadu_ps(m, w + i));
    q0 = _mm512_add_ps(q0, q);
  }
  const __m512 vQ = _mm512_set1_ps(hsum(q0));
  auto f = [&](int64_t j, __mmask16 m) TL_AVX512_FN {
    __m512 q = _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, p + j), vb);
    if (w) q = _mm512_mul_ps(q, _mm512_maskz_loadu_ps(m, w + j));
    const __m512 e = exp_ps(_mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), vl), vlo));
    return _mm512_mul_ps(vg, _mm512_fmsub_ps(vQ, e, q));
  };
  if (stream) write_row<true>(gi, n, f);
  else write_row<false>(gi, n, f);
}

#else  // not x86-64 GCC: never called (cross_entropy_rows_avx512() is false)

void cross_entropy_grad_row_f32(const float*, float*, int64_t, float, float, float, float, const float*, int64_t, float,
                                bool) {}
void cross_entropy_prob_grad_row_f32(const float*, const float*, const float*, float*, int64_t, float, float, float,
                                     float, float, bool) {}

#endif

}  // namespace tl::native
