// The AVX2/FMA float32 batch_norm loops (BatchNormRowsAvx2.h). Loops step 8 floats; the head before the first
// 32-byte boundary (streamed stores only) and the last, partial step use masked loads and stores, so no lane
// outside the row is read or written.
#include "aten/native/cpu/BatchNormRowsAvx2.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TL_BATCH_NORM_AVX2 1
#endif

namespace tl::native {

bool batch_norm_rows_avx2() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_BATCH_NORM_AVX2
    yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    const char* want = std::getenv("TORCHLITE_BATCH_NORM_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_BATCH_NORM_AVX2

#define TL_AVX2 __attribute__((target("avx2,fma")))

namespace {

// Lanes [0, len) set (0 < len <= 8): a mask for _mm256_maskload_ps / _mm256_maskstore_ps.
TL_AVX2 inline __m256i lanes(int64_t len) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(len)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Each functor gives its 8 values at c, loading with `ld` (a full or a masked load): their call operators are
// compiled for AVX2 like store_row, so store_row inlines them (see BatchNormRowsAvx512.cpp).
struct Full {
  TL_AVX2 __m256 operator()(const float* p) const { return _mm256_loadu_ps(p); }
};
struct Masked {
  __m256i m;
  TL_AVX2 __m256 operator()(const float* p) const { return _mm256_maskload_ps(p, m); }
};

// (x - mean) * scale + bias: the generic normalize_row's contraction.
struct Normalize {
  const float *x, *mean, *scale, *bias;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t c, const L& ld) const {
    return _mm256_fmadd_ps(_mm256_sub_ps(ld(x + c), ld(mean + c)), ld(scale + c), ld(bias + c));
  }
};

// a * p + b * q + r: the generic affine_row's contraction (fma(a, p, b * q) + r).
struct Affine {
  const float *a, *b, *p, *q, *r;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t c, const L& ld) const {
    return _mm256_add_ps(_mm256_fmadd_ps(ld(a + c), ld(p + c), _mm256_mul_ps(ld(b + c), ld(q + c))), ld(r + c));
  }
};

struct AffineNoB {
  const float *a, *p, *r;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t c, const L& ld) const { return _mm256_fmadd_ps(ld(a + c), ld(p + c), ld(r + c)); }
};

// The same with scalar p, q, r (affine_run).
struct AffineRun {
  const float *a, *b;
  float p, q, r;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t c, const L& ld) const {
    const __m256 bq = _mm256_mul_ps(ld(b + c), _mm256_set1_ps(q));
    return _mm256_add_ps(_mm256_fmadd_ps(ld(a + c), _mm256_set1_ps(p), bq), _mm256_set1_ps(r));
  }
};

struct AffineRunNoB {
  const float* a;
  float p, r;
  template <typename L>
  TL_AVX2 __m256 operator()(int64_t c, const L& ld) const {
    return _mm256_fmadd_ps(ld(a + c), _mm256_set1_ps(p), _mm256_set1_ps(r));
  }
};

// Writes f(c) for c in [0, C) to out: with `stream`, masked ordinary stores up to out's first 32-byte boundary,
// then whole aligned vectors streamed around the cache; the tail with a masked store.
template <typename F>
TL_AVX2 inline void store_row(float* out, int64_t C, bool stream, const F& f) {
  int64_t c = 0;
  if (stream) {
    const int64_t head = std::min<int64_t>(C, ((32 - reinterpret_cast<uintptr_t>(out) % 32) % 32) / sizeof(float));
    if (head) {
      const Masked m{lanes(head)};
      _mm256_maskstore_ps(out, m.m, f(0, m));
      c = head;
    }
    for (; c + 8 <= C; c += 8) _mm256_stream_ps(out + c, f(c, Full{}));
  } else {
    for (; c + 8 <= C; c += 8) _mm256_storeu_ps(out + c, f(c, Full{}));
  }
  if (c < C) {
    const Masked m{lanes(C - c)};
    _mm256_maskstore_ps(out + c, m.m, f(c, m));
  }
}

}  // namespace

TL_AVX2 void batch_norm_row_f32_avx2(const float* x, const float* mean, const float* scale, const float* bias,
                                     int64_t C, float* out, bool stream) {
  store_row(out, C, stream, Normalize{x, mean, scale, bias});
}

TL_AVX2 void batch_norm_affine_row_f32_avx2(const float* a, const float* b, const float* p, const float* q,
                                            const float* r, int64_t C, float* out, bool stream) {
  if (b) store_row(out, C, stream, Affine{a, b, p, q, r});
  else store_row(out, C, stream, AffineNoB{a, p, r});
}

TL_AVX2 void batch_norm_affine_run_f32_avx2(const float* a, const float* b, float p, float q, float r, int64_t n,
                                            float* out, bool stream) {
  if (b) store_row(out, n, stream, AffineRun{a, b, p, q, r});
  else store_row(out, n, stream, AffineRunNoB{a, p, r});
}

#else

void batch_norm_row_f32_avx2(const float*, const float*, const float*, const float*, int64_t, float*, bool) {}
void batch_norm_affine_row_f32_avx2(const float*, const float*, const float*, const float*, const float*, int64_t,
                                    float*, bool) {}
void batch_norm_affine_run_f32_avx2(const float*, const float*, float, float, float, int64_t, float*, bool) {}

#endif

}  // namespace tl::native
