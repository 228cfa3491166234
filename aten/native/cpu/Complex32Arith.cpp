// complex32 mul and add (alpha), as PyTorch's CPU computes them, with AVX-512 / AVX2 + F16C code for
// contiguous runs (8 or 4 elements a step: float16 -> float32 in hardware, the schoolbook product on
// interleaved (re, im) lanes, float32 -> float16 rounding to nearest even) and the scalar formulas of
// Complex32Math.h elsewhere. The scalar loop this replaces ran at 3x PyTorch's time.
//
// Bit equality with PyTorch (tests/test_complex32_gaps.py, random, special and subnormal values):
// - each product is ac - bd, ad + bc with every product rounded to float: opaque() hides the products
//   from the optimizer so that they are not contracted into an FMA with the sum (one rounding fewer,
//   and -inf where PyTorch's inf - inf gives nan);
// - x + (-y) (a sign flip of the odd-lane products) equals x - y exactly; sums commute exactly;
// - the hardware conversions round as Half's; a NaN result is written as Half's canonical sign | 0x7e00
//   (the hardware keeps payload bits). The sign of a NaN is not specified (PyTorch's own depends on its
//   vector code's operand order): tests compare NaNs as NaNs.
#include "aten/native/cpu/Complex32Arith.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/Loops.h"

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized reports.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define TL_C32_SIMD 1
#endif

namespace tl::native {

namespace {

enum class Op { Mul, Add };

// The scalar formulas (tails, strided runs, CPUs without AVX2/F16C).
template <Op kOp>
TL_ALWAYS_INLINE ComplexHalf apply(ComplexHalf a, ComplexHalf b, ComplexHalf alpha) {
  if constexpr (kOp == Op::Mul) return c32::mul(a, b);
  else return c32::add(a, c32::mul(alpha, b));
}

#ifdef TL_C32_SIMD

#define TL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#define TL_AVX2 __attribute__((target("avx2,f16c")))

// Hides a value from the optimizer (an empty asm that may have changed the register), so a product
// cannot be contracted with the sum that uses it.
#define TL_OPAQUE(v) asm("" : "+x"(v))

// x * y on interleaved lanes, y given as (re, re, ...) and (im, im, ...): [xr yr - xi yi, xi yr + xr yi].
TL_AVX512 inline __m512 cmul(__m512 x, __m512 yre, __m512 yim) {
  const __m512i neg_re = _mm512_set1_epi64(0x80000000LL);  // the sign bit of each real (even) lane
  __m512 t1 = _mm512_mul_ps(x, yre);                           // xr yr, xi yr
  __m512 t2 = _mm512_mul_ps(_mm512_permute_ps(x, 0xB1), yim);  // xi yi, xr yi
  TL_OPAQUE(t1);
  TL_OPAQUE(t2);
  return _mm512_add_ps(t1, _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(t2), neg_re)));
}
TL_AVX2 inline __m256 cmul(__m256 x, __m256 yre, __m256 yim) {
  const __m256 neg_re = _mm256_castsi256_ps(_mm256_set1_epi64x(0x80000000LL));
  __m256 t1 = _mm256_mul_ps(x, yre);
  __m256 t2 = _mm256_mul_ps(_mm256_permute_ps(x, 0xB1), yim);
  TL_OPAQUE(t1);
  TL_OPAQUE(t2);
  return _mm256_add_ps(t1, _mm256_xor_ps(t2, neg_re));
}

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// NaN halves as sign | 0x7e00 (Half's conversion), other values unchanged.
TL_AVX2 inline __m256i canonical_nan(__m256i h) {
  const __m256i isnan = _mm256_cmpgt_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7FFF)), _mm256_set1_epi16(0x7C00));
  const __m256i canon = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(int16_t(0x8000))), _mm256_set1_epi16(0x7E00));
  return _mm256_blendv_epi8(h, canon, isnan);
}
TL_AVX2 inline __m128i canonical_nan(__m128i h) {
  const __m128i isnan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7FFF)), _mm_set1_epi16(0x7C00));
  const __m128i canon = _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16(int16_t(0x8000))), _mm_set1_epi16(0x7E00));
  return _mm_blendv_epi8(h, canon, isnan);
}

// n elements of a (op) b, b a single element when kBroadcast; returns how many were done (a multiple of 8).
template <Op kOp, bool kBroadcast>
TL_AVX512 int64_t run_avx512(const ComplexHalf* a, const ComplexHalf* b, ComplexHalf* out, int64_t n, ComplexHalf alpha) {
  const std::complex<float> al = c32::widen(alpha), bc = c32::widen(*b);
  const __m512 are = _mm512_set1_ps(al.real()), aim = _mm512_set1_ps(al.imag());
  const __m512 bre_c = _mm512_set1_ps(bc.real()), bim_c = _mm512_set1_ps(bc.imag());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512 x = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    __m512 y, r;
    if constexpr (kBroadcast) {
      y = _mm512_unpacklo_ps(bre_c, bim_c);  // (re, im) pairs
    } else {
      y = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    }
    if constexpr (kOp == Op::Mul) {
      r = kBroadcast ? cmul(x, bre_c, bim_c) : cmul(x, _mm512_moveldup_ps(y), _mm512_movehdup_ps(y));
    } else {
      // alpha * b rounded to complex32, then a + that in float.
      const __m512 p = _mm512_cvtph_ps(_mm512_cvtps_ph(cmul(y, are, aim), kRound));
      r = _mm512_add_ps(x, p);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), canonical_nan(_mm512_cvtps_ph(r, kRound)));
  }
  return i;
}

template <Op kOp, bool kBroadcast>
TL_AVX2 int64_t run_avx2(const ComplexHalf* a, const ComplexHalf* b, ComplexHalf* out, int64_t n, ComplexHalf alpha) {
  const std::complex<float> al = c32::widen(alpha), bc = c32::widen(*b);
  const __m256 are = _mm256_set1_ps(al.real()), aim = _mm256_set1_ps(al.imag());
  const __m256 bre_c = _mm256_set1_ps(bc.real()), bim_c = _mm256_set1_ps(bc.imag());
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256 y, r;
    if constexpr (kBroadcast) {
      y = _mm256_unpacklo_ps(bre_c, bim_c);
    } else {
      y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    }
    if constexpr (kOp == Op::Mul) {
      r = kBroadcast ? cmul(x, bre_c, bim_c) : cmul(x, _mm256_moveldup_ps(y), _mm256_movehdup_ps(y));
    } else {
      const __m256 p = _mm256_cvtph_ps(_mm256_cvtps_ph(cmul(y, are, aim), kRound));
      r = _mm256_add_ps(x, p);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), canonical_nan(_mm256_cvtps_ph(r, kRound)));
  }
  return i;
}

// 2: AVX-512, 1: AVX2 + F16C, 0: scalar. TORCHLITE_COMPLEX32_ISA=avx2 or =scalar caps it (the tests run
// the narrower paths this way on an AVX-512 machine).
int simd_level() {
  static const int level = [] {
    int l = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vl")
                ? 2
            : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") ? 1
                                                                                : 0;
    if (const char* cap = std::getenv("TORCHLITE_COMPLEX32_ISA")) {
      if (std::strcmp(cap, "avx2") == 0 && l > 1) l = 1;
      if (std::strcmp(cap, "scalar") == 0) l = 0;
    }
    return l;
  }();
  return level;
}

#endif  // TL_C32_SIMD

// A contiguous run (b contiguous, or one element when kBroadcast).
template <Op kOp, bool kBroadcast>
void run(const ComplexHalf* a, const ComplexHalf* b, ComplexHalf* out, int64_t n, ComplexHalf alpha) {
  int64_t i = 0;
#ifdef TL_C32_SIMD
  const int level = simd_level();
  if (level == 2) i = run_avx512<kOp, kBroadcast>(a, b, out, n, alpha);
  else if (level == 1) i = run_avx2<kOp, kBroadcast>(a, b, out, n, alpha);
#endif
  for (; i < n; ++i) out[i] = apply<kOp>(a[i], kBroadcast ? *b : b[i], alpha);
}

// The TensorIterator loop: operands 0 (out), 1 (a), 2 (b).
template <Op kOp>
void binary(TensorIterator& iter, ComplexHalf alpha) {
  iter.for_each([alpha](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t sz = sizeof(ComplexHalf);
    auto* out = reinterpret_cast<ComplexHalf*>(data[0]);
    const auto* a = reinterpret_cast<const ComplexHalf*>(data[1]);
    const auto* b = reinterpret_cast<const ComplexHalf*>(data[2]);
    if (strides[0] == sz && strides[1] == sz && strides[2] == sz) return run<kOp, false>(a, b, out, n, alpha);
    if (strides[0] == sz && strides[1] == sz && strides[2] == 0) return run<kOp, true>(a, b, out, n, alpha);
    if (kOp == Op::Mul && strides[0] == sz && strides[1] == 0 && strides[2] == sz)
      return run<kOp, true>(b, a, out, n, alpha);  // a broadcast number times b: the product commutes exactly
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<ComplexHalf*>(data[0] + i * strides[0]) =
          apply<kOp>(*reinterpret_cast<const ComplexHalf*>(data[1] + i * strides[1]),
                     *reinterpret_cast<const ComplexHalf*>(data[2] + i * strides[2]), alpha);
  });
}

}  // namespace

void complex32_mul(TensorIterator& iter) { binary<Op::Mul>(iter, ComplexHalf()); }

void complex32_mul_scalar(TensorIterator& iter, ComplexHalf c) {
  iter.for_each([c](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t sz = sizeof(ComplexHalf);
    auto* out = reinterpret_cast<ComplexHalf*>(data[0]);
    if (strides[0] == sz && strides[1] == sz)
      return run<Op::Mul, true>(reinterpret_cast<const ComplexHalf*>(data[1]), &c, out, n, ComplexHalf());
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<ComplexHalf*>(data[0] + i * strides[0]) =
          c32::mul(*reinterpret_cast<const ComplexHalf*>(data[1] + i * strides[1]), c);
  });
}

void complex32_add(TensorIterator& iter, ComplexHalf alpha) { binary<Op::Add>(iter, alpha); }

}  // namespace tl::native
