// Vectorizable trigonometric functions in double: sin, cos, tan (for |x| <= kTrigFastMax; the
// kernels send blocks holding larger or non-finite arguments to libm), atan, atan2, asin, acos.
// See VecMathCommon.h for the rules and docs/vecmath.md for the algorithms and measured errors.
#pragma once
#include <cmath>

#include "aten/native/cpu/VecMathCommon.h"

namespace tl::native::vec {

// Arguments up to 2^20 reduce exactly enough with the three 33-bit parts of pi/2 below.
constexpr double kTrigFastMax = 1048576.0;

// x = q pi/2 + (y + ylo), |y + ylo| <= pi/4 (nearly), for |x| <= kTrigFastMax. pi/2 is split
// into three 33-bit parts (q * part is exact for q < 2^20) and a tail; the subtractions are
// tracked with two-sums so the reduced argument keeps about 100 bits.
TL_ALWAYS_INLINE double reduce_pio2(double x, double& ylo, uint64_t& q) {
  const double t = x * 0.6366197723675814 + kRoundMagic;
  q = double_to_bits(t);
  const double qd = t - kRoundMagic;
  const double a = x - qd * 1.5707963267341256;  // exact
  double e1, e2;
  const double b = two_sum(a, -(qd * 6.077100506303966e-11), e1);
  const double c = two_sum(b, -(qd * 2.0222662487111665e-21), e2);
  const double lo = (e1 + e2) - qd * 8.4784276603689e-32;
  const double y = c + lo;
  ylo = lo - (y - c);
  return y;
}

// sin(y + ylo) for |y| <= pi/4: Taylor series to degree 19 (truncation < 2^-60 relative).
TL_ALWAYS_INLINE double sin_kernel(double y, double ylo) {
  const double z = y * y;
  double p = -1.0 / 121645100408832000.0;  // -1/19!
  p = p * z + 1.0 / 355687428096000.0;
  p = p * z - 1.0 / 1307674368000.0;
  p = p * z + 1.0 / 6227020800.0;
  p = p * z - 1.0 / 39916800.0;
  p = p * z + 1.0 / 362880.0;
  p = p * z - 1.0 / 5040.0;
  p = p * z + 1.0 / 120.0;
  p = p * z - 1.0 / 6.0;
  return y + ((y * z) * p + ylo * (1.0 - 0.5 * z));
}

// cos(y + ylo) for |y| <= pi/4: 1 - z/2 summed with its rounding error, then the series to
// degree 20.
TL_ALWAYS_INLINE double cos_kernel(double y, double ylo) {
  const double z = y * y;
  double p = 1.0 / 2432902008176640000.0;  // 1/20!
  p = p * z - 1.0 / 6402373705728000.0;
  p = p * z + 1.0 / 20922789888000.0;
  p = p * z - 1.0 / 87178291200.0;
  p = p * z + 1.0 / 479001600.0;
  p = p * z - 1.0 / 3628800.0;
  p = p * z + 1.0 / 40320.0;
  p = p * z - 1.0 / 720.0;
  p = p * z + 1.0 / 24.0;
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + ((z * z) * p - y * ylo));
}

TL_ALWAYS_INLINE double sin_f64(double x) {
  double ylo;
  uint64_t q;
  const double y = reduce_pio2(x, ylo, q);
  const double s = sin_kernel(y, ylo);
  const double c = cos_kernel(y, ylo);
  const double r = dsel((q & 1) != 0, c, s);
  const double res = dflip(r, (q & 2) << 62);
  return dsel(x == 0.0, x, res);  // sin(-0) = -0
}

TL_ALWAYS_INLINE double cos_f64(double x) {
  double ylo;
  uint64_t q;
  const double y = reduce_pio2(x, ylo, q);
  const double s = sin_kernel(y, ylo);
  const double c = cos_kernel(y, ylo);
  const double r = dsel((q & 1) != 0, s, c);
  return dflip(r, ((q + 1) & 2) << 62);
}

// sin / cos of the reduced argument (-cos / sin in odd quadrants).
TL_ALWAYS_INLINE double tan_f64(double x) {
  double ylo;
  uint64_t q;
  const double y = reduce_pio2(x, ylo, q);
  const double s = sin_kernel(y, ylo);
  const double c = cos_kernel(y, ylo);
  const bool odd = (q & 1) != 0;
  const double res = dsel(odd, -c, s) / dsel(odd, s, c);
  return dsel(x == 0.0, x, res);
}

// atan(n / d) for n, d >= 0 with one division: t = n / d is reduced to |t'| <= 7/16 around the
// breakpoints 0, 1/2, 1, 3/2, inf (t' = (n - c d) / (d + c n), or -d / n), then fdlibm's
// polynomial; atan(t) = atan(c) + atan(t'). Needs c d and c n exact and finite: d = 1
// (atan_nonneg), or float inputs held in double (atan2_for_float).
TL_ALWAYS_INLINE double atan_ratio(double n, double d) {
  const bool i1 = n >= 0.4375 * d, i2 = n >= 0.6875 * d, i3 = n >= 1.1875 * d, i4 = n >= 2.4375 * d;
  const double c = dsel(i3, 1.5, dsel(i2, 1.0, dsel(i1, 0.5, 0.0)));
  const double hi = dsel(i4, 1.57079632679489655800e+00,
                         dsel(i3, 9.82793723247329054082e-01,
                              dsel(i2, 7.85398163397448278999e-01, dsel(i1, 4.63647609000806093515e-01, 0.0))));
  const double lo = dsel(i4, 6.12323399573676603587e-17,
                         dsel(i3, 1.39033110312309984516e-17,
                              dsel(i2, 3.06161699786838301793e-17, dsel(i1, 2.26987774529616870924e-17, 0.0))));
  const double num = dsel(i4, -d, n - c * d);
  const double den = dsel(i4, n, d + c * n);
  const double x = num / den;
  const double z = x * x;
  const double w = z * z;
  const double s1 = z * (3.33333333333329318027e-01 +
                         w * (1.42857142725034663711e-01 +
                              w * (9.09088713343650656196e-02 +
                                   w * (6.66107313738753120669e-02 +
                                        w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  const double s2 = w * (-1.99999999998764832476e-01 +
                         w * (-1.11111104054623557880e-01 +
                              w * (-7.69187620504482999495e-02 +
                                   w * (-5.83357013379057348645e-02 + w * -3.65315727442169155270e-02))));
  return hi - ((x * (s1 + s2) - lo) - x);
}

// atan(t) for t >= 0 (inf included). Max error 1 ulp.
TL_ALWAYS_INLINE double atan_nonneg(double t) { return atan_ratio(t, 1.0); }

TL_ALWAYS_INLINE double atan_f64(double x) {
  const double res = dcopysign(atan_nonneg(dabs(x)), x);
  return dsel(disnan(x), x, res);
}

// atan2(y, x) = ±atan(|y / x|), or ±(pi - atan(|y / x|)) when x has its sign bit set. Both
// infinite: |y / x| taken as 1; y = 0: as 0 (so atan2(±0, -0) = ±pi, atan2(±0, +0) = ±0).
TL_ALWAYS_INLINE double atan2_f64(double y, double x) {
  const double ax = dabs(x), ay = dabs(y);
  const bool both_inf = (ax == kInf) & (ay == kInf);
  const double ratio = dsel(ay == 0.0, 0.0, dsel(both_inf, 1.0, ay / ax));
  const double z = atan_nonneg(ratio);
  double zq = dsel(dsign(x) != 0, 3.141592653589793 - (z - 1.2246467991473532e-16), z);
  zq = dsel(((ax == 0.0) & (ay != 0.0)) | ((ay == kInf) & (ax != kInf)), 1.5707963267948966, zq);
  const double res = dcopysign(zq, y);
  return dsel(disnan(x) | disnan(y), x + y, res);
}

// atan2 for float inputs (held in double) and results: a = atan(n / d) with n = min(|y|, |x|),
// d = max(|y|, |x|) (so n / d <= 1: only the breakpoints 0, 1/2 and 1), reduced to |t'| <= 7/16
// (t' = (n - c d) / (d + c n), one division, atan(c) as one double) and atan(t') = t' +
// t'^3 P(t'^2), P a Chebyshev fit of degree 8 (error < 2^-46 relative); then pi/2 - a where
// |y| > |x|, pi - a where x has its sign bit set, and y's sign. Both zero: a = 0 (so atan2(±0,
// -0) = ±pi); both infinite: a = pi/4; one infinite: n / d = 0 on its own (c = 0 there).
TL_ALWAYS_INLINE double atan2_for_float(double y, double x) {
  const double ax = dabs(x), ay = dabs(y);
  const bool swap = ay > ax;
  const double n = dsel(swap, ax, ay), d = dsel(swap, ay, ax);
  const bool i1 = n >= 0.4375 * d, i2 = n >= 0.6875 * d;
  const double c = dsel(i2, 1.0, dsel(i1, 0.5, 0.0));
  const double hi = dsel(i2, 0.7853981633974483, dsel(i1, 0.4636476090008061, 0.0));
  const double t = dsel(i1, n - c * d, n) / dsel(i1, d + c * n, d);  // c = 0: no 0 * inf
  const double z = t * t;
  double p = -0x1.9f63bf24c3bfep-6;
  p = p * z + 0x1.9ceef8dc50421p-5;
  p = p * z - 0x1.0ae038a31e40bp-4;
  p = p * z + 0x1.3a68722a503c2p-4;
  p = p * z - 0x1.74520ae6f1e79p-4;
  p = p * z + 0x1.c71c0a46e6709p-4;
  p = p * z - 0x1.24924830230a0p-3;
  p = p * z + 0x1.99999997dae1bp-3;
  p = p * z - 0x1.555555555511ep-2;
  double a = hi + (t + t * z * p);
  a = dsel(ay == 0.0, 0.0, dsel((ax == kInf) & (ay == kInf), 0.7853981633974483, a));
  a = dsel(swap, 1.5707963267948966 - a, a);
  a = dsel(dsign(x) != 0, 3.141592653589793 - a, a);
  return dsel(disnan(x) | disnan(y), x + y, dcopysign(a, y));
}

// asin(x) = atan(x / sqrt((1 - x)(1 + x))); |x| > 1 gives nan through the sqrt.
TL_ALWAYS_INLINE double asin_f64(double x) {
  const double res = atan_f64(x / std::sqrt((1.0 - x) * (1.0 + x)));
  return dsel(x == 0.0, x, res);
}

// asin and acos for float results, with no division: asin(s) = s + s z g(z) for s <= 1/2
// (z = s^2), and asin|x| = pi/2 - 2 asin(sqrt((1 - |x|) / 2)) above 1/2 (z = (1 - |x|) / 2 is
// exact for a float x). g is a degree-9 least-squares fit on Chebyshev nodes of
// (asin(s) - s) / (s z) over z in [0, 1/4] (relative error of asin below 2^-45: float results are
// correctly rounded but for near-halfway cases). |x| > 1 gives nan through the sqrt.
TL_ALWAYS_INLINE double asin_half_for_float(double s, double z) {  // asin(s), 0 <= s <= 1/2, z = s^2
  const double g =
      0.16666666666661875 +
      z * (0.07500000003783192 +
           z * (0.04464285222397517 +
                z * (0.030382191635732983 +
                     z * (0.02236588241238357 +
                          z * (0.01744362910121099 +
                               z * (0.013173360023613355 +
                                    z * (0.01573350656059537 + z * (-0.003063682872946883 + z * 0.028017543224705177))))))));
  return s + s * (z * g);
}

TL_ALWAYS_INLINE double asin_for_float(double x) {
  const double a = dabs(x);
  const bool big = a > 0.5;
  const double z = dsel(big, 0.5 - 0.5 * a, a * a);
  const double r = asin_half_for_float(dsel(big, std::sqrt(z), a), z);
  const double res = dsel(big, 1.5707963267948966 - 2.0 * r, r);
  return dsel(disnan(x), x, dcopysign(res, x));
}

// acos x = pi/2 - asin x for |x| <= 1/2, 2 asin(sqrt((1 - x) / 2)) above, pi minus that below -1/2
// (no cancellation near x = 1, where acos is small).
TL_ALWAYS_INLINE double acos_for_float(double x) {
  const double a = dabs(x);
  const bool big = a > 0.5;
  const double z = dsel(big, 0.5 - 0.5 * a, a * a);
  const double r = asin_half_for_float(dsel(big, std::sqrt(z), a), z);
  const double twice = 2.0 * r;
  const double res = dsel(big, dsel(x < 0.0, 3.141592653589793 - twice, twice), 1.5707963267948966 - dcopysign(r, x));
  return dsel(disnan(x), x, res);
}

// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))).
TL_ALWAYS_INLINE double acos_f64(double x) {
  return 2.0 * atan_nonneg(std::sqrt((1.0 - x) / (1.0 + x)));
}

}  // namespace tl::native::vec
