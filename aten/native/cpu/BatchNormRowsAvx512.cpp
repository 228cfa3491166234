// The AVX-512 float32 batch_norm loops (BatchNormRowsAvx512.h). Loops step 16 floats; a row's last,
// partial step uses masked loads and stores, so no lane past the row is read or written.
#include "aten/native/cpu/BatchNormRowsAvx512.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TL_BATCH_NORM_X86 1
#endif

namespace tl::native {

bool batch_norm_rows_avx512() {
  static const bool on = [] {
    bool yes = false;
#ifdef TL_BATCH_NORM_X86
    yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    const char* want = std::getenv("TORCHLITE_BATCH_NORM_ISA");
    return yes && !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

#ifdef TL_BATCH_NORM_X86

#define TL_AVX512 __attribute__((target("arch=x86-64-v4")))

namespace {

TL_AVX512 inline __mmask16 tail_mask(int64_t len) { return static_cast<__mmask16>((1u << len) - 1u); }

// The per-vector values, as functors whose call operator is compiled for AVX-512 like store_row, so that
// store_row inlines them (a lambda is compiled for the file's baseline ISA: GCC then called the AVX-512
// helper once per 16 floats, a call and four masked loads per vector, ~0.7 ms of a 4096x1024 pass).
struct Normalize {
  const float *x, *mean, *scale, *bias;
  TL_AVX512 __m512 operator()(int64_t c, __mmask16 k) const {
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), _mm512_maskz_loadu_ps(k, mean + c));
    return _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(k, scale + c), _mm512_maskz_loadu_ps(k, bias + c));
  }
};

// a * p + b * q + r under mask k: the generic affine_row's contraction.
struct Affine {
  const float *a, *b, *p, *q, *r;
  TL_AVX512 __m512 operator()(int64_t c, __mmask16 k) const {
    const __m512 bq = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, b + c), _mm512_maskz_loadu_ps(k, q + c));
    return _mm512_add_ps(_mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a + c), _mm512_maskz_loadu_ps(k, p + c), bq),
                         _mm512_maskz_loadu_ps(k, r + c));
  }
};

// a * p + r under mask k (the affine without b).
struct AffineNoB {
  const float *a, *p, *r;
  TL_AVX512 __m512 operator()(int64_t c, __mmask16 k) const {
    return _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a + c), _mm512_maskz_loadu_ps(k, p + c),
                           _mm512_maskz_loadu_ps(k, r + c));
  }
};

// Writes f(c, mask) for c in [0, C) to out, streamed or not (see batch_norm_row_f32_avx512).
template <typename F>
TL_AVX512 inline void store_row(float* out, int64_t C, bool stream, const F& f) {
  int64_t c = 0;
  if (stream) {
    // Ordinary (masked) stores up to out's first 64-byte boundary, then whole aligned vectors streamed.
    const int64_t head = std::min<int64_t>(C, ((64 - reinterpret_cast<uintptr_t>(out) % 64) % 64) / sizeof(float));
    if (head) {
      _mm512_mask_storeu_ps(out, tail_mask(head), f(0, tail_mask(head)));
      c = head;
    }
    for (; c + 16 <= C; c += 16) _mm512_stream_ps(out + c, f(c, 0xffff));
  } else {
    for (; c + 16 <= C; c += 16) _mm512_storeu_ps(out + c, f(c, 0xffff));
  }
  if (c < C) _mm512_mask_storeu_ps(out + c, tail_mask(C - c), f(c, tail_mask(C - c)));
}

}  // namespace

TL_AVX512 void batch_norm_affine_row_f32_avx512(const float* a, const float* b, const float* p, const float* q,
                                                const float* r, int64_t C, float* out, bool stream) {
  if (b) store_row(out, C, stream, Affine{a, b, p, q, r});
  else store_row(out, C, stream, AffineNoB{a, p, r});
}

TL_AVX512 void batch_norm_row_f32_avx512(const float* x, const float* mean, const float* scale, const float* bias,
                                         int64_t C, float* out, bool stream) {
  store_row(out, C, stream, Normalize{x, mean, scale, bias});
}

#else

void batch_norm_row_f32_avx512(const float*, const float*, const float*, const float*, int64_t, float*, bool) {}
void batch_norm_affine_row_f32_avx512(const float*, const float*, const float*, const float*, const float*, int64_t,
                                      float*, bool) {}

#endif

}  // namespace tl::native
