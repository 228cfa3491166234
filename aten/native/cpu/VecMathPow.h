// Vectorizable pow in double: pow_f64 for float64 results (< 1 ulp, log|x| and y log|x| carried
// as double-doubles) and pow_finite_for_float for float32 / float16 / bfloat16 results (to
// 2^-40 relative before the rounding to float). Both cover finite bases and exponents;
// pow_needs_libm selects the inputs left to libm (see BinaryOps.cpp, the pow section).
#pragma once
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathExpLog.h"

namespace tl::native::vec {

// True where pow_finite_for_float is not valid: an infinite or nan base or exponent (libm's
// special cases: pow(1, nan) = 1, pow(-1, ±inf) = 1, pow(-inf, y), ...).
TL_ALWAYS_INLINE bool pow_needs_libm(double x, double y) { return !disfinite(x) | !disfinite(y); }

// True where pow_f64 is not valid: pow_needs_libm's inputs and zero bases (whose log is -inf).
TL_ALWAYS_INLINE bool pow_f64_needs_libm(double x, double y) { return pow_needs_libm(x, y) | (x == 0.0); }

// The sign and nan rules of a negative base: |x|^y (`mag`) negated for odd integer y, nan for
// non-integer y; pow(x, 0) = 1. Below 2^52, |y| + 2^52 rounds |y| to an integer in its low
// mantissa bit; in [2^52, 2^53) |y| is an integer whose low bit is its parity; beyond, even.
// kFloatY: y is a float (held in double), so every |y| >= 2^52 is an even integer and |y| can
// be clamped to 2^52 (a few operations fewer on the tensor-exponent path).
template <bool kFloatY = false>
TL_ALWAYS_INLINE double pow_apply_sign(double x, double y, double mag) {
  constexpr double k2p52 = 4503599627370496.0;
  bool y_int;
  uint64_t odd;
  if constexpr (kFloatY) {
    const double a = dsel(dabs(y) > k2p52, k2p52, dabs(y));
    const double t = a + k2p52;
    y_int = (t - k2p52) == a;
    odd = double_to_bits(t) << 63;
  } else {
    const double a = dabs(y);
    const bool big = a >= k2p52;
    const double t = dsel(big, a, a + k2p52);
    y_int = big | ((t - k2p52) == a);
    odd = (double_to_bits(t) << 63) & (0 - static_cast<uint64_t>(a < 2.0 * k2p52));
  }
  double res = dflip(mag, dsign(x) & odd);
  res = dsel((x < 0.0) & !y_int, kNaN, res);
  return dsel(y == 0.0, 1.0, res);
}

// pow(x, y) for finite x, y, for results that round to float (relative error < 2^-40 before
// the rounding). Zero bases come out right through log(0) = -inf. kFloatY: see pow_apply_sign.
template <bool kFloatY = false>
TL_ALWAYS_INLINE double pow_finite_for_float(double x, double y) {
  // x is a float held in double: never subnormal; log 0 = -inf.
  const double l = dsel(x == 0.0, -kInf, log_normal_for_float(dabs(x)));
  return pow_apply_sign<kFloatY>(x, y, exp_for_float(y * l));
}

// log(ax) = hi + lo for a positive finite ax (subnormals included) to ~2^-68 relative.
// ax = 2^k m with m in [sqrt(3)/2, sqrt(3)) and m = c (1 + ...) around c = 1 or 1.5, so that
// s = (m - c) / (m + c) stays within ±0.101; log m = log c + 2 atanh(s) with s as a double-double
// (the division's remainder by fma), the s^3 / 3 term as a double-double and the rest, below
// 2^-15 of the result, by a Taylor polynomial in s^2 (degree 8, truncation < 2^-68).
TL_ALWAYS_INLINE double log_dd(double ax, double& lo) {
  const bool sub = ax < 2.2250738585072014e-308;
  const double xs = dsel(sub, ax * 18014398509481984.0, ax);  // 2^54
  const uint64_t ix = double_to_bits(xs) + (0x3ff0000000000000ULL - 0x3febb67a00000000ULL);
  const double kd = bits_to_double(0x4330000000000000ULL | (ix >> 52)) - (4503599627370496.0 + 1023.0) -
                    dsel(sub, 54.0, 0.0);
  const double m = bits_to_double((ix & 0x000fffffffffffffULL) + 0x3febb67a00000000ULL);
  const bool upper = m > 1.224744871391589;  // sqrt(3/2)
  const double c = dsel(upper, 1.5, 1.0);
  const double logc_hi = dsel(upper, 0.4054651081081644, 0.0);
  const double logc_lo = dsel(upper, -2.8811380259626426e-18, 0.0);
  const double f = m - c;  // exact: m / c in [0.7, 1.5]
  const double u = c + m;
  const double ul = m - (u - c);  // u + ul = m + c exactly (c's exponent >= m's)
  const double sh = f / u;
  const double sl = (-mul_err(sh, u, f) - sh * ul) / u;  // f - sh u is exact
  const double z = sh * sh;
  const double zl = mul_err(sh, sh, z);
  // s^3 = s3h + s3l, times 2/3 = kTwoThirdsHi + kTwoThirdsLo.
  const double s3h = z * sh;
  const double s3l = mul_err(z, sh, s3h) + (zl * sh + 3.0 * z * sl);
  constexpr double kTwoThirdsHi = 0.6666666666666666, kTwoThirdsLo = 3.700743415417188e-17;
  const double t3h = s3h * kTwoThirdsHi;
  const double t3l = mul_err(s3h, kTwoThirdsHi, t3h) + (s3h * kTwoThirdsLo + s3l * kTwoThirdsHi);
  double p = 1.0 / 19;
  p = p * z + 1.0 / 17;
  p = p * z + 1.0 / 15;
  p = p * z + 1.0 / 13;
  p = p * z + 1.0 / 11;
  p = p * z + 1.0 / 9;
  p = p * z + 1.0 / 7;
  p = p * z + 1.0 / 5;
  const double t5 = 2.0 * (s3h * z) * p;  // 2 s^5 / 5 + 2 s^7 / 7 + ...
  // hi: k ln2 (exact) + log c + 2 sh + t3h by two-sums; everything else in lo.
  double e1, e2, e3;
  const double a = two_sum(kd * kLn2Hi, logc_hi, e1);
  const double b = two_sum(a, 2.0 * sh, e2);
  const double h = two_sum(b, t3h, e3);
  const double l = (((kd * kLn2Lo + logc_lo) + (e1 + e2)) + e3) + ((2.0 * sl + t3l) + t5);
  const double hi = h + l;
  lo = (h - hi) + l;
  return hi;
}

// pow(x, y) for finite x != 0 and finite y (pow_f64_needs_libm false), within 1 ulp:
// t = y log|x| as a double-double (its error below 2^-60 absolute up to |t| = 745), then
// e^t = 2^k e^r with the low part of t joining the reduction's rounding error, and
// 1 + r + (e^(r + d) - 1 - r) summed so that only the last addition rounds.
TL_ALWAYS_INLINE double pow_f64(double x, double y) {
  double ll;
  const double lh = log_dd(dabs(x), ll);
  const double th = y * lh;
  const double tl = mul_err(y, lh, th) + y * ll;
  // Beyond ±1000 the result is inf or 0 (th may be ±inf; its low part is then meaningless).
  const bool out = !(dabs(th) <= 1000.0);
  const double tc = dsel(out, dsel(th > 0.0, 1000.0, -1000.0), th);
  const double tlc = dsel(out, 0.0, tl);
  double kd, rlo;
  const double r = reduce_ln2(tc, kd, rlo);
  // e^(r + d) = e^r + d e^r to first order. d = rlo + tl reaches ulp(t) ~ 2^-43, so d's factor
  // must be e^r itself (expm1_reduced_tail's 1 + r would leave d r^2 / 2); e^r - 1 - r is tail0.
  const double d = rlo + tlc;
  const double tail0 = expm1_reduced_tail(r, 0.0);
  const double tail = tail0 + d * ((1.0 + r) + tail0);
  const double one_r = 1.0 + r;
  const double one_r_err = (1.0 - one_r) + r;  // exact: |r| < 1
  const double e = ldexp_k(one_r + (one_r_err + tail), kd);
  return pow_apply_sign(x, y, e);
}

}  // namespace tl::native::vec
