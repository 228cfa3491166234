// The AVX2/FMA float32 layer_norm rows (LayerNormRowsAvx2.h). Loops step 8 floats (a 16-lane block of the generic
// rows is two vectors, lo = lanes 0-7 and hi = lanes 8-15); the scalar tails are the generic rows' (left to right),
// and the output's head before its first 32-byte boundary (streamed stores only) and last partial vector use masked
// loads and stores, so no lane outside the row is read or written.
#include "aten/native/cpu/LayerNormRowsAvx2.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TL_LAYER_NORM_AVX2 1
#endif

namespace tl::native {

bool layer_norm_rows_avx2() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_LAYER_NORM_AVX2
    yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    const char* want = std::getenv("TORCHLITE_LAYER_NORM_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_LAYER_NORM_AVX2

#define TL_AVX2 __attribute__((target("avx2,fma")))

namespace {

// Lanes [0, len) set (0 < len <= 8): a mask for _mm256_maskload_ps / _mm256_maskstore_ps.
TL_AVX2 inline __m256i lanes(int64_t len) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(len)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The generic rows' reduction of 16 lanes (lo, hi): lane j += lane j + w for w = 8, 4, 2, 1.
TL_AVX2 inline float hsum16(__m256 lo, __m256 hi) {
  const __m256 v = _mm256_add_ps(lo, hi);
  __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  a = _mm_add_ps(a, _mm_movehl_ps(a, a));
  a = _mm_add_ss(a, _mm_movehdup_ps(a));
  return _mm_cvtss_f32(a);
}

// The blocks' lanes 0-7 (h = 0) or 8-15 (h = 1) merged as (b0 + b1) + (b2 + b3): block k's are v[2k + h].
TL_AVX2 inline __m256 merge(const __m256* v, int h) {
  return _mm256_add_ps(_mm256_add_ps(v[h], v[2 + h]), _mm256_add_ps(v[4 + h], v[6 + h]));
}

// norm::lane_sum of x (Dev = false), or of d = x - m and with it of d * d (Dev = true: run_moments' second loop):
// 4 blocks of 16 lanes over 64-element steps, the 16-element steps after them into block 0, the scalar tail left
// to right; blocks merged as (b0 + b1) + (b2 + b3), lanes by hsum16. With Dev the 16 accumulators are the whole
// register file: GCC 12 keeps 13 in registers and 3 on the stack (a load and a store each per 64 elements, where
// the generic row's x86-64-v3 clone loaded and stored all 16); this pass reads the row from L1.
template <bool Dev>
TL_AVX2 inline void row_sums(const float* x, int64_t n, float m, float* s1, float* s2, const float* pf = nullptr) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 a[8], q[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) a[k] = q[k] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    if (pf) {
      const char* p = reinterpret_cast<const char*>(pf + i);
      _mm_prefetch(p, _MM_HINT_T0);
      _mm_prefetch(p + 64, _MM_HINT_T0);
      _mm_prefetch(p + 128, _MM_HINT_T0);
      _mm_prefetch(p + 192, _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      if constexpr (Dev) {
        const __m256 d = _mm256_sub_ps(v, vm);
        a[k] = _mm256_add_ps(a[k], d);
        q[k] = _mm256_fmadd_ps(d, d, q[k]);
      } else {
        a[k] = _mm256_add_ps(a[k], v);
      }
    }
  }
  for (; i + 16 <= n; i += 16) {
#pragma GCC unroll 2
    for (int k = 0; k < 2; ++k) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      if constexpr (Dev) {
        const __m256 d = _mm256_sub_ps(v, vm);
        a[k] = _mm256_add_ps(a[k], d);
        q[k] = _mm256_fmadd_ps(d, d, q[k]);
      } else {
        a[k] = _mm256_add_ps(a[k], v);
      }
    }
  }
  float t1 = 0, t2 = 0;
  for (; i < n; ++i) {
    if constexpr (Dev) {
      const float d = x[i] - m;
      t1 += d;
      t2 = std::fma(d, d, t2);
    } else {
      t1 += x[i];
    }
  }
  *s1 = hsum16(merge(a, 0), merge(a, 1)) + t1;
  if constexpr (Dev) *s2 = hsum16(merge(q, 0), merge(q, 1)) + t2;
}

// Each functor gives its 8 values at i, loading with `ld` (a full or a masked load); their call operators are
// compiled for AVX2 like the loops that take them, so those inline them (see BatchNormRowsAvx2.cpp).
struct Full {
  TL_AVX2 __m256 operator()(const float* p) const { return _mm256_loadu_ps(p); }
};
struct Masked {
  __m256i m;
  TL_AVX2 __m256 operator()(const float* p) const { return _mm256_maskload_ps(p, m); }
};

// ((x - mean) * rstd) * w + b: the generic layer_norm_apply's contraction.
template <bool HasW, bool HasB>
struct Apply {
  const float *x, *w, *b;
  __m256 mean, rstd;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t i, const L& ld) const {
    const __m256 t = _mm256_mul_ps(_mm256_sub_ps(ld(x + i), mean), rstd);
    if constexpr (HasW && HasB) return _mm256_fmadd_ps(t, ld(w + i), ld(b + i));
    if constexpr (HasW) return _mm256_mul_ps(t, ld(w + i));
    if constexpr (HasB) return _mm256_add_ps(t, ld(b + i));
    return t;
  }
};

// rstd * dy * w + c1 * x + c0: the generic backward row's contraction (fma(rstd * dy, w, c1 * x) + c0).
struct Dx {
  const float *dy, *x, *w;
  __m256 rstd, c1, c0;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t k, const L& ld) const {
    const __m256 a = _mm256_mul_ps(rstd, ld(dy + k));
    return _mm256_add_ps(_mm256_fmadd_ps(a, ld(w + k), _mm256_mul_ps(c1, ld(x + k))), c0);
  }
};

// Writes f(i) for i in [0, n) to out: with `stream`, masked ordinary stores up to out's first 32-byte boundary,
// then whole aligned vectors streamed around the cache; the tail with a masked store.
template <typename F>
TL_AVX2 inline void store_row(float* out, int64_t n, bool stream, const F& f) {
  int64_t i = 0;
  if (stream) {
    const int64_t head = std::min<int64_t>(n, ((32 - reinterpret_cast<uintptr_t>(out) % 32) % 32) / sizeof(float));
    if (head) {
      const Masked m{lanes(head)};
      _mm256_maskstore_ps(out, m.m, f(0, m));
      i = head;
    }
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(out + i, f(i, Full{}));
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(i, Full{}));
  }
  if (i < n) {
    const Masked m{lanes(n - i)};
    _mm256_maskstore_ps(out + i, m.m, f(i, m));
  }
}

template <bool HasW, bool HasB>
TL_AVX2 void apply_row(const float* x, float* y, const float* w, const float* b, int64_t n, float mean, float rstd,
                       bool stream) {
  store_row(y, n, stream, Apply<HasW, HasB>{x, w, b, _mm256_set1_ps(mean), _mm256_set1_ps(rstd)});
}

}  // namespace

TL_AVX2 void layer_norm_row_f32_avx2(const float* x, float* y, const float* w, const float* b, int64_t n,
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

// lane_sum's accumulators for a plain row sum (row_sums<false>), kept by a caller that interleaves the row's
// 64-element steps with other work.
struct SumAcc {
  __m256 a[8];
};

TL_AVX2 inline void sum_init(SumAcc& s) {
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) s.a[k] = _mm256_setzero_ps();
}

TL_AVX2 inline void sum_step64(SumAcc& s, const float* p) {
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) s.a[k] = _mm256_add_ps(s.a[k], _mm256_loadu_ps(p + 8 * k));
}

// The rest of row_sums<false> from element i (past the 64-element steps): the 16-element steps, the tail, the
// reduction.
TL_AVX2 inline float sum_finish(SumAcc& s, const float* x, int64_t i, int64_t n) {
  for (; i + 16 <= n; i += 16) {
    s.a[0] = _mm256_add_ps(s.a[0], _mm256_loadu_ps(x + i));
    s.a[1] = _mm256_add_ps(s.a[1], _mm256_loadu_ps(x + i + 8));
  }
  float t = 0;
  for (; i < n; ++i) t += x[i];
  return hsum16(merge(s.a, 0), merge(s.a, 1)) + t;
}

// How many rows ahead the forward's moments pass (from L1) prefetches: the pass leaves the memory idle otherwise.
// 4096x1024, one thread, CPU time, ratio to PyTorch in the same run (two runs): no prefetch 0.67 / 0.62, one row
// ahead 0.64 / 0.56, two rows 0.61 / 0.49, three rows 0.60 / 0.52.
constexpr int64_t kPrefetchRows = 2;

// Rows of n floats, n a positive multiple of 8 and (streamed) y 32-byte aligned, so every row's stores are whole
// aligned vectors. Row r + 1's first read from memory (its plain sum) runs in the same loop as row r's output
// pass (from L1): the out-of-order core overlaps the loads that miss with the output arithmetic, where row by row
// each row first waited for its memory and then computed. Each row's sums keep their order: the same bits.
template <bool HasW, bool HasB>
TL_AVX2 void rows_pipelined(const float* x, float* y, const float* w, const float* b, int64_t n, double eps,
                            float* mean_out, float* rstd_out, int64_t rows, bool stream) {
  const float nn = static_cast<float>(n);
  float s;
  row_sums<false>(x, n, 0.0f, &s, nullptr);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float sd, sd2;
    const float m = s / nn;
    row_sums<true>(xr, n, m, &sd, &sd2, r + kPrefetchRows < rows ? xr + kPrefetchRows * n : nullptr);
    const float mean = m + sd / nn, var = (sd2 - sd * sd / nn) / nn;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(std::max(var, 0.0f)) + eps));
    mean_out[r] = mean;
    rstd_out[r] = rstd;
    const Apply<HasW, HasB> f{xr, w, b, _mm256_set1_ps(mean), _mm256_set1_ps(rstd)};
    int64_t i = 0;
    if (r + 1 < rows) {
      const float* xn = xr + n;
      SumAcc acc;
      sum_init(acc);
      for (; i + 64 <= n; i += 64) {
        sum_step64(acc, xn + i);
        if (stream) {
#pragma GCC unroll 8
          for (int k = 0; k < 8; ++k) _mm256_stream_ps(yr + i + 8 * k, f(i + 8 * k, Full{}));
        } else {
#pragma GCC unroll 8
          for (int k = 0; k < 8; ++k) _mm256_storeu_ps(yr + i + 8 * k, f(i + 8 * k, Full{}));
        }
      }
      s = sum_finish(acc, xn, i, n);
    }
    if (stream) {
      for (; i < n; i += 8) _mm256_stream_ps(yr + i, f(i, Full{}));
    } else {
      for (; i < n; i += 8) _mm256_storeu_ps(yr + i, f(i, Full{}));
    }
  }
}

}  // namespace

TL_AVX2 void layer_norm_rows_f32_avx2(const float* x, float* y, const float* w, const float* b, int64_t n, double eps,
                                      float* mean, float* rstd, int64_t rows, bool stream) {
  if (rows <= 0) return;
  const bool pipelined = n % 8 == 0 && (!stream || reinterpret_cast<uintptr_t>(y) % 32 == 0);
  if (!pipelined) {
    for (int64_t r = 0; r < rows; ++r) layer_norm_row_f32_avx2(x + r * n, y + r * n, w, b, n, eps, mean + r, rstd + r, stream);
  } else if (w && b) {
    rows_pipelined<true, true>(x, y, w, b, n, eps, mean, rstd, rows, stream);
  } else if (w) {
    rows_pipelined<true, false>(x, y, w, b, n, eps, mean, rstd, rows, stream);
  } else if (b) {
    rows_pipelined<false, true>(x, y, w, b, n, eps, mean, rstd, rows, stream);
  } else {
    rows_pipelined<false, false>(x, y, w, b, n, eps, mean, rstd, rows, stream);
  }
}

namespace {

// Pass 1 of a backward row: the sums of g = dy * w and g * xhat (one block of 16 lanes each, as the generic row),
// and with dw non-null the row's share of the parameter gradients (dw += dy * xhat, db += dy). Stepped by its
// caller (16 elements a step, then the scalar tail) so that the pipelined rows can interleave it with other work.
struct BackwardSums {
  const float *dy, *x, *w;
  float* dw;
  float* db;
  float mean, rstd;
  __m256 vmean, vrstd, a1[2], a2[2];

  TL_AVX2 BackwardSums(const float* dy_, const float* x_, const float* w_, float mean_, float rstd_, float* dw_,
                       float* db_)
      : dy(dy_), x(x_), w(w_), dw(dw_), db(db_), mean(mean_), rstd(rstd_) {
    vmean = _mm256_set1_ps(mean);
    vrstd = _mm256_set1_ps(rstd);
    a1[0] = a1[1] = a2[0] = a2[1] = _mm256_setzero_ps();
  }

  template <bool Params>
  TL_AVX2 void step16(int64_t i) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const int64_t j = i + 8 * h;
      const __m256 d = _mm256_loadu_ps(dy + j);
      const __m256 xh = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), vmean), vrstd);
      const __m256 g = _mm256_mul_ps(d, _mm256_loadu_ps(w + j));
      a1[h] = _mm256_add_ps(a1[h], g);
      a2[h] = _mm256_fmadd_ps(g, xh, a2[h]);
      if constexpr (Params) {
        _mm256_storeu_ps(dw + j, _mm256_fmadd_ps(d, xh, _mm256_loadu_ps(dw + j)));
        _mm256_storeu_ps(db + j, _mm256_add_ps(_mm256_loadu_ps(db + j), d));
      }
    }
  }

  // The generic row's scalar tail from i, then the reduction.
  template <bool Params>
  TL_AVX2 void finish(int64_t i, int64_t n, float* sum_g, float* sum_gxhat) {
    float t1 = 0, t2 = 0;
    for (; i < n; ++i) {
      const float d = dy[i], xh = (x[i] - mean) * rstd, g = d * w[i];
      t1 += g;
      t2 = std::fma(g, xh, t2);
      if constexpr (Params) {
        dw[i] = std::fma(d, xh, dw[i]);
        db[i] += d;
      }
    }
    *sum_g = hsum16(a1[0], a1[1]) + t1;
    *sum_gxhat = hsum16(a2[0], a2[1]) + t2;
  }
};

template <bool Params>
TL_AVX2 inline void backward_sums(BackwardSums& p, int64_t n, float* sum_g, float* sum_gxhat) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) p.step16<Params>(i);
  p.finish<Params>(i, n, sum_g, sum_gxhat);
}

// dx's functor for a row with its sums.
TL_AVX2 inline Dx make_dx(const float* dy, const float* x, const float* w, float mean, float rstd, int64_t n,
                          float sum_g, float sum_gxhat) {
  const float inv_n = 1.0f / static_cast<float>(n);
  const float c1 = -rstd * rstd * sum_gxhat * inv_n;
  const float c0 = -rstd * sum_g * inv_n - c1 * mean;
  return Dx{dy, x, w, _mm256_set1_ps(rstd), _mm256_set1_ps(c1), _mm256_set1_ps(c0)};
}

// Rows of n floats with dx, n a positive multiple of 8 and (streamed) dx 32-byte aligned: row r + 1's pass 1 (its
// read of dy and x from memory) runs in the same loop as row r's dx pass (from L1), as rows_pipelined.
template <bool Params>
TL_AVX2 void backward_rows_pipelined(const float* dy, const float* x, const float* w, const float* mean,
                                     const float* rstd, int64_t n, int64_t rows, float* dx, float* dw, float* db,
                                     bool stream) {
  float sg, sgx;
  {
    BackwardSums p(dy, x, w, mean[0], rstd[0], dw, db);
    backward_sums<Params>(p, n, &sg, &sgx);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const Dx f = make_dx(dy + r * n, x + r * n, w, mean[r], rstd[r], n, sg, sgx);
    float* dxr = dx + r * n;
    int64_t i = 0;
    if (r + 1 < rows) {
      BackwardSums p(dy + (r + 1) * n, x + (r + 1) * n, w, mean[r + 1], rstd[r + 1], dw, db);
      // Row r + 2's dy and x prefetched a line each per step, while row r + 1 is read (a third and fourth stream in
      // flight). 4096x1024 kernel, one thread, CPU time, ratio to PyTorch (two runs): none 0.66 / 0.66, row r + 2
      // 0.57 / 0.58, row r + 3 0.58 / 0.62.
      const bool ahead = r + 2 < rows;
      const char* pdy = ahead ? reinterpret_cast<const char*>(dy + (r + 2) * n) : nullptr;
      const char* px = ahead ? reinterpret_cast<const char*>(x + (r + 2) * n) : nullptr;
      for (; i + 16 <= n; i += 16) {
        if (ahead) {
          _mm_prefetch(pdy + 4 * i, _MM_HINT_T0);
          _mm_prefetch(px + 4 * i, _MM_HINT_T0);
        }
        p.step16<Params>(i);
        if (stream) {
          _mm256_stream_ps(dxr + i, f(i, Full{}));
          _mm256_stream_ps(dxr + i + 8, f(i + 8, Full{}));
        } else {
          _mm256_storeu_ps(dxr + i, f(i, Full{}));
          _mm256_storeu_ps(dxr + i + 8, f(i + 8, Full{}));
        }
      }
      p.finish<Params>(i, n, &sg, &sgx);
    }
    if (stream) {
      for (; i < n; i += 8) _mm256_stream_ps(dxr + i, f(i, Full{}));
    } else {
      for (; i < n; i += 8) _mm256_storeu_ps(dxr + i, f(i, Full{}));
    }
  }
}

}  // namespace

TL_AVX2 void layer_norm_backward_row_f32_avx2(const float* dy, const float* x, const float* w, float mean, float rstd,
                                              int64_t n, float* dx, float* dw, float* db, bool stream) {
  float sum_g, sum_gxhat;
  BackwardSums p(dy, x, w, mean, rstd, dw, db);
  if (dw) backward_sums<true>(p, n, &sum_g, &sum_gxhat);
  else backward_sums<false>(p, n, &sum_g, &sum_gxhat);
  if (!dx) return;
  store_row(dx, n, stream, make_dx(dy, x, w, mean, rstd, n, sum_g, sum_gxhat));
}

TL_AVX2 void layer_norm_backward_rows_f32_avx2(const float* dy, const float* x, const float* w, const float* mean,
                                               const float* rstd, int64_t n, int64_t rows, float* dx, float* dw,
                                               float* db, bool stream) {
  if (rows <= 0) return;
  const bool pipelined = dx && n % 8 == 0 && (!stream || reinterpret_cast<uintptr_t>(dx) % 32 == 0);
  if (!pipelined) {
    for (int64_t r = 0; r < rows; ++r)
      layer_norm_backward_row_f32_avx2(dy + r * n, x + r * n, w, mean[r], rstd[r], n, dx ? dx + r * n : nullptr, dw,
                                       db, stream);
  } else if (dw) {
    backward_rows_pipelined<true>(dy, x, w, mean, rstd, n, rows, dx, dw, db, stream);
  } else {
    backward_rows_pipelined<false>(dy, x, w, mean, rstd, n, rows, dx, dw, db, stream);
  }
}

#else

void layer_norm_row_f32_avx2(const float*, float*, const float*, const float*, int64_t, double, float*, float*, bool) {}
void layer_norm_rows_f32_avx2(const float*, float*, const float*, const float*, int64_t, double, float*, float*,
                              int64_t, bool) {}
void layer_norm_backward_row_f32_avx2(const float*, const float*, const float*, float, float, int64_t, float*, float*,
                                      float*, bool) {}
void layer_norm_backward_rows_f32_avx2(const float*, const float*, const float*, const float*, const float*, int64_t,
                                       int64_t, float*, float*, float*, bool) {}

#endif

}  // namespace tl::native
