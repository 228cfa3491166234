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

TL_AVX512 inline __m512 normalize(const float* x, const float* mean, const float* scale, const float* bias, int64_t c,
                                  __mmask16 k) {
  const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), _mm512_maskz_loadu_ps(k, mean + c));
  return _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(k, scale + c), _mm512_maskz_loadu_ps(k, bias + c));
}

}  // namespace

TL_AVX512 void batch_norm_row_f32_avx512(const float* x, const float* mean, const float* scale, const float* bias,
                                         int64_t C, float* out, bool stream) {
  int64_t c = 0;
  if (stream) {
    // Ordinary (masked) stores up to out's first 64-byte boundary, then whole aligned vectors streamed.
    const int64_t head = std::min<int64_t>(C, ((64 - reinterpret_cast<uintptr_t>(out) % 64) % 64) / sizeof(float));
    if (head) {
      _mm512_mask_storeu_ps(out, tail_mask(head), normalize(x, mean, scale, bias, 0, tail_mask(head)));
      c = head;
    }
    for (; c + 16 <= C; c += 16) _mm512_stream_ps(out + c, normalize(x, mean, scale, bias, c, 0xffff));
  } else {
    for (; c + 16 <= C; c += 16) _mm512_storeu_ps(out + c, normalize(x, mean, scale, bias, c, 0xffff));
  }
  if (c < C) _mm512_mask_storeu_ps(out + c, tail_mask(C - c), normalize(x, mean, scale, bias, c, tail_mask(C - c)));
}

#else

void batch_norm_row_f32_avx512(const float*, const float*, const float*, const float*, int64_t, float*, bool) {}

#endif

}  // namespace tl::native
