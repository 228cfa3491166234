// Samplers of PyTorch's CPU distributions, draw by draw: the same generator calls and the same
// arithmetic (including the fused multiply-adds PyTorch's AVX2 build contracts `a * b + c` into),
// so a seed gives PyTorch's numbers bit for bit. Each takes the generator, locked by the caller.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "aten/core/Generator.h"
#include "aten/core/Half.h"

namespace tl::native::dist {

// The accumulation type of a sample: double for double, float for everything else.
template <typename T> using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Mantissa bits (with the implicit one) of T: a uniform draw takes that many random bits.
template <typename T> constexpr int digits() { return std::numeric_limits<T>::digits; }
template <> constexpr int digits<Half>() { return 11; }
template <> constexpr int digits<BFloat16>() { return 8; }

// The largest finite value of a floating T.
template <typename T> constexpr double max_finite() { return std::numeric_limits<T>::max(); }
template <> constexpr double max_finite<Half>() { return 65504.0; }
template <> constexpr double max_finite<BFloat16>() { return 3.3895313892515355e38; }

// Uniform in [from, to): `digits` random bits scaled by 2^-digits, from a 64-bit draw for double
// and a 32-bit one otherwise. float16 and bfloat16 draw a float uniform (24 bits), as PyTorch 2.x.
template <typename T>
inline acc_t<T> uniform_real(CPUGenerator& g, acc_t<T> from, acc_t<T> to) {
  using A = acc_t<T>;
  const uint64_t bits = std::is_same_v<T, double> ? g.random64() : g.random();
  constexpr uint64_t mask = (uint64_t(1) << digits<A>()) - 1;
  constexpr A scale = A(1) / static_cast<A>(uint64_t(1) << digits<A>());
  const A x = static_cast<A>(bits & mask) * scale;
  return std::fma(x, to - from, from);
}

// A standard-normal pair by Box-Muller in double; the second sample is cached in the generator
// and returned by the next call (PyTorch's normal_distribution<double>).
inline double standard_normal(CPUGenerator& g) {
  if (g.next_double_normal) {
    double v = *g.next_double_normal;
    g.next_double_normal.reset();
    return v;
  }
  const double u1 = uniform_real<double>(g, 0.0, 1.0);
  const double u2 = uniform_real<double>(g, 0.0, 1.0);
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 6.283185307179586 * u1;  // 2 * pi, rounded once
  g.next_double_normal = r * std::sin(theta);
  return r * std::cos(theta);
}

inline double normal(CPUGenerator& g, double mean, double std) { return std::fma(standard_normal(g), std, mean); }

// Uniform integer in [base, base + range): one 32-bit draw, or a 64-bit one from a range of 2^28
// on (PyTorch 2.13's threshold, measured: it keeps the modulo bias of a 32-bit draw below 1/16).
template <typename T>
inline T int_from_to(CPUGenerator& g, uint64_t range, int64_t base) {
  const uint64_t v = range >= (uint64_t(1) << 28) ? g.random64() : g.random();
  return static_cast<T>(static_cast<int64_t>(v % range + static_cast<uint64_t>(base)));
}

// random_() without bounds: [0, max] of an integer T, [0, 2^digits] of a floating T, {0, 1} of bool.
template <typename T>
inline T int_full(CPUGenerator& g) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<bool>(g.random() & 1);
  } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
    constexpr uint64_t n = std::is_same_v<T, double> ? (uint64_t(1) << 53) + 1 : uint64_t(1) << 63;
    return static_cast<T>(static_cast<int64_t>(g.random64() % n));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(g.random() % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
  } else {
    return static_cast<T>(static_cast<float>(g.random() % ((uint64_t(1) << digits<T>()) + 1)));
  }
}

// Uniform over all of int64 (random_(from=INT64_MIN, to=None)).
template <typename T>
inline T int_full_64(CPUGenerator& g) { return static_cast<T>(static_cast<int64_t>(g.random64())); }

inline double bernoulli(CPUGenerator& g, double p) { return uniform_real<double>(g, 0.0, 1.0) < p; }
inline float bernoulli_float(CPUGenerator& g, float p) { return uniform_real<float>(g, 0.f, 1.f) < p; }

// The inverse-CDF transforms of the remaining distributions, in double as PyTorch's CPU kernels.
inline double exponential(CPUGenerator& g, double lambda) {
  return -1.0 / lambda * std::log(1.0 - uniform_real<double>(g, 0.0, 1.0));
}
inline double geometric(CPUGenerator& g, double p) {
  return std::ceil(std::log(uniform_real<double>(g, 0.0, 1.0)) / std::log(1.0 - p));
}
inline double cauchy(CPUGenerator& g, double median, double sigma) {
  return std::fma(sigma, std::tan(M_PI * (uniform_real<double>(g, 0.0, 1.0) - 0.5)), median);
}
inline double log_normal(CPUGenerator& g, double mean, double std) { return std::exp(normal(g, mean, std)); }

}  // namespace tl::native::dist
