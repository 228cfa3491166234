// Vectorizable hyperbolic functions and their relatives in double: sinh, cosh, tanh, asinh,
// acosh, atanh, sigmoid, logaddexp, logaddexp2. See VecMathCommon.h for the rules and
// docs/vecmath.md for the algorithms and measured errors.
#pragma once
#include <cmath>

#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathExpLog.h"

namespace tl::native::vec {

// e^|x| / 2 (finite up to |x| = 710.47, like sinh and cosh) and e^|x| - 1 from one reduction.
TL_ALWAYS_INLINE void exp_half_and_expm1(double ax, double& half, double& em1_out) {
  const double xc = dsel(ax > 711.0, 711.0, ax);  // keeps nan
  double kd, rlo;
  const double r = reduce_ln2(xc, kd, rlo);
  const double em1 = expm1_reduced(r, rlo);
  half = ldexp_k(em1 + 1.0, kd - 1.0);
  const double s = pow2_k(dsel(kd > 1000.0, 0.0, kd));
  em1_out = s * em1 + (s - 1.0);  // meaningful for |x| <= 22 only
}

// |x| <= 22: (E + E / (E + 1)) / 2 with E = e^|x| - 1 (no cancellation near 0); beyond,
// e^|x| / 2 (e^-|x| is below the rounding). Within 1 ulp: E = 2^k (e^r - 1) + (2^k - 1) and
// e^r = 1 + r + tail as double-doubles, the quotient corrected by its remainder (fma) and the low
// parts, E + q summed with its rounding error; one rounding at the end (the halving is exact).
TL_ALWAYS_INLINE double sinh_f64(double x) {
  const double ax = dabs(x);
  const double xc = dsel(ax > 711.0, 711.0, ax);  // keeps nan
  double kd, rlo;
  const double r = reduce_ln2(xc, kd, rlo);
  const double tail = expm1_reduced_tail(r, rlo);
  const double em1 = r + tail;
  const double em1_lo = (r - em1) + tail;  // |r| >= |tail|
  // |x| <= 22: E = eh + el (k in [0, 32]: 2^k - 1 exact).
  const double s = pow2_k(dsel(kd > 40.0, 0.0, kd));
  double e;
  const double eh = two_sum(s * em1, s - 1.0, e);
  const double el = e + s * em1_lo;
  double f;
  const double dh = two_sum(eh, 1.0, f);  // E + 1 = dh + dl
  const double dl = f + el;
  const double q = eh / dh;
  const double qc = ((el - mul_err(q, dh, eh)) - q * dl) / dh;
  double g;
  const double sh = two_sum(eh, q, g);
  const double small = 0.5 * (sh + ((g + el) + qc));
  // beyond: e^|x| / 2 = 2^(k-1) (1 + r + tail), 1 + r rounded exactly.
  const double one_r = 1.0 + r;
  const double big = ldexp_k(one_r + (((1.0 - one_r) + r) + tail), kd - 1.0);
  return dcopysign(dsel(ax <= 22.0, small, big), x);
}

// The plain formula for float results (the double result is within 2.5 ulp).
TL_ALWAYS_INLINE double sinh_for_float(double x) {
  const double ax = dabs(x);
  double half, e;
  exp_half_and_expm1(ax, half, e);
  const double small = 0.5 * (e + e / (e + 1.0));
  const double res = dsel(ax <= 22.0, small, half);
  return dcopysign(res, x);
}

// h + 1/(4h) with h = e^|x| / 2.
TL_ALWAYS_INLINE double cosh_f64(double x) {
  double half, e;
  exp_half_and_expm1(dabs(x), half, e);
  return half + 0.25 / half;
}

// |x| < 1: -t / (t + 2) with t = e^-2|x| - 1; |x| >= 1: 1 - 2 / (t + 2) with t = e^2|x| - 1
// (fdlibm's choice: no cancellation in either). Within 1 ulp: t = 2^k (e^r - 1) + (2^k - 1) as a
// double-double (e^r - 1 = r + tail with its rounding error; 2^k - 1 exact for these k), the
// quotient n / (t + 2) corrected by its remainder (fma) and the low parts, and 1 - q with its
// rounding error.
TL_ALWAYS_INLINE double tanh_f64(double x) {
  const double ax = dsel(dabs(x) > 22.0, 22.0, dabs(x));  // tanh(22) rounds to 1
  const bool small = ax < 1.0;
  double kd, rlo;
  const double r = reduce_ln2(dsel(small, -2.0 * ax, 2.0 * ax), kd, rlo);
  const double tail = expm1_reduced_tail(r, rlo);
  const double em1 = r + tail;
  const double em1_lo = (r - em1) + tail;  // |r| >= |tail|
  const double s = pow2_k(kd);             // k in [-2, 64]
  double e;
  const double th = two_sum(s * em1, s - 1.0, e);
  const double tl = e + s * em1_lo;  // t = th + tl
  const double dh = 2.0 + th;        // t + 2 = dh + dl (2 >= |th| where it matters)
  const double dl = ((2.0 - dh) + th) + tl;
  const double n = dsel(small, -th, 2.0), nl = dsel(small, -tl, 0.0);
  const double q = n / dh;
  const double qc = ((nl - mul_err(q, dh, n)) - q * dl) / dh;  // (n + nl) / (dh + dl) = q + qc
  const double h = 1.0 - q;
  const double hl = (1.0 - h) - q;  // exact: q <= 0.24 in that branch
  const double res = dsel(small, q, h) + dsel(small, qc, hl - qc);
  return dsel(x == 0.0, x, dcopysign(res, x));
}

// The plain expm1 and quotient for float results (the double result is within 2.5 ulp).
TL_ALWAYS_INLINE double tanh_for_float(double x) {
  const double ax = dsel(dabs(x) > 22.0, 22.0, dabs(x));  // tanh(22) rounds to 1
  const bool small = ax < 1.0;
  const double t = expm1_f64(dsel(small, -2.0 * ax, 2.0 * ax));
  const double q = dsel(small, -t, 2.0) / (t + 2.0);
  const double res = dsel(small, q, 1.0 - q);
  return dsel(x == 0.0, x, dcopysign(res, x));
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: e^-|x| never overflows. Within 1 ulp:
// e^-|x| = eh + el and 1 + e^-|x| = s + sl as double-doubles (1 + r + (e^r - 1 - r) summed with
// its rounding error kept), the quotient q = n / s corrected by its remainder (fma) and the low
// parts: (n + nl) / (s + sl) = q + ((n - q s) + nl - q sl) / s to first order.
TL_ALWAYS_INLINE double sigmoid_f64(double x) {
  const double ax = dabs(x);
  const double xc = dsel(ax > 746.0, -746.0, -ax);  // keeps nan
  double kd, rlo;
  const double r = reduce_ln2(xc, kd, rlo);
  const double one_r = 1.0 + r;
  const double low = ((1.0 - one_r) + r) + expm1_reduced_tail(r, rlo);  // 1 + r's rounding error kept
  const double p = one_r + low;
  const double pl = (one_r - p) + low;
  const double eh = ldexp_k(p, kd), el = ldexp_k(pl, kd);
  const double s = 1.0 + eh;
  const double sl = ((1.0 - s) + eh) + el;  // exact but for el's own rounding: 1 >= eh
  const bool pos = x >= 0.0;
  const double n = dsel(pos, 1.0, eh);
  const double q = n / s;
  return q + ((dsel(pos, 0.0, el) - mul_err(q, s, n)) - q * sl) / s;
}

// The plain quotient for float results (the double result is within 2.5 ulp of double).
TL_ALWAYS_INLINE double sigmoid_for_float(double x) {
  const double e = exp_f64(-dabs(x));
  return dsel(x >= 0.0, 1.0, e) / (1.0 + e);
}

// asinh(x) = ±log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); ±(log|x| + ln2) beyond 2^28.
TL_ALWAYS_INLINE double asinh_f64(double x) {
  const double ax = dabs(x);
  const double big = log_f64(ax) + kLn2;
  const double as = dsel(ax > 268435456.0, 1.0, ax);  // keep x^2 finite in the unused lane
  const double z = as * as;
  const double small = log1p_f64(as + z / (1.0 + std::sqrt(1.0 + z)));
  const double res = dsel(ax > 268435456.0, big, small);
  return dsel(x == 0.0, x, dcopysign(res, x));
}

// acosh(x) = log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact near 1); log(x) + ln2 beyond 2^28.
TL_ALWAYS_INLINE double acosh_f64(double x) {
  const double big = log_f64(x) + kLn2;
  const double t = dsel(x > 268435456.0, 0.0, x - 1.0);
  const double small = log1p_f64(t + std::sqrt(2.0 * t + t * t));
  return dsel(x < 1.0, kNaN, dsel(x > 268435456.0, big, small));
}

// atanh(x) = ±log1p(2|x| / (1 - |x|)) / 2.
TL_ALWAYS_INLINE double atanh_f64(double x) {
  const double ax = dabs(x);
  const double res = 0.5 * log1p_f64((ax + ax) / (1.0 - ax));
  return dsel(x == 0.0, x, dcopysign(res, x));
}

// atanh for float results: log(1 + t) without log1p's correction of 1 + t's rounding (one
// division fewer), which costs 2^-53 absolute; below |x| = 2^-6, where that would be too much
// relative to the result, the series x + x^3/3 + ... + x^9/9 (truncation below 2^-52 relative).
TL_ALWAYS_INLINE double atanh_for_float(double x) {
  const double ax = dabs(x);
  const double z = ax * ax;
  const double series = ax + ax * z * (1.0 / 3.0 + z * (1.0 / 5.0 + z * (1.0 / 7.0 + z * (1.0 / 9.0))));
  const double large = 0.5 * log_f64(1.0 + (ax + ax) / (1.0 - ax));
  const double res = dsel(ax < 0.015625, series, large);
  return dsel(x == 0.0, x, dcopysign(res, x));
}

// log(e^a + e^b) = max + log1p(e^-|a - b|); equal arguments (infinities included) give a + ln2;
// a nan argument gives nan.
TL_ALWAYS_INLINE double logaddexp_f64(double a, double b) {
  const double m = dsel(a > b, a, b);
  const double res = m + log1p_unit(exp_f64(-dabs(a - b)));
  return dsel(disnan(a) | disnan(b), a + b, dsel(a == b, a + kLn2, res));
}

// log2(2^a + 2^b) = max + log1p(2^-|a - b|) / ln2; equal arguments give a + 1.
TL_ALWAYS_INLINE double logaddexp2_f64(double a, double b) {
  const double m = dsel(a > b, a, b);
  const double res = m + log1p_unit(exp2_f64(-dabs(a - b))) * kInvLn2;
  return dsel(disnan(a) | disnan(b), a + b, dsel(a == b, a + 1.0, res));
}

// logaddexp and logaddexp2 for float results (see exp_for_float): e^-|a - b| is below 2^-158 where
// it is clamped, and adds nothing to a float result.
TL_ALWAYS_INLINE double logaddexp_for_float(double a, double b) {
  const double m = dsel(a > b, a, b);
  const double res = m + log1p_unit_for_float(exp_for_float(-dabs(a - b)));
  return dsel(disnan(a) | disnan(b), a + b, dsel(a == b, a + kLn2, res));
}

TL_ALWAYS_INLINE double logaddexp2_for_float(double a, double b) {
  const double m = dsel(a > b, a, b);
  const double res = m + log1p_unit_for_float(exp_for_float(-dabs(a - b) * kLn2)) * kInvLn2;
  return dsel(disnan(a) | disnan(b), a + b, dsel(a == b, a + 1.0, res));
}

}  // namespace tl::native::vec
