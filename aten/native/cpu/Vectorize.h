// Run-time ISA dispatch for hot loops, and vectorizable math.
//
// TL_TARGET_CLONES on a function (or function template) compiles it three times: for x86-64-v4
// (AVX-512), x86-64-v3 (AVX2 + FMA + F16C) and baseline x86-64; the dynamic loader picks the best
// one for the running CPU (GCC target_clones, an ifunc). Lambdas called from such a function are
// inlined into each clone, so `for (i...) out[i] = op(a[i], b[i])` vectorizes at the widest ISA.
// Elsewhere (other compilers/architectures) the macro is empty.
//
// Note: GCC contracts a * b + c into an FMA in C++ (-ffp-contract=fast) when the clone's ISA has
// one (x86-64-v3/v4), so clones may differ in the last bit of such expressions.
//
// The sanitizer build (setup.py) defines TL_SINGLE_CLONE_ISA to the building machine's level (4, 3 or
// 1) and compiles one version only: the instrumented clones tripled the compile time of every kernel
// file, and that build only ever runs where it was built.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(TL_SINGLE_CLONE_ISA) && TL_SINGLE_CLONE_ISA == 4
#define TL_TARGET_CLONES __attribute__((target("arch=x86-64-v4")))
#elif defined(TL_SINGLE_CLONE_ISA) && TL_SINGLE_CLONE_ISA == 3
#define TL_TARGET_CLONES __attribute__((target("arch=x86-64-v3")))
#elif defined(TL_SINGLE_CLONE_ISA)
#define TL_TARGET_CLONES
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define TL_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TL_TARGET_CLONES
#endif

#define TL_ALWAYS_INLINE inline __attribute__((always_inline))

namespace tl::native::vec {

TL_ALWAYS_INLINE float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
TL_ALWAYS_INLINE double bits_to_double(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

TL_ALWAYS_INLINE uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// float16 <-> float32 conversions without branches, so loops over Half vectorize (Half's own
// conversions in Half.h branch). Bit-identical to Half::to_float / Half::from_float for every
// input (round to nearest even; nan -> sign | 0x7e00), checked exhaustively. After the FP16
// library's algorithms, with the selects written as integer masks.
TL_ALWAYS_INLINE float half_to_float(uint16_t h) {
  const uint32_t w = static_cast<uint32_t>(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const float normalized = bits_to_float((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = bits_to_float((two_w >> 17) | (126u << 23)) - 0.5f;
  const uint32_t is_denormal = 0u - static_cast<uint32_t>(two_w < (1u << 27));
  // inf/nan built from the bits (the multiply above would quiet a signaling nan).
  const uint32_t is_infnan = 0u - static_cast<uint32_t>(two_w >= 0xF8000000u);
  const uint32_t infnan = 0x7f800000u | ((two_w >> 4) & 0x007fffffu);
  const uint32_t finite = (float_to_bits(denormalized) & is_denormal) | (float_to_bits(normalized) & ~is_denormal);
  return bits_to_float(sign | (infnan & is_infnan) | (finite & ~is_infnan));
}

TL_ALWAYS_INLINE uint16_t float_to_half(float f) {
  const uint32_t w = float_to_bits(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & 0x80000000u;
  float base = (bits_to_float(w & 0x7fffffffu) * 0x1.0p+112f) * 0x1.0p-110f;
  uint32_t bias = shl1_w & 0xFF000000u;
  const uint32_t small = 0u - static_cast<uint32_t>(bias < 0x71000000u);
  bias = (bias & ~small) | (0x71000000u & small);
  base = bits_to_float((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = float_to_bits(base);
  const uint32_t nonsign = ((bits >> 13) & 0x00007C00u) + (bits & 0x00000FFFu);
  const uint32_t is_nan = 0u - static_cast<uint32_t>(shl1_w > 0xFF000000u);
  return static_cast<uint16_t>((sign >> 16) | (0x7E00u & is_nan) | (nonsign & ~is_nan));
}

// float32 -> bfloat16 bits without branches; bit-identical to BFloat16::from_float (round to
// nearest even, nan -> 0x7fc0).
TL_ALWAYS_INLINE uint16_t float_to_bfloat16(float f) {
  const uint32_t u = float_to_bits(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t is_nan = 0u - static_cast<uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
  return static_cast<uint16_t>((0x7fc0u & is_nan) | (rounded & ~is_nan));
}
TL_ALWAYS_INLINE float bfloat16_to_float(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }

// Why no `?:` on floating-point values below: with the default -ftrapping-math GCC turns such a
// select into a branch with the floating-point work moved into one arm, which it then refuses
// to vectorize ("control flow in loop"). Clamps are done with integer masks on the bit pattern,
// and NaN inputs simply propagate through the arithmetic.

// exp for float32 that vectorizes (no branches). Computed in double: the reduced argument, a
// degree-10 Taylor polynomial (relative error < 2^-42) and the scaling by 2^k are all (nearly)
// exact in double, and the final conversion to float rounds once, so results are correctly
// rounded except in rare near-halfway cases (35 of the 2^32 inputs are 1 ulp off), subnormal
// results included. exp(-inf) = 0, exp(inf) = inf, exp(nan) = nan, overflow to inf above ~88.72,
// gradual underflow to 0 below ~-103.97.
TL_ALWAYS_INLINE float exp_f32(float x) {
  // Clamp x to [-104, 89] (exp(-104) rounds to 0, exp(89) overflows) keeping nan.
  int32_t xi;
  std::memcpy(&xi, &x, sizeof xi);
  const int32_t mag = xi & 0x7fffffff;
  const int32_t not_nan = -static_cast<int32_t>(mag <= 0x7f800000);
  const int32_t hi = -static_cast<int32_t>(xi > 0x42B20000) & not_nan;  // x > 89
  const int32_t lo = -static_cast<int32_t>(xi < 0) & -static_cast<int32_t>(mag > 0x42D00000) & not_nan;  // x < -104
  xi = (xi & ~hi) | (0x42B20000 & hi);
  xi = (xi & ~lo) | (static_cast<int32_t>(0xC2D00000u) & lo);
  float xc;
  std::memcpy(&xc, &xi, sizeof xc);
  const double xd = static_cast<double>(xc);
  // t = 1.5 * 2^52 + k with k = round(x / ln2): k sits in the low mantissa bits of t.
  const double t = xd * 1.4426950408889634074 + 6755399441055744.0;
  const double kd = t - 6755399441055744.0;
  const double r = xd - kd * 0.69314718055994530942;  // |r| <= ln2/2
  double p = 1.0 / 3628800.0;                          // 1/10!
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^k from the bits of t: (k + 1023) << 52 (the high bits of t shift out).
  uint64_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const double scale = bits_to_double((tb + 1023u) << 52);
  return static_cast<float>(p * scale);
}

// exp for float64 that vectorizes: Cody-Waite reduction to |r| <= ln2/2, degree-13 Taylor
// polynomial, scaling by 2^k in two steps (so subnormal results round once); max error 1 ulp.
TL_ALWAYS_INLINE double exp_f64(double x) {
  // Clamp x to [-746, 710] (exp(-746) rounds to 0, exp(710) overflows) keeping nan.
  int64_t xi;
  std::memcpy(&xi, &x, sizeof xi);
  const int64_t mag = xi & 0x7fffffffffffffffLL;
  const int64_t not_nan = -static_cast<int64_t>(mag <= 0x7ff0000000000000LL);
  const int64_t hi = -static_cast<int64_t>(xi > 0x4086300000000000LL) & not_nan;  // x > 710
  const int64_t lo = -static_cast<int64_t>(xi < 0) & -static_cast<int64_t>(mag > 0x4087500000000000LL) & not_nan;  // x < -746
  xi = (xi & ~hi) | (0x4086300000000000LL & hi);
  xi = (xi & ~lo) | (static_cast<int64_t>(0xC087500000000000ULL) & lo);
  double xc;
  std::memcpy(&xc, &xi, sizeof xc);
  const double t = xc * 1.4426950408889634074 + 6755399441055744.0;
  const double kd = t - 6755399441055744.0;
  // ln2 = C1 + C2 with C1 having 32 significant bits, so k * C1 is exact for |k| < 2^21.
  double r = xc - kd * 6.93147180369123816490e-01;
  r = r - kd * 1.90821492927058770002e-10;
  double p = 1.0 / 6227020800.0;           // 1/13!
  p = p * r + 1.0 / 479001600.0;           // 1/12!
  p = p * r + 1.0 / 39916800.0;            // 1/11!
  p = p * r + 1.0 / 3628800.0;             // 1/10!
  p = p * r + 1.0 / 362880.0;              // 1/9!
  p = p * r + 1.0 / 40320.0;               // 1/8!
  p = p * r + 1.0 / 5040.0;                // 1/7!
  p = p * r + 1.0 / 720.0;                 // 1/6!
  p = p * r + 1.0 / 120.0;                 // 1/5!
  p = p * r + 1.0 / 24.0;                  // 1/4!
  p = p * r + 1.0 / 6.0;                   // 1/3!
  p = p * r + 0.5;                         // 1/2!
  p = p * (r * r) + r + 1.0;
  // k = low bits of t - 2^51; split 2^k = 2^k1 * 2^k2 with both halves normal. Only logical
  // shifts (AVX2 has no 64-bit arithmetic shift).
  uint64_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const uint64_t kb = (tb & 0xFFFFFFFFFFFFFULL) - (1ULL << 51) + 2048;  // k + 2048 > 0
  const uint64_t k1b = kb >> 1;                                          // k1 + 1024
  const uint64_t k2b = kb - k1b;                                         // k2 + 1024
  const double s1 = bits_to_double((k1b - 1024 + 1023) << 52);
  const double s2 = bits_to_double((k2b - 1024 + 1023) << 52);
  return p * s1 * s2;
}

}  // namespace tl::native::vec
