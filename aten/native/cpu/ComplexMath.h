// Element functions of complex numbers with PyTorch's (c10::complex's) results where the C++
// library's differ: the product and quotient are written out (std::complex's follow C's Annex G
// through a library call per element; c10's are the plain formulas, the quotient Smith's scaled
// form so that |c|, |d| near the overflow threshold do not overflow). The transcendental functions
// are the C library's (glibc's cexp, clog, csqrt, ... are what PyTorch's CPU kernels call too),
// except log1p and expm1, which PyTorch computes with its own formulas to keep precision near 0.
#pragma once
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace tl::native::cmath {

template <typename T>
inline std::complex<T> mul(std::complex<T> x, std::complex<T> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

// (a + bi) / (c + di), scaled by the larger of |c|, |d| (Smith's algorithm). A zero divisor gives
// a / 0 and b / 0 part by part (inf or nan), as c10::complex.
template <typename T>
inline std::complex<T> div(std::complex<T> x, std::complex<T> y) {
  const T a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  const T abs_c = std::abs(c), abs_d = std::abs(d);
  if (abs_c >= abs_d) {
    if (abs_c == T(0) && abs_d == T(0)) return {a / abs_c, b / abs_d};
    const T rat = d / c;
    const T scl = T(1) / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const T rat = c / d;
  const T scl = T(1) / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

template <typename T>
inline std::complex<T> reciprocal(std::complex<T> x) {
  return div(std::complex<T>(T(1), T(0)), x);
}

// log(1 + z) with u = 1 + z rounded: log(u) * z / (u - 1) corrects the rounding of u (Kahan's
// trick, which PyTorch's CPU kernel uses); exact when u - 1 == z, z itself when u rounds to 1.
template <typename T>
inline std::complex<T> log1p(std::complex<T> z) {
  const std::complex<T> u(z.real() + T(1), z.imag());
  if (u.real() == T(1) && u.imag() == T(0)) return z;
  const std::complex<T> log_u = std::log(u);
  const std::complex<T> um1(u.real() - T(1), u.imag());
  if (um1 == z) return log_u;
  return mul(log_u, div(z, um1));
}

// exp(z) - 1 = expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y) (no cancellation near 0).
template <typename T>
inline std::complex<T> expm1(std::complex<T> z) {
  const T x = z.real(), y = z.imag();
  const T h = std::sin(y / T(2));
  return {std::expm1(x) * std::cos(y) - T(2) * h * h, std::exp(x) * std::sin(y)};
}

// log(z) / log(b), each part divided by the real log(b), as PyTorch's log2 (log2(0) = -inf + 0i,
// not the complex quotient's nan imaginary part).
template <typename T>
inline std::complex<T> log_base(std::complex<T> z, double log_b) {
  return std::log(z) / static_cast<T>(log_b);
}

template <typename T>
inline std::complex<T> rsqrt(std::complex<T> z) {
  return reciprocal(std::sqrt(z));
}

template <typename T>
inline std::complex<T> sigmoid(std::complex<T> z) {
  return div(std::complex<T>(T(1), T(0)), std::complex<T>(T(1), T(0)) + std::exp(-z));
}

// acos: PyTorch's complex128 kernel computes pi/2 - asin(z) (real part pi/2 - re, imaginary part
// 0 - im), which differs from the C library's cacos near 1 (acos(1 + 1e-38i) is -1e-19i there, not
// 1e-19 - 1e-19i); its complex64 kernel calls the C library. Both followed.
template <typename T>
inline std::complex<T> acos(std::complex<T> z) {
  if constexpr (std::is_same_v<T, double>) {
    const std::complex<double> a = std::asin(z);
    return {1.57079632679489661923 - a.real(), 0.0 - a.imag()};
  } else {
    return std::acos(z);
  }
}

// log(exp(x) + exp(y)) as PyTorch's CPU kernel: the operand with the smaller real part is folded in through
// log1p(exp(min - max)) + max; a NaN in either part of either operand gives nan + nan i; both real parts -inf
// give the smaller operand, both +inf log(exp(min) + exp(max)).
template <typename T>
inline std::complex<T> logaddexp(std::complex<T> x, std::complex<T> y) {
  auto has_nan = [](std::complex<T> z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
  std::complex<T> lo, hi;
  if (has_nan(y)) lo = hi = y;
  else if (has_nan(x)) lo = hi = x;
  else if (x.real() < y.real()) lo = x, hi = y;
  else lo = y, hi = x;
  if (has_nan(lo)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
  if (!std::isfinite(lo.real()) && lo.real() == hi.real()) {
    if (lo.real() < 0) return lo;
    return std::log(std::exp(lo) + std::exp(hi));
  }
  return log1p(std::exp(lo - hi)) + hi;
}

}  // namespace tl::native::cmath
