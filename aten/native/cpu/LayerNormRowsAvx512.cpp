// The AVX-512 float32 layer_norm rows (LayerNormRowsAvx512.h). Loops step 16 floats; a row's last,
// partial step uses masked loads and stores, so no lane past the row is read or written.
#include "aten/native/cpu/LayerNormRowsAvx512.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's _mm512_reduce_* pass _mm512_undefined_ps() as an unused operand, which -Wall reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define TL_LAYER_NORM_X86 1
#endif

namespace tl::native {

bool layer_norm_rows_avx512() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_LAYER_NORM_X86
    yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    const char* want = std::getenv("TORCHLITE_LAYER_NORM_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_LAYER_NORM_X86

#define TL_AVX512 __attribute__((target("arch=x86-64-v4")))

namespace {

TL_AVX512 inline __mmask16 tail_mask(int64_t len) { return static_cast<__mmask16>((1u << len) - 1u); }

// Sum of x[i] - m over n elements (m = 0: the plain sum), and with Squares the sum of their squares:
// four blocks of 16 lane accumulators, as norm::lane_sum / run_moments (the 16-wide steps after the
// blocks go to block 0; the last partial step's lanes are added to the total one by one).
template <bool Squares>
TL_AVX512 inline void row_sums(const float* x, int64_t n, float m, float* s1, float* s2) {
  const __m512 vm = _mm512_set1_ps(m);
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m512 q0 = a0, q1 = a0, q2 = a0, q3 = a0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm);
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vm);
    const __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 32), vm);
    const __m512 d3 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 48), vm);
    a0 = _mm512_add_ps(a0, d0), a1 = _mm512_add_ps(a1, d1), a2 = _mm512_add_ps(a2, d2), a3 = _mm512_add_ps(a3, d3);
    if constexpr (Squares) {
      q0 = _mm512_fmadd_ps(d0, d0, q0), q1 = _mm512_fmadd_ps(d1, d1, q1);
      q2 = _mm512_fmadd_ps(d2, d2, q2), q3 = _mm512_fmadd_ps(d3, d3, q3);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm);
    a0 = _mm512_add_ps(a0, d);
    if constexpr (Squares) q0 = _mm512_fmadd_ps(d, d, q0);
  }
  float t1 = 0, t2 = 0;
  if (i < n) {  // the scalar tail of the generic loops: left to right
    alignas(64) float d[16];
    _mm512_store_ps(d, _mm512_maskz_sub_ps(tail_mask(n - i), _mm512_maskz_loadu_ps(tail_mask(n - i), x + i), vm));
    for (int64_t k = 0; k < n - i; ++k) {
      t1 += d[k];
      if constexpr (Squares) t2 = std::fma(d[k], d[k], t2);
    }
  }
  *s1 = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3))) + t1;
  if constexpr (Squares) *s2 = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(q0, q1), _mm512_add_ps(q2, q3))) + t2;
}

// y[i..i+16) under mask k (all lanes: k = 0xffff) = ((x - mean) * rstd) * w + b.
template <bool HasW, bool HasB>
TL_AVX512 inline __m512 apply(const float* x, const float* w, const float* b, int64_t i, __mmask16 k, __m512 vmean,
                              __m512 vrstd) {
  const __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), vmean), vrstd);
  if constexpr (HasW && HasB) return _mm512_fmadd_ps(t, _mm512_maskz_loadu_ps(k, w + i), _mm512_maskz_loadu_ps(k, b + i));
  if constexpr (HasW) return _mm512_mul_ps(t, _mm512_maskz_loadu_ps(k, w + i));
  if constexpr (HasB) return _mm512_add_ps(t, _mm512_maskz_loadu_ps(k, b + i));
  return t;
}

template <bool HasW, bool HasB>
TL_AVX512 void apply_row(const float* x, float* y, const float* w, const float* b, int64_t n, float mean, float rstd,
                         bool stream) {
  const __m512 vmean = _mm512_set1_ps(mean), vrstd = _mm512_set1_ps(rstd);
  int64_t i = 0;
  if (stream) {
    // Ordinary (masked) stores up to y's first 64-byte boundary, then whole aligned vectors streamed.
    const int64_t head = std::min<int64_t>(n, ((64 - reinterpret_cast<uintptr_t>(y) % 64) % 64) / sizeof(float));
    if (head) {
      _mm512_mask_storeu_ps(y, tail_mask(head), apply<HasW, HasB>(x, w, b, 0, tail_mask(head), vmean, vrstd));
      i = head;
    }
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(y + i, apply<HasW, HasB>(x, w, b, i, 0xffff, vmean, vrstd));
  } else {
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, apply<HasW, HasB>(x, w, b, i, 0xffff, vmean, vrstd));
  }
  if (i < n) _mm512_mask_storeu_ps(y + i, tail_mask(n - i), apply<HasW, HasB>(x, w, b, i, tail_mask(n - i), vmean, vrstd));
}

}  // namespace

TL_AVX512 void layer_norm_row_f32_avx512(const float* x, float* y, const float* w, const float* b, int64_t n,
                                         double eps, float* mean_out, float* rstd_out, bool stream) {
  const float nn = static_cast<float>(n);
  float s, sd, sd2;
  row_sums<false>(x, n, 0.0f, &s, nullptr);
  const float m = s / nn;
  row_sums<true>(x, n, m, &sd, &sd2);  // from L1: the corrected two-pass algorithm (norm::run_moments)
  const float mean = m + sd / nn, var = (sd2 - sd * sd / nn) / nn;
  const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(std::max(var, 0.0f)) + eps));
  *mean_out = mean;
  *rstd_out = rstd;
  if (w && b) apply_row<true, true>(x, y, w, b, n, mean, rstd, stream);
  else if (w) apply_row<true, false>(x, y, w, b, n, mean, rstd, stream);
  else if (b) apply_row<false, true>(x, y, w, b, n, mean, rstd, stream);
  else apply_row<false, false>(x, y, w, b, n, mean, rstd, stream);
}

namespace {

// Pass 1 of a backward row: the sums of g = dy * w and g * xhat (one vector of lane accumulators each, as the
// generic row), and with Params the row's share of the parameter gradients (dw += dy * xhat, db += dy).
template <bool Params>
TL_AVX512 inline void backward_sums(const float* dy, const float* x, const float* w, float mean, float rstd,
                                    int64_t n, float* dw, float* db, float* sum_g, float* sum_gxhat) {
  const __m512 vmean = _mm512_set1_ps(mean), vrstd = _mm512_set1_ps(rstd);
  __m512 a1 = _mm512_setzero_ps(), a2 = a1;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_loadu_ps(dy + i);
    const __m512 xh = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vmean), vrstd);
    const __m512 g = _mm512_mul_ps(d, _mm512_loadu_ps(w + i));
    a1 = _mm512_add_ps(a1, g);
    a2 = _mm512_fmadd_ps(g, xh, a2);
    if constexpr (Params) {
      _mm512_storeu_ps(dw + i, _mm512_fmadd_ps(d, xh, _mm512_loadu_ps(dw + i)));
      _mm512_storeu_ps(db + i, _mm512_add_ps(_mm512_loadu_ps(db + i), d));
    }
  }
  float t1 = 0, t2 = 0;
  for (; i < n; ++i) {  // the generic row's scalar tail
    const float d = dy[i], xh = (x[i] - mean) * rstd, g = d * w[i];
    t1 += g;
    t2 = std::fma(g, xh, t2);
    if constexpr (Params) {
      dw[i] = std::fma(d, xh, dw[i]);
      db[i] += d;
    }
  }
  *sum_g = _mm512_reduce_add_ps(a1) + t1;
  *sum_gxhat = _mm512_reduce_add_ps(a2) + t2;
}

// dx[k] = rstd * dy[k] * w[k] + c1 * x[k] + c0 under mask m (the generic row's contraction).
TL_AVX512 inline __m512 backward_dx(const float* dy, const float* x, const float* w, int64_t k, __mmask16 m,
                                    __m512 vrstd, __m512 vc1, __m512 vc0) {
  const __m512 a = _mm512_mul_ps(vrstd, _mm512_maskz_loadu_ps(m, dy + k));
  return _mm512_add_ps(_mm512_fmadd_ps(a, _mm512_maskz_loadu_ps(m, w + k), _mm512_mul_ps(vc1, _mm512_maskz_loadu_ps(m, x + k))),
                       vc0);
}

}  // namespace

TL_AVX512 void layer_norm_backward_row_f32_avx512(const float* dy, const float* x, const float* w, float mean,
                                                  float rstd, int64_t n, float* dx, float* dw, float* db, bool stream) {
  float sum_g, sum_gxhat;
  if (dw) backward_sums<true>(dy, x, w, mean, rstd, n, dw, db, &sum_g, &sum_gxhat);
  else backward_sums<false>(dy, x, w, mean, rstd, n, nullptr, nullptr, &sum_g, &sum_gxhat);
  if (!dx) return;
  const float inv_n = 1.0f / static_cast<float>(n);
  const float c1 = -rstd * rstd * sum_gxhat * inv_n;
  const float c0 = -rstd * sum_g * inv_n - c1 * mean;
  const __m512 vrstd = _mm512_set1_ps(rstd), vc1 = _mm512_set1_ps(c1), vc0 = _mm512_set1_ps(c0);
  int64_t k = 0;
  if (stream) {
    const int64_t head = std::min<int64_t>(n, ((64 - reinterpret_cast<uintptr_t>(dx) % 64) % 64) / sizeof(float));
    if (head) {
      _mm512_mask_storeu_ps(dx, tail_mask(head), backward_dx(dy, x, w, 0, tail_mask(head), vrstd, vc1, vc0));
      k = head;
    }
    for (; k + 16 <= n; k += 16) _mm512_stream_ps(dx + k, backward_dx(dy, x, w, k, 0xffff, vrstd, vc1, vc0));
  } else {
    for (; k + 16 <= n; k += 16) _mm512_storeu_ps(dx + k, backward_dx(dy, x, w, k, 0xffff, vrstd, vc1, vc0));
  }
  if (k < n) _mm512_mask_storeu_ps(dx + k, tail_mask(n - k), backward_dx(dy, x, w, k, tail_mask(n - k), vrstd, vc1, vc0));
}

#else

void layer_norm_backward_row_f32_avx512(const float*, const float*, const float*, float, float, int64_t, float*, float*,
                                        float*, bool) {}

void layer_norm_row_f32_avx512(const float*, float*, const float*, const float*, int64_t, double, float*, float*, bool) {}

#endif

}  // namespace tl::native
