// Vectorizable exponentials and logarithms in double: exp2, expm1, log, log2, log10, log1p
// (exp itself is vec::exp_f64 / exp_f32 in Vectorize.h). See VecMathCommon.h for the rules and
// docs/vecmath.md for the algorithms and measured errors.
#pragma once
#include "aten/native/cpu/VecMathCommon.h"

namespace tl::native::vec {

// ln2 = kLn2Hi + kLn2Lo, kLn2Hi with 32 significant bits, so k * kLn2Hi is exact for |k| < 2^21.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLn2 = 0.6931471805599453;
constexpr double kInvLn2 = 1.4426950408889634;
// 1/ln2 and 1/ln10 as a 26-bit head and a tail.
constexpr double kInvLn2Hi = 1.4426950216293335;
constexpr double kInvLn2Lo = 1.9259629911266175e-08;
constexpr double kInvLn10Hi = 0.4342944771051407;
constexpr double kInvLn10Lo = 4.798111141615973e-09;
constexpr double kLog10Of2Hi = 3.01029995663611771306e-01;  // 33 bits: k * hi exact
constexpr double kLog10Of2Lo = 3.69423907715893078616e-13;

// e^(r + rlo) - 1 - r for |r| <= ln2/2, rlo a tiny correction of r: Taylor polynomial to
// degree 13 (truncation error < 2^-58 relative). Kept apart from r so that callers can add r
// and 1 exactly (pow_f64).
TL_ALWAYS_INLINE double expm1_reduced_tail(double r, double rlo) {
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  return (r * r) * p + rlo * (1.0 + r);
}

// e^(r + rlo) - 1 for |r| <= ln2/2.
TL_ALWAYS_INLINE double expm1_reduced(double r, double rlo = 0.0) { return r + expm1_reduced_tail(r, rlo); }

// x = k ln2 + r + rlo with |r| <= ln2/2 (Cody-Waite; x - k kLn2Hi is exact) and rlo the
// rounding error of r; k returned as an integral double.
TL_ALWAYS_INLINE double reduce_ln2(double x, double& kd, double& rlo) {
  kd = round_to_int(x * kInvLn2);
  const double a = x - kd * kLn2Hi;
  const double b = kd * kLn2Lo;
  const double r = a - b;
  rlo = (a - r) - b;
  return r;
}

// 2^x: x = k + r with |r| <= 1/2 (exact), 2^r by its Taylor series in r (degree 14), scaled
// by 2^k in two steps. Max error 1 ulp.
TL_ALWAYS_INLINE double exp2_f64(double x) {
  const double xc = dsel(x > 1025.0, 1025.0, dsel(x < -1080.0, -1080.0, x));  // keeps nan
  const double kd = round_to_int(xc);
  const double r = xc - kd;
  double p = 6.778726354822545e-14;  // ln2^14 / 14!
  p = p * r + 1.3691488853904128e-12;
  p = p * r + 2.5678435993488206e-11;
  p = p * r + 4.4455382718708116e-10;
  p = p * r + 7.054911620801123e-09;
  p = p * r + 1.01780860092397e-07;
  p = p * r + 1.321548679014431e-06;
  p = p * r + 1.5252733804059841e-05;
  p = p * r + 0.0001540353039338161;
  p = p * r + 0.0013333558146428443;
  p = p * r + 0.009618129107628477;
  p = p * r + 0.05550410866482158;
  p = p * r + 0.24022650695910072;
  p = p * r + 0.6931471805599453;
  p = p * r + 1.0;
  return ldexp_k(p, kd);
}

// e^x - 1: x = k ln2 + r, e^x - 1 = 2^k (e^r - 1) + (2^k - 1); both terms are exact scalings
// and their sum does not cancel. Large k goes through ldexp_k (the -1 is below the rounding).
TL_ALWAYS_INLINE double expm1_f64(double x) {
  const double xc = dsel(x > 710.0, 710.0, dsel(x < -45.0, -45.0, x));
  double kd, rlo;
  const double r = reduce_ln2(xc, kd, rlo);
  const double em1 = expm1_reduced(r, rlo);
  const double s = pow2_k(dsel(kd > 1000.0, 0.0, kd));
  const double mid = s * em1 + (s - 1.0);
  const double big = ldexp_k(em1 + 1.0, kd);
  const double res = dsel(kd > 1000.0, big, mid);
  return dsel(x == 0.0, x, res);  // expm1(-0) = -0
}

// log of a positive normal double split as x = 2^k m, m in [sqrt(1/2), sqrt(2)); returns
// log(m) - f in `c` with f = m - 1, so that log(x) = k ln2 + f + c. log(m) = 2 atanh(s) with
// s = f / (2 + f), by fdlibm's polynomial in s^2 (error < 2^-58.45).
// kSubnormals = false skips the subnormal scaling for callers whose x is known to be >= 1.
template <bool kSubnormals = true>
TL_ALWAYS_INLINE double log_parts(double x, double& kd, double& f) {
  // Subnormals: scale by 2^54 first.
  const bool sub = kSubnormals && x < 2.2250738585072014e-308;
  const double xs = kSubnormals ? dsel(sub, x * 18014398509481984.0, x) : x;
  const uint64_t ix = double_to_bits(xs) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL);
  kd = bits_to_double(0x4330000000000000ULL | (ix >> 52)) - (4503599627370496.0 + 1023.0);
  if constexpr (kSubnormals) kd = kd - dsel(sub, 54.0, 0.0);
  const double m = bits_to_double((ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL);
  f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  const double t2 = z * (6.666666666666735130e-01 +
                         w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  const double hfsq = 0.5 * f * f;
  return s * (hfsq + (t1 + t2)) - hfsq;
}

// The special values of a logarithm of x: nan below 0, -inf at ±0, inf at inf, nan at nan.
TL_ALWAYS_INLINE double log_special(double x, double res) {
  res = dsel(x == kInf, kInf, res);
  res = dsel(x == 0.0, -kInf, res);
  res = dsel(x < 0.0, kNaN, res);
  return dsel(disnan(x), x, res);
}

// Max error 1 ulp (fdlibm's algorithm).
TL_ALWAYS_INLINE double log_f64(double x) {
  double kd, f;
  const double c = log_parts(x, kd, f);
  const double res = kd * kLn2Hi + ((c + kd * kLn2Lo) + f);
  return log_special(x, res);
}

// (kterm_hi + kterm_lo) + (f + c) * K with K = kh + kl, kh having 26 significant bits: f is
// split into a 27-bit head (so fhi * kh is exact) and a tail, and the large terms are summed
// exactly; the log2 and log10 of a power of two come out exact.
TL_ALWAYS_INLINE double scaled_log(double kterm_hi, double kterm_lo, double f, double c, double kh, double kl) {
  const double fhi = bits_to_double(double_to_bits(f) & 0xfffffffff8000000ULL);
  const double flo = (f - fhi) + c;
  double e;
  const double s = two_sum(kterm_hi, fhi * kh, e);
  return s + (e + kterm_lo + (flo * (kh + kl) + fhi * kl));
}

TL_ALWAYS_INLINE double log2_f64(double x) {
  double kd, f;
  const double c = log_parts(x, kd, f);
  return log_special(x, scaled_log(kd, 0.0, f, c, kInvLn2Hi, kInvLn2Lo));
}

TL_ALWAYS_INLINE double log10_f64(double x) {
  double kd, f;
  const double c = log_parts(x, kd, f);
  return log_special(x, scaled_log(kd * kLog10Of2Hi, kd * kLog10Of2Lo, f, c, kInvLn10Hi, kInvLn10Lo));
}

// log(1 + x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the second term corrects
// the rounding of u to first order.
TL_ALWAYS_INLINE double log1p_f64(double x) {
  const double u = 1.0 + x;
  double kd, f;
  const double c = log_parts(u, kd, f);
  const double d = x - (u - 1.0);
  const double corr = dsel(d == 0.0, 0.0, d / u);
  const double res = kd * kLn2Hi + (((c + corr) + kd * kLn2Lo) + f);
  const double special = log_special(u, res);
  return dsel(x == 0.0 || x == kInf, x, special);  // keeps -0; log1p(inf) = inf
}

// log1p(e) for e in [0, 1] only (logaddexp's e^-|a - b|): no special values to handle.
TL_ALWAYS_INLINE double log1p_unit(double e) {
  const double u = 1.0 + e;
  double kd, f;
  const double c = log_parts<false>(u, kd, f);
  const double d = e - (u - 1.0);
  const double corr = dsel(d == 0.0, 0.0, d / u);
  return kd * kLn2Hi + (((c + corr) + kd * kLn2Lo) + f);
}

// The "for float" variants below compute in double but only to ~2^-40 relative, enough for a
// float32 / float16 / bfloat16 result (the double result is rounded once, so the float result is
// within 0.5 + 2^-16 ulp): lower polynomial degrees and no subnormal or correction steps.

// e^x to 2^-40 relative for results that round to float: Taylor to degree 10 on |r| <= ln2/2
// (truncation < 2^-41), one-step 2^k scaling (x clamped to [-110, 100]: beyond, the float
// result is 0 or inf, and every 2^k is a normal double).
TL_ALWAYS_INLINE double exp_for_float(double x) {
  const double xc = dsel(x > 100.0, 100.0, dsel(x < -110.0, -110.0, x));  // keeps nan
  const double kd = round_to_int(xc * kInvLn2);
  const double r = (xc - kd * kLn2Hi) - kd * kLn2Lo;
  double p = 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * (r * r) + r + 1.0;
  return p * pow2_k(kd);
}

// log(ax) for a positive normal double ax, to 2^-49 relative, for results that round to float: ax = 2^k m, m in [sqrt(1/2), sqrt(2)), log m =
// 2 atanh(s) = 2s (1 + s^2 P(s^2)) with s = (m - 1) / (m + 1), P a Chebyshev fit of degree 5
// (error < 2^-50 relative).
TL_ALWAYS_INLINE double log_normal_for_float(double ax) {
  const uint64_t ix = double_to_bits(ax) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL);
  const double kd = bits_to_double(0x4330000000000000ULL | (ix >> 52)) - (4503599627370496.0 + 1023.0);
  const double f = bits_to_double((ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL) - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 0x1.546a7e4aa710ap-4;
  p = p * z + 0x1.7382d85ab5b51p-4;
  p = p * z + 0x1.c71fcce33262dp-4;
  p = p * z + 0x1.2492462aff872p-3;
  p = p * z + 0x1.9999999b865a1p-3;
  p = p * z + 0x1.55555555553bbp-2;
  const double s2 = s + s;
  return kd * kLn2 + (s2 + (s2 * z) * p);
}

// log1p(e) for e in [0, 1], for results that round to float: log of u = 1 + e without the
// first-order correction of u's rounding (2^-53, far below float's precision).
TL_ALWAYS_INLINE double log1p_unit_for_float(double e) { return log_normal_for_float(1.0 + e); }

}  // namespace tl::native::vec
