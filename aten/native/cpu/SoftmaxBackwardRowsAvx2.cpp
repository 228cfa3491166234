// The AVX2 softmax backward rows (SoftmaxBackwardRowsAvx2.h).
//
// A row takes two steps: its sum (of g * y, or of g), then the write of gI. Done row by row, the sum pass waits on
// memory (the hardware prefetchers stop at the 4 KiB page a 1024-float row fills) while the write pass, reading the
// row back from L1, leaves the memory idle (and log_softmax's write pass is busy with its exps). So the write pass of
// row r also loads row r + 1 and takes its sum: one pass per row, whose loads from memory overlap the stores and the
// arithmetic (C probe, 4096x1024, one thread: softmax 2.33 -> 2.24 ms, log_softmax 3.82 -> 3.17 ms).
//
// Sums are in 32 lanes (four 8-lane accumulators over steps of 32 floats, then 8-float steps into the first, then a
// scalar tail) reduced in a fixed tree, the same for every row whichever pass takes it, so results do not depend on
// the thread count. The exp of log_softmax's backward is ExpVec8.h's (<= 1 ulp, 2^k as two exact multiplies).
//
// sanitized-build: -O1 (its exp contracts into FMAs as in the release build; at -Og log_softmax's
// gradient misses its one-ulp bound: tests/test_softmax_backward_avx2.py)
#include "aten/native/cpu/SoftmaxBackwardRowsAvx2.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#include <immintrin.h>
#define TL_SMX_AVX2_X86 1
#include "aten/native/cpu/ExpVec8.h"
#endif

namespace tl::native {

bool softmax_backward_rows_avx2() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_SMX_AVX2_X86
    yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
          !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"));
#endif
    const char* want = std::getenv("TORCHLITE_SOFTMAX_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_SMX_AVX2_X86

#define TL_AVX2 __attribute__((target("arch=x86-64-v3")))

namespace {

TL_AVX2 inline float hsum(__m256 v) {
  alignas(32) float t[8];
  _mm256_store_ps(t, v);
  for (int w = 4; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) t[j] += t[j + w];
  return t[0];
}

// One op's arithmetic: the summand and the gI of 8 lanes and of one float. exp8 clamps both ways: y is any float
// here (the op is public), not only a log-probability <= 0.
template <bool Log>
struct Op {
  TL_AVX2 static __m256 term(const float* g, const float* y, int64_t i, __m256 acc) {
    if constexpr (Log) return _mm256_add_ps(_mm256_loadu_ps(g + i), acc);
    else return _mm256_fmadd_ps(_mm256_loadu_ps(g + i), _mm256_loadu_ps(y + i), acc);
  }
  TL_AVX2 static float term1(const float* g, const float* y, int64_t i, float acc) {
    if constexpr (Log) return g[i] + acc;
    else return std::fma(g[i], y[i], acc);
  }
  TL_AVX2 static __m256 grad(const float* g, const float* y, int64_t i, __m256 s) {
    if constexpr (Log) {
      const __m256 e = (__m256)vec8::exp8<true>((vec8::vf)_mm256_loadu_ps(y + i));
      return _mm256_fnmadd_ps(e, s, _mm256_loadu_ps(g + i));
    } else {
      return _mm256_mul_ps(_mm256_loadu_ps(y + i), _mm256_sub_ps(_mm256_loadu_ps(g + i), s));
    }
  }
  TL_AVX2 static float grad1(const float* g, const float* y, int64_t i, float s) {
    if constexpr (Log) {
      const __m256 e = (__m256)vec8::exp8<true>((vec8::vf)_mm256_set1_ps(y[i]));
      return std::fma(-_mm256_cvtss_f32(e), s, g[i]);
    } else {
      return y[i] * (g[i] - s);
    }
  }
};

// The row's sum, in the order of the file's comment.
template <bool Log>
TL_AVX2 inline float row_sum(const float* g, const float* y, int64_t n) {
  using O = Op<Log>;
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = O::term(g, y, i, a0);
    a1 = O::term(g, y, i + 8, a1);
    a2 = O::term(g, y, i + 16, a2);
    a3 = O::term(g, y, i + 24, a3);
  }
  for (; i + 8 <= n; i += 8) a0 = O::term(g, y, i, a0);
  float tail = 0;
  for (; i < n; ++i) tail = O::term1(g, y, i, tail);
  return hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))) + tail;
}

template <bool Stream>
TL_AVX2 inline void put(float* p, __m256 v) {
  if constexpr (Stream) _mm256_stream_ps(p, v);
  else _mm256_storeu_ps(p, v);
}

// gI of row (g, y, gi) with the sum s, while row (gn, yn)'s sum is taken (Next) into *next_sum. With Stream, every
// 8-float step of gi is 32-byte aligned (the caller checks).
template <bool Log, bool Stream, bool Next>
TL_AVX2 inline void write_row(const float* g, const float* y, float* gi, int64_t n, float sum, const float* gn,
                              const float* yn, float* next_sum) {
  using O = Op<Log>;
  const __m256 s = _mm256_set1_ps(sum);
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    put<Stream>(gi + i, O::grad(g, y, i, s));
    put<Stream>(gi + i + 8, O::grad(g, y, i + 8, s));
    put<Stream>(gi + i + 16, O::grad(g, y, i + 16, s));
    put<Stream>(gi + i + 24, O::grad(g, y, i + 24, s));
    if constexpr (Next) {
      a0 = O::term(gn, yn, i, a0);
      a1 = O::term(gn, yn, i + 8, a1);
      a2 = O::term(gn, yn, i + 16, a2);
      a3 = O::term(gn, yn, i + 24, a3);
    }
  }
  for (; i + 8 <= n; i += 8) {
    put<Stream>(gi + i, O::grad(g, y, i, s));
    if constexpr (Next) a0 = O::term(gn, yn, i, a0);
  }
  float tail = 0;
  for (; i < n; ++i) {
    gi[i] = O::grad1(g, y, i, sum);
    if constexpr (Next) tail = O::term1(gn, yn, i, tail);
  }
  if constexpr (Next) *next_sum = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))) + tail;
}

template <bool Log, bool Stream>
TL_AVX2 void rows_impl(const float* g, const float* y, float* gi, int64_t rows, int64_t n) {
  float sum = row_sum<Log>(g, y, n);
  for (int64_t r = 0; r + 1 < rows; ++r) {
    const int64_t o = r * n;
    write_row<Log, Stream, true>(g + o, y + o, gi + o, n, sum, g + o + n, y + o + n, &sum);
  }
  const int64_t o = (rows - 1) * n;
  write_row<Log, Stream, false>(g + o, y + o, gi + o, n, sum, nullptr, nullptr, nullptr);
}

template <bool Log>
void rows_dispatch(const float* g, const float* y, float* gi, int64_t rows, int64_t n, bool stream) {
  if (rows <= 0 || n <= 0) return;
  // Streaming needs every row's 8-float steps 32-byte aligned; otherwise (rare: odd row lengths, offset views)
  // ordinary stores.
  if (stream && (reinterpret_cast<uintptr_t>(gi) & 31) == 0 && n % 8 == 0) rows_impl<Log, true>(g, y, gi, rows, n);
  else rows_impl<Log, false>(g, y, gi, rows, n);
}

}  // namespace

void softmax_backward_rows_f32_avx2(const float* g, const float* y, float* gi, int64_t rows, int64_t n, bool stream) {
  rows_dispatch<false>(g, y, gi, rows, n, stream);
}

void log_softmax_backward_rows_f32_avx2(const float* g, const float* y, float* gi, int64_t rows, int64_t n,
                                        bool stream) {
  rows_dispatch<true>(g, y, gi, rows, n, stream);
}

#else

void softmax_backward_rows_f32_avx2(const float*, const float*, float*, int64_t, int64_t, bool) {}
void log_softmax_backward_rows_f32_avx2(const float*, const float*, float*, int64_t, int64_t, bool) {}

#endif

}  // namespace tl::native
