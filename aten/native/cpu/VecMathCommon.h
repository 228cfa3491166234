// Building blocks of the vectorizable math functions (VecMathExpLog.h, VecMathTrig.h,
// VecMathHyperbolic.h, VecMathPow.h).
//
// Every function in these headers is a scalar function written so that GCC vectorizes a loop
// calling it (inside a TL_TARGET_CLONES function, see VecMathLoops.h): no branches, no libm calls
// other than sqrt (a vector instruction, since the build passes -fno-math-errno), and no `?:` on
// floating-point values (see Vectorize.h): selects go through the integer masks below. Special
// values (nan, inf, ±0, subnormals) are handled by selects at the end of each function.
//
// All functions work in double. The float32 / float16 / bfloat16 kernels convert to double,
// call the double function and round once; the double functions are accurate to 1-2 ulp of
// double, so the float results are correctly rounded except in near-halfway cases.
// docs/vecmath.md lists the measured error of every function.
#pragma once
#include <cstdint>
#include <cstring>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native::vec {

TL_ALWAYS_INLINE uint64_t double_to_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// c ? a : b on doubles, through an integer mask (vectorizes; nan and -0.0 pass untouched).
TL_ALWAYS_INLINE double dsel(bool c, double a, double b) {
  const uint64_t m = 0 - static_cast<uint64_t>(c);
  return bits_to_double((double_to_bits(a) & m) | (double_to_bits(b) & ~m));
}

TL_ALWAYS_INLINE double dabs(double x) { return bits_to_double(double_to_bits(x) & 0x7fffffffffffffffULL); }
TL_ALWAYS_INLINE uint64_t dsign(double x) { return double_to_bits(x) & 0x8000000000000000ULL; }
// x with its sign bit xor-ed with `sign` (a sign bit pattern: 0 or 1 << 63).
TL_ALWAYS_INLINE double dflip(double x, uint64_t sign) { return bits_to_double(double_to_bits(x) ^ sign); }
TL_ALWAYS_INLINE double dcopysign(double mag, double s) { return dflip(dabs(mag), dsign(s)); }
TL_ALWAYS_INLINE bool disnan(double x) { return x != x; }
TL_ALWAYS_INLINE bool disfinite(double x) { return dabs(x) < 1.0 / 0.0; }

constexpr double kInf = __builtin_inf();
constexpr double kNaN = __builtin_nan("");
// Adding then subtracting 1.5 * 2^52 rounds a double of magnitude < 2^51 to the nearest
// integer (ties to even); the integer also sits in the low mantissa bits of the sum.
constexpr double kRoundMagic = 6755399441055744.0;

TL_ALWAYS_INLINE double round_to_int(double x) { return (x + kRoundMagic) - kRoundMagic; }

// p * 2^k for an integral double k in [-2000, 2000], in two exact power-of-two steps so that
// subnormal results round once and results beyond the range overflow to inf / underflow to 0.
TL_ALWAYS_INLINE double ldexp_k(double p, double kd) {
  const uint64_t tb = double_to_bits(kd + kRoundMagic);
  const uint64_t kb = (tb & 0xFFFFFFFFFFFFFULL) - (1ULL << 51) + 2048;  // k + 2048 > 0
  const uint64_t k1b = kb >> 1;                                          // k1 + 1024
  const uint64_t k2b = kb - k1b;                                         // k2 + 1024
  const double s1 = bits_to_double((k1b - 1) << 52);                    // 2^k1
  const double s2 = bits_to_double((k2b - 1) << 52);                    // 2^k2
  return p * s1 * s2;
}

// 2^k for an integral double k in [-1022, 1023] (one step; normal results only).
TL_ALWAYS_INLINE double pow2_k(double kd) {
  const uint64_t tb = double_to_bits(kd + kRoundMagic);
  return bits_to_double(((tb & 0xFFFFFFFFFFFFFULL) - (1ULL << 51) + 1023) << 52);
}

// Exact sum a + b = s + e (Knuth's two-sum, no magnitude precondition).
TL_ALWAYS_INLINE double two_sum(double a, double b, double& e) {
  const double s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}

// a * b - p exactly, for p = a * b rounded (one fused multiply-add: exact whenever the error is
// representable, as for a product's rounding error or a quotient's remainder). The default
// x86-64 clone calls libm's fma, which is exact too but not vectorized.
TL_ALWAYS_INLINE double mul_err(double a, double b, double p) { return __builtin_fma(a, b, -p); }

}  // namespace tl::native::vec
