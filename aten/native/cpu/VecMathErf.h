// Vectorizable error functions in double: erf, erfc. See VecMathCommon.h for the rules and
// docs/vecmath.md for the algorithms and measured errors.
//
// |x| < 1 (erf) or |x| < 1/2 (erfc = 1 - erf): erf x = x P(x^2), P the Taylor series to degree
// 18 in x^2 (truncation < 2^-60). Beyond: erfc x = e^-x^2 * 2 g(t) / (1 + 2x) for x in
// [1/2, 27.5], g(x) = erfcx(x) (1 + 2x) / 2 a slowly varying function (0.62 .. 0.56), as a
// polynomial of degree 22 in t = (x - 3) / (x + 3) (Weideman's variable; our own Chebyshev fit
// against mpmath, fit error < 2^-60); erf x = 1 - erfc x, erfc -x = 2 - erfc x. e^-x^2 is
// computed from x^2 = h + l split exactly (h the square of x's top 26 bits), so the rounding of
// x^2 (up to 2^-43 relative at x = 27) does not enter.
#pragma once
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathExpLog.h"

namespace tl::native::vec {

// erf(x) / x - 1 for |x| <= 1 (Taylor series in z = x^2).
TL_ALWAYS_INLINE double erf_over_x_m1(double z) {
  double p = 4.763348040515068e-18;
  p = p * z - 9.063970842808673e-17;
  p = p * z + 1.6342614095367152e-15;
  p = p * z - 2.7835162072109215e-14;
  p = p * z + 4.4632242632864775e-13;
  p = p * z - 6.7113668551641105e-12;
  p = p * z + 9.422759064650411e-11;
  p = p * z - 1.2290555301717928e-09;
  p = p * z + 1.4807192815879218e-08;
  p = p * z - 1.6365844691234924e-07;
  p = p * z + 1.6462114365889248e-06;
  p = p * z - 1.492565035840625e-05;
  p = p * z + 0.00012055332981789664;
  p = p * z - 0.0008548327023450853;
  p = p * z + 0.005223977625442188;
  p = p * z - 0.026866170645131252;
  p = p * z + 0.11283791670955126;
  p = p * z - 0.37612638903183754;
  p = p * z + 0.12837916709551257390;  // 2/sqrt(pi) - 1: x + x (P - 1) rounds x P once
  return p;
}

// erfc(x) for x >= 1/2 (nan stays nan; above 27.5 it underflows to 0).
TL_ALWAYS_INLINE double erfc_tail(double ax) {
  const double x = dsel(ax > 27.5, 27.5, ax);
  const double t = (x - 3.0) / (x + 3.0);
  double g = -2.217596550658445e-09;
  g = g * t - 5.299450417183959e-09;
  g = g * t + 1.7278781617138658e-08;
  g = g * t + 4.930528397823432e-08;
  g = g * t - 6.737020833363041e-08;
  g = g * t - 3.072229926570522e-07;
  g = g * t + 1.7649936796317208e-07;
  g = g * t + 1.735747846532518e-06;
  g = g * t - 3.6509749448683634e-07;
  g = g * t - 1.0050164423570034e-05;
  g = g * t + 2.474606451361278e-06;
  g = g * t + 6.254965801102712e-05;
  g = g * t - 5.257988401533016e-05;
  g = g * t - 0.0003899161348685954;
  g = g * t + 0.0009443451786770282;
  g = g * t + 0.0012646959080886322;
  g = g * t - 0.011885257459301763;
  g = g * t + 0.034154013671976;
  g = g * t - 0.05963683170765468;
  g = g * t + 0.06482257935138093;
  g = g * t - 0.023781147176725363;
  g = g * t - 0.0678105530622906;
  g = g * t + 0.6265040291348648;
  // e^-x^2 = e^-(h + l), h = xh^2 exact for xh = x's top 26 bits, |l| < 2.2e-5: the reduction
  // of -h by ln2 is exact (Cody-Waite) and l joins its rounding error as a tracked low part.
  const double xh = bits_to_double(double_to_bits(x) & 0xFFFFFFFFF8000000ULL);
  const double h = xh * xh;
  const double l = (x - xh) * (x + xh);
  double kd, rlo, err;
  const double r0 = reduce_ln2(-h, kd, rlo);
  const double r = two_sum(r0, -l, err);
  const double e = ldexp_k(1.0 + expm1_reduced(r, rlo + err), kd);
  return e * ((g + g) / (1.0 + 2.0 * x));
}

TL_ALWAYS_INLINE double erf_f64(double x) {
  const double ax = dabs(x);
  const double small = x + x * erf_over_x_m1(x * x);
  const double big = dcopysign(1.0 - erfc_tail(dsel(ax < 0.5, 0.5, ax)), x);
  return dsel(ax < 1.0, small, big);
}

TL_ALWAYS_INLINE double erfc_f64(double x) {
  const double ax = dabs(x);
  const double small = 1.0 - (x + x * erf_over_x_m1(x * x));
  const double tail = erfc_tail(dsel(ax < 0.5, 0.5, ax));
  return dsel(ax < 0.5, small, dsel(x > 0.0, tail, 2.0 - tail));
}

// erf and erfc for float32 / float16 / bfloat16 results (double to ~2^-40 relative, see
// exp_for_float): the Taylor series to degree 14, g fitted to degree 13 on [1/2, 10.5] in
// t = (x - 5/2) / (x + 5/2) (erfc of float is 0 beyond 10.06), and e^-x^2 straight from the
// rounded x^2 (x^2 <= 110: its rounding costs < 2^-46).
TL_ALWAYS_INLINE double erf_over_x_m1_for_float(double z) {
  double p = 4.4632242632864775e-13;
  p = p * z - 6.7113668551641105e-12;
  p = p * z + 9.422759064650411e-11;
  p = p * z - 1.2290555301717928e-09;
  p = p * z + 1.4807192815879218e-08;
  p = p * z - 1.6365844691234924e-07;
  p = p * z + 1.6462114365889248e-06;
  p = p * z - 1.492565035840625e-05;
  p = p * z + 0.00012055332981789664;
  p = p * z - 0.0008548327023450853;
  p = p * z + 0.005223977625442188;
  p = p * z - 0.026866170645131252;
  p = p * z + 0.11283791670955126;
  p = p * z - 0.37612638903183754;
  p = p * z + 0.12837916709551257390;
  return p;
}

TL_ALWAYS_INLINE double erfc_tail_for_float(double ax) {
  const double x = dsel(ax > 10.5, 10.5, ax);
  const double t = (x - 2.5) / (x + 2.5);
  double g = 8.415260934879853e-06;
  g = g * t + 4.283774870293642e-06;
  g = g * t - 5.499060931833036e-05;
  g = g * t - 4.480139428484309e-05;
  g = g * t + 0.0003155075094220836;
  g = g * t + 0.0002460864460588157;
  g = g * t - 0.0021909457833726035;
  g = g * t + 0.00046592365953146517;
  g = g * t + 0.016380438601976112;
  g = g * t - 0.05148352636849661;
  g = g * t + 0.07881495981227271;
  g = g * t - 0.04951226983245929;
  g = g * t - 0.061178381544376416;
  g = g * t + 0.6324190921836392;
  return exp_for_float(-(ax * ax)) * ((g + g) / (1.0 + 2.0 * x));
}

TL_ALWAYS_INLINE double erf_for_float(double x) {
  const double ax = dabs(x);
  const double small = x + x * erf_over_x_m1_for_float(x * x);
  const double big = dcopysign(1.0 - erfc_tail_for_float(dsel(ax < 0.5, 0.5, ax)), x);
  return dsel(ax < 1.0, small, big);
}

TL_ALWAYS_INLINE double erfc_for_float(double x) {
  const double ax = dabs(x);
  const double small = 1.0 - (x + x * erf_over_x_m1_for_float(x * x));
  const double tail = erfc_tail_for_float(dsel(ax < 0.5, 0.5, ax));
  return dsel(ax < 0.5, small, dsel(x > 0.0, tail, 2.0 - tail));
}

}  // namespace tl::native::vec
