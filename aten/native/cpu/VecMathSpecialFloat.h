// Special functions for float32 / float16 / bfloat16 results (SpecialOps.cpp): evaluated in
// double, branch-free (a math_kernel loop over them vectorizes), but only as accurate as a float
// result needs (relative error 6e-10 or better unless noted, so the rounded float is within 0.51
// ulp). The float64 kernels keep the accurate algorithms of VecMathSpecial.h.
// docs/kernels/special.md lists the measured float32 errors.
//
// The erfinv and lgamma coefficients are our own least-squares fits on Chebyshev nodes against
// mpmath (40+ digits), written as hex doubles; the Bessel J rationals are Cephes'.
#pragma once
#include <cmath>

#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/VecMathSpecial.h"
#include "aten/native/cpu/VecMathTrig.h"

namespace tl::native::vec {

// ---- erfinv, ndtri

// erfinv(x) / x as a function of w = -log((1 - x)(1 + x)) (Giles' variable), fitted on four
// ranges: w in [0, 5] (in w - 2.5, degree 11, 6e-10 relative), w in [5, 16.1] (in (w - 10.55) / 5.55,
// degree 13, 2e-10), sqrt(w) in [4, 6.5] (degree 11, 1e-11) and [6.5, 10.2] (degree 9, 4e-12), in
// sqrt(w) minus the middle. Float inputs of erfinv reach w = 15.94; ndtri's 2 min(p, 1 - p) down to
// the subnormal floats reach w = 102.2 (`far_tail`: only for blocks holding such inputs).
namespace erfinv_float_detail {
constexpr double kW[12] = {
    0x1.805c5cff7bd46p+0,  0x1.f91e896f807c4p-3,  -0x1.11c3e122e1858p-8, -0x1.486394a0f3f07p-10,
    0x1.c9bb6ce8c36f7p-13, -0x1.4f7a90b3859ecp-18, -0x1.cbd6e5982ec82p-19, 0x1.01961a4e80d1cp-21,
    0x1.1aead8f479eebp-26, -0x1.7b40aee488284p-27, 0x1.dfc404b01a9bfp-32, 0x1.25f916ba445fep-33};
constexpr double kWB[14] = {  // in (w - 10.55) / 5.55
    0x1.8a7d661700ea8p+1,  0x1.b7b831863cbacp-1,  -0x1.be8543688bf47p-4, 0x1.af4631b310ec8p-6,
    -0x1.d58d608ed60b5p-8, 0x1.ab6319723f9fbp-10, -0x1.7422116fe01f8p-17, -0x1.567edf3ced1b0p-12,
    0x1.1188fd9084040p-12, -0x1.3230084d27c43p-13, 0x1.5d429e87da6f5p-14, -0x1.00cfe2cd86f6bp-15,
    -0x1.1a8fdbb634af0p-17, 0x1.0b4cf82e2a6dep-17};
constexpr double kS2[12] = {
    0x1.468edd59f602ep+2,  0x1.029c26b1a4e8ap+0,  -0x1.1fa5944ed0ad7p-12, -0x1.3aac95069644ep-13,
    0x1.ce8a37173b254p-15, -0x1.d6312a85a0c73p-17, 0x1.a600e7cb4ae7fp-19, -0x1.661da6a42c8ecp-21,
    0x1.b5119e3c1d9e0p-24, -0x1.5b7a494f384bdp-27, 0x1.7a53f942b867ap-26, -0x1.6f105e96b3633p-27};
constexpr double kS3[10] = {
    0x1.0759dc3f57a85p+3,  0x1.01dd704e11b61p+0,  -0x1.d6eaee5a04c17p-12, 0x1.54c86c4abb441p-16,
    0x1.19e2a3b424285p-21, -0x1.6b95b8208f23cp-22, 0x1.1be1b65b04e0ap-24, -0x1.646dde20b710ap-27,
    0x1.e2607b8ebba87p-30, -0x1.0d4f90b0f38ccp-32};
}  // namespace erfinv_float_detail

// erfinv(a) / a from prod = (1 - a)(1 + a), a positive normal double.
template <bool far_tail>
TL_ALWAYS_INLINE double erfinv_over_x_for_float(double prod) {
  using namespace erfinv_float_detail;
  const double w = -log_normal_for_float(prod);
  const double central = poly(kW, w - 2.5);
  double tail = poly(kWB, (w - 10.55) * 0.18018018018018018);
  if constexpr (far_tail) {
    const double s = std::sqrt(dsel(w < 16.0, 16.0, w));
    tail = dsel(w < 16.0, tail, dsel(s < 6.5, poly(kS2, s - 5.25), poly(kS3, s - 8.35)));
  }
  return dsel(w < 5.0, central, tail);
}

// erfinv for float inputs: 1 - |x| >= 2^-24 there, so w <= 15.94 (no far tail).
TL_ALWAYS_INLINE double erfinv_for_float(double x) {
  const double a = dabs(x);
  const double prod = (1.0 - a) * (1.0 + a);
  const double y = a * erfinv_over_x_for_float<false>(dsel(a < 1.0, prod, 0.5));
  const double r = dsel(a < 1.0, y, dsel(a == 1.0, kInf, kNaN));
  return dcopysign(dsel(disnan(x), x, r), x);
}

// ndtri(p) = sqrt(2) erfinv(2p - 1) for float p: with q = 2p below 1/2 and 2(1 - p) above (both
// exact), (1 - a)(1 + a) = q (2 - q) for a = |2p - 1| = 1 - q, so neither tail loses digits.
template <bool far_tail>
TL_ALWAYS_INLINE double ndtri_for_float(double p) {
  const bool inside = (p > 0.0) & (p < 1.0);
  const double q = dsel(inside, dsel(p < 0.5, 2.0 * p, 2.0 * (1.0 - p)), 1.0);
  const double y = (1.0 - q) * erfinv_over_x_for_float<far_tail>(q * (2.0 - q)) * 1.4142135623730950488;
  const double r = dsel(inside, dsel(p < 0.5, -y, y), dsel(p == 0.0, -kInf, dsel(p == 1.0, kInf, kNaN)));
  return dsel(disnan(p), p, r);
}

// ---- lgamma

namespace lgamma_float_detail {
// lgamma(2 + e) / e on |e| <= 1/2 (fit error 1e-15 relative).
constexpr double kNearTwo[17] = {
    0x1.b0ee6072093cfp-2,  0x1.4a34cc4a60f97p-2,  -0x1.13e001a557353p-4, 0x1.51322ac7e4efcp-6,
    -0x1.e404fc2290ac2p-8, 0x1.7add6e96c10e8p-9,  -0x1.38ac5b9d1d12dp-10, 0x1.0b36b8bb11b09p-11,
    -0x1.d3fd9a2bd1ecbp-13, 0x1.a123cf36a2b70p-14, -0x1.78d2a19782813p-15, 0x1.58839bb59548ep-16,
    -0x1.3dc3bdbe5efd7p-17, 0x1.1dbcec35482ccp-18, -0x1.047951ee20453p-19, 0x1.45b6ecf4911e5p-20,
    -0x1.49c877cb78e77p-21};
}  // namespace lgamma_float_detail

// lgamma(z) = main - log(divisor) for z > 0 finite: on [1/2, 5/2) main from the fit around 2 and
// divisor z below 3/2 (lgamma(z) = lgamma(z + 1) - log z), which keeps the relative accuracy next to
// the roots 1 and 2; elsewhere main is Stirling's series to B14 (truncation < 3e-17 from t = 10) at
// t = z + 10 below 10, divisor z (z + 1) ... (z + 9), or at t = z. The logs are
// log_normal_for_float's (2^-49 relative: absolute errors ~5e-14 where |lgamma| > 0.12).
TL_ALWAYS_INLINE double lgamma_parts_for_float(double z, double& divisor) {
  const bool near = (z >= 0.5) & (z < 2.5);
  const bool low = z < 1.5;
  const double u = dsel(near, dsel(low, z + 1.0, z), 2.0) - 2.0;
  const double root = u * poly(lgamma_float_detail::kNearTwo, u);
  const bool shift = z < 10.0;
  const double zs = dsel(shift, z, 1.0);
  const double prod = ((zs * (zs + 1.0)) * ((zs + 2.0) * (zs + 3.0))) * ((zs + 4.0) * (zs + 5.0)) *
                      (((zs + 6.0) * (zs + 7.0)) * ((zs + 8.0) * (zs + 9.0)));
  const double t = dsel(shift, z + 10.0, z);
  const double r = 1.0 / t, r2 = r * r;
  double s = 1.0 / 156.0;
  s = s * r2 - 691.0 / 360360.0;
  s = s * r2 + 1.0 / 1188.0;
  s = s * r2 - 1.0 / 1680.0;
  s = s * r2 + 1.0 / 1260.0;
  s = s * r2 - 1.0 / 360.0;
  s = s * r2 + 1.0 / 12.0;
  const double stirling = ((t - 0.5) * log_normal_for_float(t) - t) + (0.91893853320467274178 + s * r);
  divisor = dsel(near, dsel(low, z, 1.0), dsel(shift, prod, 1.0));
  return dsel(near, root, stirling);
}

// sin(pi f) for |f| <= 1/2: pi f times its Taylor series in f^2 to degree 9 (truncation < 2e-16).
TL_ALWAYS_INLINE double sin_pi_for_float(double f) {
  constexpr double kPi2 = 9.869604401089358;  // pi^2
  const double z = f * f * kPi2;
  double p = -1.0 / 121645100408832000.0;  // -1/19!
  p = p * z + 1.0 / 355687428096000.0;
  p = p * z - 1.0 / 1307674368000.0;
  p = p * z + 1.0 / 6227020800.0;
  p = p * z - 1.0 / 39916800.0;
  p = p * z + 1.0 / 362880.0;
  p = p * z - 1.0 / 5040.0;
  p = p * z + 1.0 / 120.0;
  p = p * z - 1.0 / 6.0;
  return (3.141592653589793 * f) * (1.0 + z * p);
}

// lgamma for float inputs: the reflection lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below 0
// (sin of pi times x's exact distance f to the nearest integer; one log for both, log(divisor / sin);
// the result cancels next to the negative roots, absolute error ~1e-13 there); inf at the poles 0,
// -1, -2, ... (floats beyond 2^23 in magnitude are integers) and at ±inf, as PyTorch.
TL_ALWAYS_INLINE double lgamma_for_float(double x) {
  const bool neg = x < 0.0;
  const double xr = dsel(neg & (x > -4503599627370496.0), x, -0.25);
  const double f = dabs(xr - round_to_int(xr));  // in [0, 1/2]
  const double z = dsel(neg, 1.0 - x, x);
  double divisor;
  const double main = lgamma_parts_for_float(dsel((z < kInf) & (z > 0.0), z, 1.0), divisor);
  const double sin_pi = dsel(neg & (f > 0.0), sin_pi_for_float(f), 1.0);
  const double l = log_normal_for_float(divisor / sin_pi);
  const double r = dsel(neg, (1.1447298858494002 - main) + l, main - l);  // log(pi)
  const bool pole = (x == 0.0) | (neg & ((x <= -4503599627370496.0) | (f == 0.0))) | (dabs(x) == kInf);
  return dsel(disnan(x), x, dsel(pole, kInf, r));
}

// mvlgamma: sum_{j < p} lgamma(x - j/2) + c, c = p (p - 1) / 4 log(pi); P > 0: p known at compile
// time (unrolled, so the caller's loop vectorizes), else the run-time p.
template <int P = 0>
TL_ALWAYS_INLINE double mvlgamma_for_float(double x, int64_t p, double c) {
  double sum = c;
  if constexpr (P > 0) {
#pragma GCC unroll 8
    for (int j = 0; j < P; ++j) sum += lgamma_for_float(x - 0.5 * j);
  } else {
    for (int64_t j = 0; j < p; ++j) sum += lgamma_for_float(x - 0.5 * static_cast<double>(j));
  }
  return sum;
}

// ---- digamma, trigamma

// sum_{k < 10} 1 / (z + k) and sum_{k < 10} 1 / (z + k)^2 for z > 0, as fractions summed pairwise
// (one division each instead of ten).
TL_ALWAYS_INLINE void shift_sums(double z, double& s1, double& s2) {
  double n1 = 0.0, d1 = 1.0, n2 = 0.0, d2 = 1.0;
#pragma GCC unroll 10
  for (int k = 0; k < 10; k += 2) {
    const double a = z + k, b = z + (k + 1);
    const double pn = a + b, pd = a * b;          // 1/a + 1/b
    const double qn = a * a + b * b, qd = pd * pd;  // 1/a^2 + 1/b^2
    n1 = n1 * pd + pn * d1;
    d1 = d1 * pd;
    n2 = n2 * qd + qn * d2;
    d2 = d2 * qd;
  }
  s1 = n1 / d1;
  s2 = n2 / d2;
}

// pi / tan(pi f) and (pi / sin(pi f))^2 for f in [-1/2, 1/2].
TL_ALWAYS_INLINE void reflection_terms(double f, double& cot, double& csc2) {
  const double s = sin_f64(3.141592653589793 * f), c = cos_f64(3.141592653589793 * f);
  cot = 3.141592653589793 * c / s;
  csc2 = 9.869604401089358 / (s * s);
}

// digamma for float inputs: reflection psi(x) = psi(1 - x) - pi / tan(pi x) below 0, the shift
// psi(z) = psi(z + 10) - sum_{k < 10} 1 / (z + k) below 10 and the asymptotic series log t - 1/(2t) -
// sum B_2k / (2k t^2k) to B14 (truncation < 5e-17 from t = 10). PyTorch's conventions: -inf at +0,
// +inf at -0, nan at the negative integers (floats beyond 2^23 in magnitude are integers) and -inf.
TL_ALWAYS_INLINE double digamma_for_float(double x) {
  const bool neg = x < 0.0;
  const double xr = dsel(neg & (x > -4503599627370496.0), x, -0.25);
  const double f = xr - round_to_int(xr);
  double cot, csc2;
  reflection_terms(f, cot, csc2);
  const double z = dsel(neg, 1.0 - x, x);
  const double zs = dsel((z > 0.0) & (z < 10.0), z, 10.0);
  double s1, s2;
  shift_sums(zs, s1, s2);
  const bool shift = z < 10.0;
  const double t = dsel(shift, z + 10.0, dsel(z < kInf, z, 10.0));
  const double r2 = 1.0 / (t * t);
  double a = 1.0 / 12.0;  // B14 / 14
  a = a * r2 - 691.0 / 32760.0;
  a = a * r2 + 1.0 / 132.0;
  a = a * r2 - 1.0 / 240.0;
  a = a * r2 + 1.0 / 252.0;
  a = a * r2 - 1.0 / 120.0;
  a = a * r2 + 1.0 / 12.0;
  const double psi = (log_f64(t) - 0.5 / t - a * r2) - dsel(shift, s1, 0.0);
  const double r = dsel(neg, psi - cot, psi);
  const bool nan_at = (neg & ((x <= -4503599627370496.0) | (f == 0.0))) | (x == -kInf);
  const double special = dsel(x == 0.0, dflip(-kInf, dsign(x)), dsel(x == kInf, kInf, kNaN));
  return dsel(disnan(x), x, dsel(nan_at | (x == 0.0) | (x == kInf), special, r));
}

// trigamma for float inputs: reflection psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x) below 0, the
// shift psi'(z) = psi'(z + 10) + sum_{k < 10} 1 / (z + k)^2 below 10 and the asymptotic series 1/t +
// 1/(2t^2) + sum B_2k / t^(2k+1) to B14 (truncation < 1e-15 relative from t = 10). +inf at the poles
// 0, -1, -2, ... (as polygamma(1, x) for float64 here), 0 at +inf, nan at -inf.
TL_ALWAYS_INLINE double trigamma_for_float(double x) {
  const bool neg = x < 0.0;
  const double xr = dsel(neg & (x > -4503599627370496.0), x, -0.25);
  const double f = xr - round_to_int(xr);
  double cot, csc2;
  reflection_terms(f, cot, csc2);
  const double z = dsel(neg, 1.0 - x, x);
  const double zs = dsel((z > 0.0) & (z < 10.0), z, 10.0);
  double s1, s2;
  shift_sums(zs, s1, s2);
  const bool shift = z < 10.0;
  const double t = dsel(shift, z + 10.0, dsel(z < kInf, z, 10.0));
  const double r = 1.0 / t, r2 = r * r;
  double b = 7.0 / 6.0;
  b = b * r2 - 691.0 / 2730.0;
  b = b * r2 + 5.0 / 66.0;
  b = b * r2 - 1.0 / 30.0;
  b = b * r2 + 1.0 / 42.0;
  b = b * r2 - 1.0 / 30.0;
  b = b * r2 + 1.0 / 6.0;
  const double tail = r * (1.0 + r * (0.5 + b * r));
  const double psi1 = tail + dsel(shift, s2, 0.0);
  const double res = dsel(neg, csc2 - psi1, psi1);
  const bool pole = (x == 0.0) | (neg & ((x <= -4503599627370496.0) | (f == 0.0)));
  const double special = dsel(x == -kInf, kNaN, dsel(x == kInf, 0.0, kInf));
  return dsel(disnan(x), x, dsel(pole | (dabs(x) == kInf), special, res));
}

// ---- Bessel functions of the first kind, j0 and j1, for float inputs

// sin x and cos x for |x| <= kTrigFastMax, for float results: x - q pi/2 with pi/2 in two parts (the
// first of 33 bits, so q times it is exact; reduced-argument error < 2^-60 absolute), then Taylor
// series to degree 15 / 16 (truncation < 2^-57 on |y| <= pi/4).
TL_ALWAYS_INLINE void sincos_for_float(double x, double& s, double& c) {
  const double t = x * 0.6366197723675814 + kRoundMagic;
  const uint64_t q = double_to_bits(t);
  const double qd = t - kRoundMagic;
  const double y = (x - qd * 1.5707963267341256) - qd * 6.077100506506192e-11;
  const double z = y * y;
  double ps = -1.0 / 1307674368000.0;  // -1/15!
  ps = ps * z + 1.0 / 6227020800.0;
  ps = ps * z - 1.0 / 39916800.0;
  ps = ps * z + 1.0 / 362880.0;
  ps = ps * z - 1.0 / 5040.0;
  ps = ps * z + 1.0 / 120.0;
  ps = ps * z - 1.0 / 6.0;
  const double sk = y + (y * z) * ps;
  double pc = 1.0 / 20922789888000.0;  // 1/16!
  pc = pc * z - 1.0 / 87178291200.0;
  pc = pc * z + 1.0 / 479001600.0;
  pc = pc * z - 1.0 / 3628800.0;
  pc = pc * z + 1.0 / 40320.0;
  pc = pc * z - 1.0 / 720.0;
  pc = pc * z + 1.0 / 24.0;
  const double ck = (1.0 - 0.5 * z) + (z * z) * pc;
  s = dflip(dsel((q & 1) != 0, ck, sk), (q & 2) << 62);
  c = dflip(dsel((q & 1) != 0, sk, ck), ((q + 1) & 2) << 62);
}

// Cephes' rational approximations (double precision), evaluated branch-free: |x| <= 5 a rational in
// z = x^2 times the factors (z - r1^2)(z - r2^2) of the first two zeros (z exact for float x, so the
// result keeps its relative accuracy next to them); beyond, Hankel's form sqrt(2 / (pi x)) (P cos(x -
// phase) - (5/x) Q sin(x - phase)) with P, Q rationals in 25 / x^2, cos and sin of x - phase formed
// from sin x and cos x (an exactly reduced x, no rounding of x - phase). The kernels send blocks
// holding |x| > kTrigFastMax, inf or nan to libm's j0 / j1.
namespace bessel_j_float_detail {
// Hankel's P and Q rationals multiplied out to polynomials in z = x^2 (Cephes' in 25 / x^2, times
// z^degree in numerator and denominator: no division for 25 / x^2).
constexpr double kJ0PPz[7] = {1.0, 132.58100955884873, 5466.978126248856, 85113.28172793261, 484192.85799380584, 808937.8829174227, 194564.63117611012};
constexpr double kJ0PQz[7] = {1.0, 132.65132205884868, 5476.193020231684, 85484.02192662767, 489659.1558635115, 836219.2132367915, 225685.74476534757};
constexpr double kJ0QPz[8] = {-6.050143506007285, -1285.2633169164983, -91923.44072184448, -2776268.249695126, -36408599.6923347, -190956586.18919528, -313116988.9416731, -69374901.67142893};
constexpr double kJ0QQz[8] = {242.0057402402914, 51552.332915081955, 3706704.382420731, 113132308.4680707, 1516563217.2086, 8363574472.431451, 15702594143.510204, 6103515625.0};
constexpr double kJ1PPz[7] = {1.0, 130.3628996705904, 5265.028688386077, 79876.24236668869, 440310.9692565818, 714254.9384188649, 186065.82426957352};
constexpr double kJ1PQz[7] = {1.0, 130.24571217059048, 5249.909714547526, 79279.12283259399, 431696.22122680355, 672320.223393062, 139483.18556458707};
constexpr double kJ1QPz[8] = {25.207020585802372, 5292.218927514304, 373431.0077503835, 11107129.765608221, 143273284.90630892, 740467074.3481888, 1216342463.2598472, 311805782.92857456};
constexpr double kJ1QQz[8] = {336.0936078106983, 70654.81962940977, 4998151.002795941, 149411233.18824315, 1947816634.1314595, 10316883402.174105, 18124347583.878788, 6103515625.0};
constexpr double kJ0RP[4] = {-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
                             9.70862251047306323952e+15};
constexpr double kJ0RQ[9] = {1.0, 4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
                             1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
                             3.18121955943204943306e+16, 1.71086294081043136091e+18};
constexpr double kJ1RP[4] = {-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
                             3.68295732863852883286e+15};
constexpr double kJ1RQ[9] = {1.0, 6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
                             2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
                             8.95222336184627338078e+16, 5.32278620332680085395e+18};

// c[0] t^(N-1) + ... + c[N-1] (Cephes' order, highest degree first).
template <int N>
TL_ALWAYS_INLINE double polevl(const double (&c)[N], double t) {
  double p = c[0];
#pragma GCC unroll 16
  for (int k = 1; k < N; ++k) p = p * t + c[k];
  return p;
}
}  // namespace bessel_j_float_detail

// order 0 or 1, for |x| <= kTrigFastMax (odd order: the sign of x applied).
template <int nu>
TL_ALWAYS_INLINE double bessel_j_for_float(double x) {
  using namespace bessel_j_float_detail;
  const double ax = dabs(x);
  const double xs = dsel(ax <= 5.0, ax, 5.0);
  const double z = xs * xs;
  // small: num_s / den_s; large: (P/PQ) cp - w (Q/QQ) sp over sqrt(pi x), as one fraction (one
  // division for both ranges).
  const double num_s = (nu == 0 ? (z - 5.78318596294678452118) * (z - 30.4712623436620863991)
                                : xs * (z - 14.6819706421238932572) * (z - 49.2184563216946036703)) *
                       (nu == 0 ? polevl(kJ0RP, z) : polevl(kJ1RP, z));
  const double den_s = nu == 0 ? polevl(kJ0RQ, z) : polevl(kJ1RQ, z);
  const double xl = dsel(ax <= 5.0, 5.0, ax);
  const double zl = xl * xl;
  const double pp = nu == 0 ? polevl(kJ0PPz, zl) : polevl(kJ1PPz, zl);
  const double pq = nu == 0 ? polevl(kJ0PQz, zl) : polevl(kJ1PQz, zl);
  const double qp = nu == 0 ? polevl(kJ0QPz, zl) : polevl(kJ1QPz, zl);
  const double qq = nu == 0 ? polevl(kJ0QQz, zl) : polevl(kJ1QQz, zl);
  double s, c;
  sincos_for_float(xl, s, c);
  // phase pi/4: cos = (c + s) / sqrt 2, sin = (s - c) / sqrt 2; phase 3 pi/4: (s - c), -(s + c).
  const double cp = nu == 0 ? c + s : s - c;
  const double sp = nu == 0 ? s - c : -(s + c);
  // (P cp - (5/x) Q sp) sqrt(2 / (pi x)) / sqrt(2), times x / x (below 1e180 up to x = 2^20).
  const double num_l = xl * (pp * qq) * cp - 5.0 * (qp * pq) * sp;
  const double den_l = xl * (pq * qq) * std::sqrt(3.141592653589793 * xl);
  const double r = dsel(ax <= 5.0, num_s, num_l) / dsel(ax <= 5.0, den_s, den_l);
  return nu == 0 ? r : dsel(x < 0.0, -r, r);
}

// ---- Hurwitz zeta

// e^e for float results: 0 below e^-110 (far below float's subnormals; exp_for_float would clamp
// there), e^100 (inf as a float) above e^100.
TL_ALWAYS_INLINE double exp_or_zero_for_float(double e) { return dsel(e < -110.0, 0.0, exp_for_float(e)); }

// zeta(s, q) for s > 1 and q > 0 (finite; the kernel sends other blocks to zeta_f64), for float
// results: Euler-Maclaurin with a fixed shape, the 9 terms (q + k)^-s, then at a = q + 9 the integral
// a^(1-s) / (s - 1), a^-s / 2 and the terms B_2j / (2j)! s (s+1) ... (s+2j-2) a^(-s-2j+1) to j = 6.
// The tail's relative weight in the sum is below (q / a)^s, so its truncation (a power series in
// s / (2 pi a)) stays below 1e-12 of the result for every s, q (checked on a dense grid). Returns
// e^log_scale zeta(s, q) (polygamma's n!, folded into the exponents so that no term underflows first).
TL_ALWAYS_INLINE double zeta_for_float(double s, double q, double log_scale = 0.0) {
  double sum = 0.0;
#pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) sum += exp_or_zero_for_float(log_scale - s * log_normal_for_float(q + k));
  const double a = q + 9.0;
  const double la = log_normal_for_float(a);
  const double as = exp_or_zero_for_float(log_scale - s * la);
  // a^(1-s) on its own: a^-s may be below e^-110 where a^(1-s) / (s - 1) still counts (q ~ 1e22).
  const double a1s = exp_or_zero_for_float(log_scale + (1.0 - s) * la);
  const double inv_a2 = 1.0 / (a * a);
  double u = s * as * (a * inv_a2);  // s a^(-s-1)
  double tail = 0.08333333333333333 * u;
  constexpr double kB[5] = {-0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
                            2.08767569878681e-08, -5.284190138687493e-10};
#pragma GCC unroll 5
  for (int j = 0; j < 5; ++j) {
    u = u * ((s + (2 * j + 1)) * (s + (2 * j + 2))) * inv_a2;
    tail += kB[j] * u;
  }
  return sum + (a1s / (s - 1.0) + 0.5 * as + tail);
}

}  // namespace tl::native::vec
