// The AVX-512 float32 softmax rows (SoftmaxRowsAvx512.h). Every loop steps 16 floats; the last,
// partial step uses masked loads and stores (lanes past the row are neither read nor written, so a
// row ending at the end of a mapping is safe) and masks its lanes out of the sums and maxima.
#include "aten/native/cpu/SoftmaxRowsAvx512.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's _mm512_max_ps and _mm512_reduce_* pass _mm512_undefined_ps() as the unused merge operand,
// which -Wall reports as an uninitialized read (it is not read).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define TL_SOFTMAX_X86 1
#include "aten/native/cpu/ExpAvx512.h"  // exp_ps, hsum, tail_mask
#endif

namespace tl::native {

bool softmax_rows_avx512() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_SOFTMAX_X86
    yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    const char* want = std::getenv("TORCHLITE_SOFTMAX_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_SOFTMAX_X86

#define TL_AVX512 __attribute__((target("arch=x86-64-v4")))

namespace {

using avx512::exp_ps;
using avx512::hsum;
using avx512::tail_mask;

// Horizontal max through memory, in a fixed tree order (hsum: ExpAvx512.h).
TL_AVX512 inline float hmax(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) t[j] = t[j + w] > t[j] ? t[j + w] : t[j];
  return t[0];
}

// Lanes [lo, hi) of a 16-lane mask (0 <= lo <= hi <= 16).
TL_AVX512 inline __mmask16 lane_range(int64_t lo, int64_t hi) {
  return static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

// The largest value of the row, ignoring NaN: max(v, acc) keeps acc when v is NaN.
TL_AVX512 float row_max(const float* x, int64_t n) {
  const __m512 ninf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 m0 = ninf, m1 = ninf;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = _mm512_max_ps(_mm512_loadu_ps(x + i), m0);
    m1 = _mm512_max_ps(_mm512_loadu_ps(x + i + 16), m1);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : tail_mask(n - i);
    m0 = _mm512_max_ps(_mm512_mask_loadu_ps(ninf, m, x + i), m0);
  }
  return hmax(_mm512_max_ps(m0, m1));
}

// sum(exp(x - mx)), also stored to y when Store (softmax keeps the exps to scale them).
template <bool Store>
TL_AVX512 float exp_sum(const float* x, float* y, int64_t n, float mx) {
  const __m512 vm = _mm512_set1_ps(mx);
  __m512 s = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = exp_ps<false>(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    if constexpr (Store) _mm512_storeu_ps(y + i, e);
    s = _mm512_add_ps(s, e);
  }
  if (i < n) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 e = exp_ps<false>(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vm));
    if constexpr (Store) _mm512_mask_storeu_ps(y + i, m, e);
    s = _mm512_mask_add_ps(s, m, s, e);
  }
  return hsum(s);
}

// gi[i] = f(i) for the row's 16-float steps: with Stream, non-temporal stores from the first 64-byte
// aligned step on (the lines before it and the tail are plain masked stores), then, with Fence, an sfence so
// the row is ordered before whatever the caller does next. The softmax backward rows leave the fence to their
// caller, once per block of rows: after every 4 KiB row it stalled the next row's stores until the streamed
// lines had drained to memory (the backward rows 10-20% slower on one thread; a streamed softmax forward 2.4 ms
// against 1.6 ms).
template <bool Stream, bool Fence = true, typename F>
TL_AVX512 inline void write_row(float* gi, int64_t n, const F& f) {
  int64_t i = 0;
  if constexpr (Stream) {
    const int64_t head = std::min<int64_t>(n, ((64 - (reinterpret_cast<uintptr_t>(gi) & 63)) & 63) / 4);
    if ((reinterpret_cast<uintptr_t>(gi) & 3) == 0 && head > 0) {
      const __mmask16 m = tail_mask(head);
      _mm512_mask_storeu_ps(gi, m, f(0, m));
      i = head;
    }
    if ((reinterpret_cast<uintptr_t>(gi + i) & 63) == 0) {
      for (; i + 16 <= n; i += 16) _mm512_stream_ps(gi + i, f(i, __mmask16(0xffff)));
      if constexpr (Fence) _mm_sfence();
    }
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(gi + i, f(i, __mmask16(0xffff)));
  if (i < n) {
    const __mmask16 m = tail_mask(n - i);
    _mm512_mask_storeu_ps(gi + i, m, f(i, m));
  }
}

}  // namespace

TL_AVX512 void softmax_row_f32_avx512(const float* x, float* y, int64_t n) {
  if (n <= 0) return;
  const float mx = row_max(x, n);
  const __m512 inv = _mm512_set1_ps(1.0f / exp_sum<true>(x, y, n, mx));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
  if (i < n) {
    const __mmask16 m = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + i), inv));
  }
}

// log_softmax over rows [0, rows). Each row takes three passes: its max, the sum of its exps, and the write
// (x - max) - log(sum). Done row by row, the max pass waits on memory for the row (the hardware prefetchers stop
// at the 4 KiB page a 1024-float row fills) and the exp pass waits for the max's reduction. Here the exp pass of
// row r, bound by its arithmetic, also loads row r + 1 and takes its max, so the next row arrives while the exps
// compute and its max is ready when its turn comes. The results are the row-by-row loop's, bit for bit: the same
// exps, the sums in the same lanes and order, and a max is exact in any grouping (NaN is skipped by
// max(v, acc) either way).
TL_AVX512 void log_softmax_rows_f32_avx512(const float* x, float* y, int64_t rows, int64_t n) {
  if (n <= 0 || rows <= 0) return;
  const __m512 ninf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t full = n & ~int64_t(15);
  const __mmask16 tail = tail_mask(n - full);
  float mx = row_max(x, n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    // The next row's max reads it in aligned vectors: numpy's arrays start 16 bytes into a cache line, and a
    // second line-splitting load per step made the fused loop no faster than a separate max pass. `xa` is the
    // next row rounded down to 64 bytes, `off` floats before it; lanes outside the row are masked (not read).
    const bool next = r + 1 < rows;
    const float* xn = xr + n;
    const int64_t off = static_cast<int64_t>(reinterpret_cast<uintptr_t>(xn) & 63) / 4;
    const float* xa = xn - off;
    const __m512 vm = _mm512_set1_ps(mx);
    __m512 s = _mm512_setzero_ps(), m = ninf;
    int64_t i = 0;
    if (next) {
      __mmask16 k = lane_range(off, 16);
      for (; i < full; i += 16) {
        s = _mm512_add_ps(s, exp_ps<false>(_mm512_sub_ps(_mm512_loadu_ps(xr + i), vm)));
        m = _mm512_max_ps(_mm512_mask_loadu_ps(ninf, k, xa + i), m);
        k = 0xffff;
      }
      // The next row's last one or two vectors (lane j of the vector at xa + t is the row's element t + j - off).
      for (int64_t t = full; t - off < n; t += 16) {
        const __mmask16 kt = lane_range(std::max<int64_t>(0, off - t), std::min<int64_t>(16, n + off - t));
        m = _mm512_max_ps(_mm512_mask_loadu_ps(ninf, kt, xa + t), m);
      }
    } else {
      for (; i < full; i += 16) s = _mm512_add_ps(s, exp_ps<false>(_mm512_sub_ps(_mm512_loadu_ps(xr + i), vm)));
    }
    if (i < n) {
      const __m512 v = exp_ps<false>(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, xr + i), vm));
      s = _mm512_mask_add_ps(s, tail, s, v);
    }
    // (x - max) - log(sum) keeps precision for huge x.
    const __m512 vl = _mm512_set1_ps(std::log(hsum(s)));
    write_row<false>(yr, n, [&](int64_t j, __mmask16 kk) TL_AVX512 {
      return _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(kk, xr + j), vm), vl);
    });
    if (next) mx = hmax(m);
  }
}

TL_AVX512 void log_softmax_row_f32_avx512(const float* x, float* y, int64_t n) {
  log_softmax_rows_f32_avx512(x, y, 1, n);
}

TL_AVX512 void softmax_backward_row_f32_avx512(const float* g, const float* y, float* gi, int64_t n, bool stream) {
  if (n <= 0) return;
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(g + i), _mm512_loadu_ps(y + i), a0);
    a1 = _mm512_fmadd_ps(_mm512_loadu_ps(g + i + 16), _mm512_loadu_ps(y + i + 16), a1);
    a2 = _mm512_fmadd_ps(_mm512_loadu_ps(g + i + 32), _mm512_loadu_ps(y + i + 32), a2);
    a3 = _mm512_fmadd_ps(_mm512_loadu_ps(g + i + 48), _mm512_loadu_ps(y + i + 48), a3);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : tail_mask(n - i);
    a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, g + i), _mm512_maskz_loadu_ps(m, y + i), a0);
  }
  const __m512 s = _mm512_set1_ps(hsum(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3))));
  auto f = [&](int64_t j, __mmask16 m) TL_AVX512 {
    return _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + j), _mm512_sub_ps(_mm512_maskz_loadu_ps(m, g + j), s));
  };
  if (stream) write_row<true, false>(gi, n, f);
  else write_row<false>(gi, n, f);
}

TL_AVX512 void log_softmax_backward_row_f32_avx512(const float* g, const float* y, float* gi, int64_t n, bool stream) {
  if (n <= 0) return;
  __m512 a0 = _mm512_setzero_ps(), a1 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm512_add_ps(_mm512_loadu_ps(g + i), a0);
    a1 = _mm512_add_ps(_mm512_loadu_ps(g + i + 16), a1);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : tail_mask(n - i);
    a0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m, g + i), a0);
  }
  const __m512 s = _mm512_set1_ps(hsum(_mm512_add_ps(a0, a1)));
  auto f = [&](int64_t j, __mmask16 m) TL_AVX512 {
    return _mm512_fnmadd_ps(exp_ps(_mm512_maskz_loadu_ps(m, y + j)), s, _mm512_maskz_loadu_ps(m, g + j));
  };
  if (stream) write_row<true, false>(gi, n, f);
  else write_row<false>(gi, n, f);
}

TL_AVX512 float max_log_sum_row_f32_avx512(const float* x, int64_t n, float* log_sum) {
  const float mx = row_max(x, n);
  // As log_softmax: a row of -inf, or one holding +inf or NaN, gives a NaN sum (inf - inf).
  *log_sum = std::log(exp_sum<false>(x, nullptr, n, mx));
  return mx;
}

// q_c = (w ? w[c] : 1) * (p ? a * p[c] + b : 1); returns sum_c q_c * (log_sum - (x[c] - mx)) (the -log_softmax
// terms rounded as log_softmax rounds them) and stores sum_c q_c in *q_sum.
TL_AVX512 float cross_entropy_weighted_row_f32_avx512(const float* x, const float* w, const float* p, int64_t n,
                                                     float mx, float log_sum, float a, float b, float* q_sum) {
  const __m512 vm = _mm512_set1_ps(mx), vl = _mm512_set1_ps(log_sum), va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, q0 = s0, q1 = s0;
  auto q_at = [&](int64_t j, __mmask16 m) TL_AVX512 {
    __m512 q = p ? _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, p + j), vb) : one;
    if (w) q = _mm512_mul_ps(q, _mm512_maskz_loadu_ps(m, w + j));
    return q;
  };
  auto nlp_at = [&](int64_t j, __mmask16 m) TL_AVX512 {
    return _mm512_sub_ps(vl, _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), vm));
  };
  const __mmask16 all = 0xffff;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 qa = q_at(i, all), qb = q_at(i + 16, all);
    s0 = _mm512_fmadd_ps(qa, nlp_at(i, all), s0);
    s1 = _mm512_fmadd_ps(qb, nlp_at(i + 16, all), s1);
    q0 = _mm512_add_ps(q0, qa);
    q1 = _mm512_add_ps(q1, qb);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? all : tail_mask(n - i);
    const __m512 q = _mm512_maskz_mov_ps(m, q_at(i, m));
    s0 = _mm512_mask3_fmadd_ps(q, nlp_at(i, m), s0, m);
    q0 = _mm512_add_ps(q0, q);
  }
  *q_sum = hsum(_mm512_add_ps(q0, q1));
  return hsum(_mm512_add_ps(s0, s1));
}

#else  // not x86-64 GCC: never called (softmax_rows_avx512() is false)

float max_log_sum_row_f32_avx512(const float*, int64_t, float*) { return 0; }
float cross_entropy_weighted_row_f32_avx512(const float*, const float*, const float*, int64_t, float, float, float,
                                            float, float*) {
  return 0;
}

void softmax_row_f32_avx512(const float*, float*, int64_t) {}
void log_softmax_row_f32_avx512(const float*, float*, int64_t) {}
void log_softmax_rows_f32_avx512(const float*, float*, int64_t, int64_t) {}
void softmax_backward_row_f32_avx512(const float*, const float*, float*, int64_t, bool) {}
void log_softmax_backward_row_f32_avx512(const float*, const float*, float*, int64_t, bool) {}

#endif

}  // namespace tl::native
