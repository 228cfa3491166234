// Special functions in double for the kernels of SpecialOps.cpp: erfcx, erfinv / ndtri (one
// solver), log_ndtr, the modified Bessel functions i0, i0e, i1, i1e, digamma, the Hurwitz zeta
// function (and through it polygamma). See VecMathCommon.h for the rules of the vectorizable ones
// and docs/vecmath.md for the algorithms and the measured errors.
//
// erfcx, erfinv, ndtri, log_ndtr and the Bessel functions are branch-free (every path is computed
// and the lanes pick theirs with dsel), so a math_kernel loop over them vectorizes. digamma and
// zeta loop a data-dependent number of times (the shift up to the asymptotic range): they are
// plain scalar functions, as PyTorch's.
#pragma once
#include <cmath>

#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathErf.h"
#include "aten/native/cpu/VecMathExpLog.h"

namespace tl::native::vec {

constexpr double kTwoOverSqrtPi = 1.1283791670955126;
constexpr double kOneOverSqrtPi = 0.56418958354775628695;
constexpr double kSqrtPiOverTwo = 0.88622692545275801365;
constexpr double kSqrtTwo = 1.4142135623730950488;
constexpr double kOneOverSqrtTwo = 0.70710678118654752440;

// e^(x^2) = E * E * c, without the rounding of x^2 (2^-43 relative at |x| = 27): x^2 = h + l
// split exactly (h the square of x's top 26 bits, |l| < 2^-25 x^2), E = e^(h/2) (finite for
// |x| < 37.7, so products such as q e^(x^2) with a tiny q can be formed without overflow) and
// c = e^l by its Taylor series.
TL_ALWAYS_INLINE double exp_x2_half(double x, double& c) {
  const double xh = bits_to_double(double_to_bits(x) & 0xFFFFFFFFF8000000ULL);
  const double h = xh * xh;
  const double l = (x - xh) * (x + xh);
  c = 1.0 + l * (1.0 + l * (0.5 + l * (1.0 / 6.0)));
  return exp_f64(0.5 * h);
}

TL_ALWAYS_INLINE double exp_x2(double x) {
  double c;
  const double e = exp_x2_half(x, c);
  return e * e * c;
}

// erfcx(x) = e^(x^2) erfc(x) for x >= 12: the asymptotic series
// 1 / (x sqrt(pi)) * sum (-1)^k (2k - 1)!! / (2 x^2)^k to k = 12 (truncation < 2^-59 at x = 12).
TL_ALWAYS_INLINE double erfcx_asymptotic(double x) {
  const double z = 0.5 / (x * x);  // 0 for huge x (x * x = inf)
  double s = 316234143225.0;
  s = s * -z + 13749310575.0;
  s = s * -z + 654729075.0;
  s = s * -z + 34459425.0;
  s = s * -z + 2027025.0;
  s = s * -z + 135135.0;
  s = s * -z + 10395.0;
  s = s * -z + 945.0;
  s = s * -z + 105.0;
  s = s * -z + 15.0;
  s = s * -z + 3.0;
  s = s * -z + 1.0;
  s = s * -z + 1.0;
  return s * (kOneOverSqrtPi / x);
}

// erfcx: e^(x^2) erfc(x) below 1/2 (overflowing to inf below -26.6), erfc(x) e^(x^2) from the
// erfc tail on [1/2, 12) (e^-x^2 and e^(x^2) both exact to 1 ulp, no underflow before 27),
// the asymptotic series from 12 on.
TL_ALWAYS_INLINE double erfcx_f64(double x) {
  const double xs = dsel(x < 0.5, x, 0.0);
  const double xm = dsel(x < 0.5, 0.5, dsel(x < 12.0, x, 12.0));
  const double xb = dsel(x < 12.0, 12.0, x);
  const double low = exp_x2(xs) * erfc_f64(xs);
  const double mid = erfc_tail(xm) * exp_x2(xm);
  const double big = erfcx_asymptotic(xb);
  const double r = dsel(x < 0.5, dsel(x < -27.0, kInf, low), dsel(x < 12.0, mid, big));
  return dsel(disnan(x), x, r);
}

// Giles' single-precision approximation of erfinv ("Approximating the erfinv function", GPU
// Computing Gems, 2011): erfinv(x) ~ x p(w), w = -log((1 - x)(1 + x)), relative error < 4e-7
// for w < 16. A first guess for the Halley steps of erfinv_solve.
TL_ALWAYS_INLINE double erfinv_guess_over_x(double w) {
  const double a = w - 2.5;
  double p = 2.81022636e-08;
  p = p * a + 3.43273939e-07;
  p = p * a - 3.5233877e-06;
  p = p * a - 4.39150654e-06;
  p = p * a + 0.00021858087;
  p = p * a - 0.00125372503;
  p = p * a - 0.00417768164;
  p = p * a + 0.246640727;
  p = p * a + 1.50140941;
  const double b = std::sqrt(dsel(w < 5.0, 5.0, w)) - 3.0;
  double q = -0.000200214257;
  q = q * b + 0.000100950558;
  q = q * b + 0.00134934322;
  q = q * b - 0.00367342844;
  q = q * b + 0.00573950773;
  q = q * b - 0.0076224613;
  q = q * b + 0.00943887047;
  q = q * b + 1.00167406;
  q = q * b + 2.83297682;
  return dsel(w < 5.0, p, q);
}

// The y >= 0 with erf(y) = a (`central`, 0 <= a < 1/2) or erfc(y) = q (otherwise, 0 < q <= 1/2
// given exactly: erfinv passes 1 - |x|, ndtri 2p). Guess: Giles' polynomial while
// w = -log(q (2 - q)) < 16, else the asymptotic y^2 = L - log(sqrt(pi) y) + log(1 - 1/(2y^2)),
// L = -log q, iterated twice (relative error < 3e-4 for L >= 16). Then Halley steps on the
// residual r = erf(y) - a (or q - erfc(y), which does not cancel): with f' = 2/sqrt(pi) e^-y^2
// and f''/f' = -2y, y -= d / (1 + y d), d = r / f'. Each step cubes the relative error: two
// steps reach double precision from either guess. d is formed as ((r E) E) c sqrt(pi)/2 with
// e^(y^2) = E E c (exp_x2_half), which stays finite even for q near the subnormals. (Float results
// use the direct fits of VecMathSpecialFloat.h instead.)
// `far_tail`: q may be below 5.6e-8 (w > 16), where the asymptotic guess is needed.
template <bool far_tail = true>
TL_ALWAYS_INLINE double erfinv_solve(bool central, double a, double q) {
  const double w = dsel(central, -log1p_f64(-(a * a)), -log_f64(q * (2.0 - q)));
  const double x = dsel(central, a, 1.0 - q);
  const double giles = x * erfinv_guess_over_x(w);
  double y = giles;
  if constexpr (far_tail) {
    const double L = -log_f64(q);
    const double Ls = dsel(L > 8.0, L, 8.0);  // keeps the unused lanes' logs finite
    double t = std::sqrt(Ls);
    t = std::sqrt(Ls - log_f64(1.7724538509055160 * t) + log1p_f64(-0.5 / (t * t)));
    t = std::sqrt(Ls - log_f64(1.7724538509055160 * t) + log1p_f64(-0.5 / (t * t)));
    y = dsel(central | (w < 16.0), giles, t);
  }
#pragma GCC unroll 2
  for (int step = 0; step < 2; ++step) {
    const double r = dsel(central, erf_f64(y) - a, q - erfc_f64(y));
    double c;
    const double e = exp_x2_half(y, c);
    // From y = 12 on (q < 1e-64) the residual is taken as q e^(y^2) - erfcx(y): erfc(y) would
    // become subnormal (and lose its digits) before y = 27.3, where q reaches the subnormals.
    const double yb = dsel(y < 12.0, 12.0, y);
    const double scaled = ((q * e) * e) * c - erfcx_asymptotic(yb);
    const double d = dsel((y < 12.0) | central, ((r * e) * e) * c, scaled) * kSqrtPiOverTwo;
    y = y - d / (1.0 + y * d);
  }
  return y;
}

// Below this q (w = -log(q (2 - q)) > 16) the solver needs its far-tail guess; the kernels run
// blocks holding such inputs through the `far_tail` variant (math_kernel's rare/slow pair), so
// ordinary data skips its logs.
constexpr double kErfinvFarTailQ = 5.6e-8;

template <bool far_tail = true>
TL_ALWAYS_INLINE double erfinv_f64(double x) {
  const double a = dabs(x);
  const bool central = a < 0.5;
  const double q = dsel(central, 0.5, 1.0 - a);  // exact for a >= 1/2
  const double y = erfinv_solve<far_tail>(central, dsel(central, a, 0.0), dsel(q > 0.0, q, 0.5));
  const double r = dsel(a < 1.0, y, dsel(a == 1.0, kInf, kNaN));
  return dcopysign(dsel(disnan(x), x, r), x);
}

// ndtri(p) = sqrt(2) erfinv(2p - 1): 2p - 1 is exact for p in [1/4, 3/4]; below, erfc(y) = 2p
// (exact); above, erfc(y) = 2(1 - p) (exact), so neither tail loses digits to 1 - p.
template <bool far_tail = true>
TL_ALWAYS_INLINE double ndtri_f64(double p) {
  const double x = 2.0 * p - 1.0;
  const bool central = dabs(x) < 0.5;
  const double qt = dsel(p < 0.5, 2.0 * p, 2.0 * (1.0 - p));
  const double q = dsel(central | !(qt > 0.0), 0.5, qt);
  const double y = erfinv_solve<far_tail>(central, dsel(central, dabs(x), 0.0), q);
  const double signed_y = dsel(central, dcopysign(y, x), dsel(p < 0.5, -y, y));
  const double r = dsel((p > 0.0) & (p < 1.0), kSqrtTwo * signed_y,
                        dsel(p == 0.0, -kInf, dsel(p == 1.0, kInf, kNaN)));
  return dsel(disnan(p), p, r);
}

// log(ndtr(x)): log(erfcx(-x / sqrt(2)) / 2) - x^2 / 2 below -1 (no underflow), else
// log1p(-erfc(x / sqrt(2)) / 2) (no cancellation near 0 in the upper tail). There the result is
// about -erfc(t) / 2, whose relative error is 2 t^2 times that of t = x / sqrt(2): t's rounding
// error tl (exact product, Dekker) is put back by erfc(th + tl) = erfc(th) (1 - tl (2/sqrt(pi)) /
// erfcx(th)), with 1 / erfcx(z) ~ sqrt(pi) (z + sqrt(z^2 + 4/pi)) / 2 (the correction is below
// 2^-46 relative, so that approximation's 1% error does not matter).
TL_ALWAYS_INLINE double log_ndtr_f64(double x) {
  constexpr double kC = kOneOverSqrtTwo;
  constexpr double kCLo = -4.833646656726457e-17;  // 1/sqrt(2) - kC
  constexpr double kC1 = 0.7071067690849304;       // kC's top 26 bits
  constexpr double kC2 = kC - kC1;                 // exact
  const double t = x * kC;
  const double xh = bits_to_double(double_to_bits(x) & 0xFFFFFFFFF8000000ULL);
  const double xl = x - xh;
  const double tl = (((xh * kC1 - t) + xh * kC2 + xl * kC1) + xl * kC2) + x * kCLo;
  const double lo = log_f64(0.5 * erfcx_f64(-dsel(x < -1.0, t, -1.0))) - 0.5 * x * x;
  const double th = dsel(x < -1.0, 0.0, t);
  const double corr = 1.0 - tl * (th + std::sqrt(th * th + 1.2732395447351628));
  const double hi = log1p_f64(-0.5 * erfc_f64(th) * dsel(th < 27.0, corr, 1.0));  // erfc = 0 beyond
  return dsel(x < -1.0, lo, hi);
}

// Modified Bessel functions of the first kind, orders 0 and 1 (even and odd in x). |x| < 24:
// their power series in y = x^2 / 4 to degree 40 (i0 = sum y^k / k!^2, i1 = x/2 sum y^k /
// (k! (k+1)!)); positive terms, no cancellation; truncation < 2^-64 at 24. |x| >= 24: the
// asymptotic series e^x / sqrt(2 pi x) sum d_k / x^k to degree 32, d_k = prod_{j<=k} ((2j-1)^2 -
// 4 nu^2) / (8j) (truncation < 2^-64 at 24). Coefficients computed with mpmath, rounded once.
namespace bessel_detail {
constexpr double kI0Series[41] = {
    1.0, 1.0, 0.25, 0.027777777777777776,
    0.001736111111111111, 6.944444444444444e-05, 1.9290123456790124e-06, 3.936759889140842e-08,
    6.151187326782565e-10, 7.594058428126624e-12, 7.594058428126623e-14, 6.276081345559193e-16,
    4.358389823304995e-18, 2.5789288895295828e-20, 1.3157800456783586e-22, 5.8479113141260385e-25,
    2.2843403570804838e-27, 7.904291893012054e-30, 2.4395962632753253e-32, 6.757884385804225e-35,
    1.6894710964510564e-37, 3.8310002187098785e-40, 7.915289708078262e-43, 1.4962740468957016e-45,
    2.5976979980828152e-48, 4.156316796932504e-51, 6.14839762859838e-54, 8.434015951438106e-57,
    1.0757673407446564e-59, 1.2791526049282477e-62, 1.4212806721424974e-65, 1.4789601166935458e-68,
    1.4442969889585408e-71, 1.3262598613026087e-74, 1.147283617043779e-77, 9.365580547296156e-81,
    7.226528200074194e-84, 5.278691161485898e-87, 3.6556032974279072e-90, 2.4034209713529963e-93,
    1.5021381070956227e-96,
};
constexpr double kI1Series[41] = {
    1.0, 0.5, 0.08333333333333333, 0.006944444444444444,
    0.00034722222222222224, 1.1574074074074073e-05, 2.755731922398589e-07, 4.920949861426052e-09,
    6.834652585313961e-11, 7.594058428126623e-13, 6.903689480115112e-15, 5.230067787965994e-17,
    3.352607556388458e-19, 1.842092063949702e-21, 8.771866971189057e-24, 3.654944571328774e-26,
    1.3437296218120491e-28, 4.391273273895586e-31, 1.2839980333028028e-33, 3.3789421929021126e-36,
    8.045100459290744e-39, 1.7413637357772174e-41, 3.4414303078601135e-44, 6.234475195398757e-47,
    1.0390791992331261e-49, 1.5985833834355786e-52, 2.2771843068882885e-55, 3.0121485540850376e-58,
    3.7095425542919185e-61, 4.263842016427493e-64, 4.5847763617499917e-67, 4.6217503646673306e-70,
    4.376657542298608e-73, 3.900764297948849e-76, 3.2779531915536543e-79, 2.60155015202671e-82,
    1.9531157297497823e-85, 1.3891292530226046e-88, 9.373341788276685e-92, 6.00855242838249e-95,
    3.6637514807210306e-98,
};
constexpr double kI0Asym[33] = {
    1.0, 0.125, 0.0703125, 0.0732421875,
    0.112152099609375, 0.22710800170898438, 0.5725014209747314, 1.7277275025844574,
    6.074042001273483, 24.380529699556064, 110.01714026924674, 551.3358961220206,
    3038.090510922384, 18257.755474293175, 118838.42625678325, 832859.3040162893,
    6252951.493434797, 50069589.531988926, 425939216.5047669, 3836255180.2304335,
    36468400807.06556, 364901081884.98334, 3833534661393.9443, 42189715702840.97,
    485401468685290.06, 5827244631566907.0, 7.286857349377656e+16, 9.47628809926011e+17,
    1.2797219419759747e+19, 1.792162323051699e+20, 2.599382102726235e+21, 3.900121292034e+22,
    6.046711487532402e+23,
};
constexpr double kI1Asym[33] = {
    1.0, -0.375, -0.1171875, -0.1025390625,
    -0.144195556640625, -0.2775764465332031, -0.6765925884246826, -1.993531733751297,
    -6.883914268109947, -27.248827311268542, -121.59789187653587, -603.8440767050702,
    -3302.2722944808525, -19718.37591223663, -127641.2726461746, -890297.8767070678,
    -6656367.718817688, -53104110.10968523, -450278600.3050393, -4043620325.107754,
    -38338575207.427895, -382701134659.8606, -4011838599133.1978, -44064814178522.79,
    -506056850331472.6, -6065091351222699.0, -7.572616461117957e+16, -9.83388387659068e+17,
    -1.3262572853205555e+19, -1.8550452115798288e+20, -2.687496750276277e+21, -4.027994121281017e+22,
    -6.2386705823747e+23,
};
// For float results: sqrt(2 pi x) e^-x i_nu(x) on x >= 15 as polynomials of degree 8 in
// t = (1/x - 1/30) * 30 (our fits against mpmath, 5e-14 relative).
constexpr double kI0AsymForFloat[9] = {
    0x1.01165fcacf09cp+0, 0x1.1be134a5290f6p-8,  0x1.6dbf59ac18bfdp-14, 0x1.c588f55397ccdp-19, 0x1.aec5ac6065530p-23,
    0x1.1a7e6186f1a88p-26, 0x1.e331eb2f012bap-30, 0x1.1cd3a100134e9p-32, 0x1.9373f1dc49950p-35};
constexpr double kI1AsymForFloat[9] = {
    0x1.f98802b603942p-1,  -0x1.a2883645df1ebp-7,  -0x1.2b7937f8419e2p-13, -0x1.37d2fe39017f1p-18,
    -0x1.0fe3724229d9dp-22, -0x1.52dfa15e8390ap-26, -0x1.181c52ab33d6ep-29, -0x1.414648a263e90p-32,
    -0x1.bf14a04dd4502p-35};
}  // namespace bessel_detail

constexpr double kBesselAsymptoticFrom = 24.0;
// For float results (~2^-40 relative, see docs/vecmath.md): series to degree 24 below 15, a fit of
// degree 8 in 1/x from 15.
constexpr double kBesselAsymptoticFromForFloat = 15.0;

// sum_{k < N} c[k] z^k.
template <int N>
TL_ALWAYS_INLINE double horner(const double* c, double z) {
  double p = c[N - 1];
#pragma GCC unroll 64
  for (int k = N - 2; k >= 0; --k) p = p * z + c[k];
  return p;
}

// sum_{k < N} c[k] t^k, unrolled (a loop left rolled inside a math_kernel lambda stops GCC from
// vectorizing the caller's loop), as two Horner chains in t^2 (even and odd terms): half the
// dependency chain of one Horner sum.
template <int N>
TL_ALWAYS_INLINE double poly_n(const double* c, double t) {
  const double t2 = t * t;
  double even = 0.0, odd = 0.0;
#pragma GCC unroll 64
  for (int k = N - 1; k >= 0; --k) {
    if (k % 2 == 0) {
      even = even * t2 + c[k];
    } else {
      odd = odd * t2 + c[k];
    }
  }
  return even + t * odd;
}
template <int N>
TL_ALWAYS_INLINE double poly(const double (&c)[N], double t) {
  return poly_n<N>(&c[0], t);
}

// The series part (|x| below the threshold) and the scaled asymptotic part e^-|x| i_nu(|x|) (from
// the threshold on) of one order, each computed on an argument kept inside its range.
template <int nu, bool for_float>
TL_ALWAYS_INLINE void bessel_i_parts(double ax, double& series, double& scaled_asym) {
  using namespace bessel_detail;
  constexpr double from = for_float ? kBesselAsymptoticFromForFloat : kBesselAsymptoticFrom;
  constexpr int ns = for_float ? 25 : 41, na = 33;
  const double xs = dsel(ax < from, ax, 0.0);
  const double xa = dsel(ax < from, from, ax);  // nan stays nan
  const double y = 0.25 * xs * xs;
  if constexpr (for_float) {  // two Horner chains (VecMathSpecialFloat.h): a shorter dependency chain
    series = nu == 0 ? poly_n<ns>(kI0Series, y) : 0.5 * xs * poly_n<ns>(kI1Series, y);
  } else {
    series = nu == 0 ? horner<ns>(kI0Series, y) : 0.5 * xs * horner<ns>(kI1Series, y);
  }
  const double r = 1.0 / xa;
  // float results: the fit of degree 8 in (1/x - 1/30) * 30 instead of the series of degree 22.
  const double s = for_float ? (nu == 0 ? poly(kI0AsymForFloat, (r - 0.03333333333333333) * 30.0)
                                        : poly(kI1AsymForFloat, (r - 0.03333333333333333) * 30.0))
                             : (nu == 0 ? horner<na>(kI0Asym, r) : horner<na>(kI1Asym, r));
  // 0 at inf; float results: 1 / sqrt(2 pi x) as sqrt(r / (2 pi)) (one division less)
  scaled_asym = for_float ? s * std::sqrt(r * 0.15915494309189535) : s / std::sqrt(6.283185307179586 * xa);
}

// i_nu(|x|), overflowing only where the result does (e^|x| applied in two halves).
template <int nu, bool for_float>
TL_ALWAYS_INLINE double bessel_i_abs(double ax) {
  double series, asym;
  bessel_i_parts<nu, for_float>(ax, series, asym);
  const double e = exp_f64(0.5 * ax);
  return dsel(ax < (for_float ? kBesselAsymptoticFromForFloat : kBesselAsymptoticFrom), series, (asym * e) * e);
}

template <int nu, bool for_float>
TL_ALWAYS_INLINE double bessel_ie_abs(double ax) {
  double series, asym;
  bessel_i_parts<nu, for_float>(ax, series, asym);
  return dsel(ax < (for_float ? kBesselAsymptoticFromForFloat : kBesselAsymptoticFrom), series * (for_float ? exp_for_float(-ax) : exp_f64(-ax)), asym);
}

template <bool for_float = false>
TL_ALWAYS_INLINE double i0_f64(double x) { return bessel_i_abs<0, for_float>(dabs(x)); }
template <bool for_float = false>
TL_ALWAYS_INLINE double i0e_f64(double x) { return bessel_ie_abs<0, for_float>(dabs(x)); }
// Odd, but i1(-0) = +0 (as PyTorch).
template <bool for_float = false>
TL_ALWAYS_INLINE double i1_f64(double x) {
  const double r = bessel_i_abs<1, for_float>(dabs(x));
  return dsel(x < 0.0, -r, r);
}
template <bool for_float = false>
TL_ALWAYS_INLINE double i1e_f64(double x) {
  const double r = bessel_ie_abs<1, for_float>(dabs(x));
  return dsel(x < 0.0, -r, r);
}

// ---- scalar functions (data-dependent loops)

// digamma: -inf at +0 and +inf at -0, nan at negative integers (PyTorch's conventions);
// reflection psi(x) = psi(1 - x) - pi / tan(pi x) below 0 (tan of pi times x's exact fractional
// part); then psi(x) = psi(x + n) - sum 1 / (x + k) up to x + n >= 10, and the asymptotic series
// log x - 1/(2x) - sum B_2k / (2k x^2k) to k = 8 (truncation < 2^-56 at 10).
inline double digamma_f64(double x) {
  constexpr double kDigammaAsym[8] = {
      0.08333333333333333, -0.008333333333333333, 0.003968253968253968, -0.004166666666666667,
      0.007575757575757576, -0.021092796092796094, 0.08333333333333333, -0.4432598039215686,
  };
  if (x == 0.0) return std::copysign(kInf, -x);
  double acc = 0.0;
  if (x < 0.0) {
    if (x == std::floor(x)) return kNaN;
    const double f = x - std::nearbyint(x);  // exact, in [-1/2, 1/2]
    acc = -3.141592653589793 / std::tan(3.141592653589793 * f);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  double s = kDigammaAsym[7];
  for (int k = 6; k >= 0; --k) s = s * z + kDigammaAsym[k];
  return acc + (std::log(x) - 0.5 / x - s * z);
}

// trigamma psi'(x) = sum_{k >= 0} 1 / (x + k)^2: +inf at the poles 0, -1, -2, ..., 0 at +inf, nan at
// -inf (PyTorch's conventions); reflection psi'(x) = pi^2 / sin(pi x)^2 - psi'(1 - x) below 1/2 (sin of
// pi times x's exact fractional part), the shift up to x + n >= 10 and the asymptotic series
// 1/x + 1/(2x^2) + sum B_2k / x^(2k+1) to k = 9 (truncation < 2^-57 at 10). Faster than zeta(2, x)
// (no pow) and accurate, unlike a short series.
inline double trigamma_f64(double x) {
  constexpr double kB[9] = {0.16666666666666666, -0.03333333333333333, 0.023809523809523808,
                            -0.03333333333333333, 0.07575757575757576, -0.2531135531135531,
                            1.1666666666666667, -7.092156862745098, 54.971177944862156};
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0.0 ? 0.0 : kNaN;
  if (x <= 0.0 && x == std::floor(x)) return kInf;
  double reflected = 0.0, sign = 1.0;
  if (x < 0.5) {
    const double s = std::sin(3.141592653589793 * (x - std::nearbyint(x)));
    reflected = 9.869604401089358 / (s * s);
    sign = -1.0;
    x = 1.0 - x;
  }
  double acc = 0.0;
  while (x < 10.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  double p = kB[8];
  for (int k = 7; k >= 0; --k) p = p * z + kB[k];
  const double tail = (1.0 + (0.5 + p / x) / x) / x;  // 1/x + 1/(2x^2) + sum B_2k x^-(2k+1)
  return reflected + sign * (acc + tail);
}

// The Hurwitz zeta function sum_{k >= 0} (q + k)^-s, by Euler-Maclaurin: the terms up to
// a = q + n >= 9 (at least 9 of them; stopping early when they no longer change the sum, as
// they do for large s), then a^(1-s) / (s - 1) + a^-s / 2 + sum_j B_2j / (2j)! s(s+1)...(s+2j-2)
// a^(-s-2j+1) to j = 12 or until the terms no longer change the sum. PyTorch's conventions:
// inf at s = 1 and at integer q <= 0 (q = -inf included), nan for s < 1, for q < 0 with a
// non-integer s and for q = +inf.
inline double zeta_f64(double s, double q) {
  constexpr double kBernoulliOverFactorial[12] = {
      0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
      2.08767569878681e-08, -5.284190138687493e-10, 1.3382536530684679e-11, -3.3896802963225827e-13,
      8.586062056277845e-15, -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19,
  };
  constexpr double kTiny = 1.1102230246251565e-16;  // 2^-53
  // One branch, the value by a select: bool or integer s (0s and 1s at random) would mispredict.
  if (s <= 1.0) return dsel(s == 1.0, kInf, kNaN);
  if (q <= 0.0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;
  }
  if (q == kInf) return kNaN;
  double sum = std::pow(q, -s);
  double a = q;
  double term = 0.0;
  int n = 0;
  while (n < 9 || a <= 9.0) {
    ++n;
    a += 1.0;
    term = std::pow(a, -s);
    sum += term;
    if (std::fabs(term) < kTiny * std::fabs(sum)) return sum;
    if (!(a < 1e300)) break;  // nan or inf q
  }
  sum += std::pow(a, 1.0 - s) / (s - 1.0) - 0.5 * term;  // not a * term: a^-s may underflow first
  double rising = 1.0;  // s (s+1) ... (s+2j-2)
  double power = term;   // a^(-s-2j+1)
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    rising *= s + k;
    power /= a;
    const double t = kBernoulliOverFactorial[j] * rising * power;
    sum += t;
    if (std::fabs(t) < kTiny * std::fabs(sum)) break;
    k += 1.0;
    rising *= s + k;
    power /= a;
    k += 1.0;
  }
  return sum;
}

}  // namespace tl::native::vec
