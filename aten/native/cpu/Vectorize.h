// Run-time ISA dispatch for hot loops, and vectorizable math.
//
// TL_TARGET_CLONES on a function (or function template) compiles it three times: for x86-64-v4
// (AVX-512), x86-64-v3 (AVX2 + FMA + F16C) and baseline x86-64; the dynamic loader picks the best
// one for the running CPU (GCC target_clones, an ifunc). Lambdas called from such a function are
// inlined into each clone, so `for (i...) out[i] = op(a[i], b[i])` vectorizes at the widest ISA.
// Elsewhere (other compilers/architectures) the macro is empty.
//
// The build uses ISO C++ (-std=c++17), hence -ffp-contract=off: no FMA contraction, so all clones
// give bit-identical results.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
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

// exp for float32 without branches (so loops calling it vectorize). Computed in double: the
// reduced argument, a degree-10 Taylor polynomial (relative error < 2^-42) and the scaling by 2^k
// are all (nearly) exact in double, and the final conversion to float rounds once, so results
// are correctly rounded except in rare near-halfway cases, including subnormal results.
// IEEE edge cases: exp(-inf) = 0, exp(inf) = inf, exp(nan) = nan, overflow to inf, underflow to
// subnormals and 0.
TL_ALWAYS_INLINE float exp_f32(float x) {
  double xd = static_cast<double>(x);
  xd = xd < -104.0 ? -104.0 : xd;  // exp(-104) rounds to 0 in float; keeps k in range
  xd = xd > 89.0 ? 89.0 : xd;      // exp(89) overflows float
  // t = 1.5 * 2^52 + k with k = round(x / ln2): k sits in the low mantissa bits of t.
  const double t = xd * 1.4426950408889634074 + 6755399441055744.0;
  const double kd = t - 6755399441055744.0;
  const double r = xd - kd * 0.69314718055994530942;  // |r| <= ln2/2, error ~1e-17 * |k|
  double p = 1.0 / 3628800.0;  // 1/10!
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
  const float y = static_cast<float>(p * scale);
  return x != x ? x : y;
}

// exp for float64 without branches: Cody-Waite reduction to |r| <= ln2/2, degree-13 Taylor
// polynomial, scaling by 2^k in two steps (so subnormal results round once); max error about
// 1 ulp (normal results).
TL_ALWAYS_INLINE double exp_f64(double x) {
  double xc = x < -746.0 ? -746.0 : x;
  xc = xc > 710.0 ? 710.0 : xc;
  const double kd = (xc * 1.4426950408889634074 + 6755399441055744.0) - 6755399441055744.0;
  // ln2 = C1 + C2 with C1 having 32 significant bits, so k * C1 is exact for |k| < 2^21.
  double r = xc - kd * 6.93147180369123816490e-01;
  r = r - kd * 1.90821492927058770002e-10;
  // Taylor coefficients 1/n! (truncation error < 2^-60 on the reduced range).
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
  const int64_t k = static_cast<int64_t>(kd);
  const int64_t k1 = k >> 1;
  const int64_t k2 = k - k1;
  const double s1 = bits_to_double(static_cast<uint64_t>(k1 + 1023) << 52);
  const double s2 = bits_to_double(static_cast<uint64_t>(k2 + 1023) << 52);
  const double y = p * s1 * s2;
  return x != x ? x : y;
}

}  // namespace tl::native::vec
