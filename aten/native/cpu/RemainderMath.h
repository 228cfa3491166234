// Vectorizable fmod, remainder and floor division of float32 / float16 / bfloat16 values,
// computed in double (for math_kernel, VecMathLoops.h), exact where they apply.
//
// When |a| < 2^24 |b| the quotient a / b rounded to double and truncated is the exact integer
// quotient q (the true quotient is at least 2^-24 away from the next integer, the rounding error
// below 2^-29), and a - q * b is exact (q has 24 bits, b 24): the results are bit for bit those of
// libm's fmod and of PyTorch's floor division. Pairs for which `fmod_needs_libm` holds (huge
// quotients, b of 0, inf or nan) must take the scalar formulas instead.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native {

TL_ALWAYS_INLINE bool fmod_needs_libm(double a, double b) {
  return !(std::fabs(a) < 16777216.0 * std::fabs(b)) || !(std::fabs(b) <= DBL_MAX);
}

// `adjusted` where `take`, else `value`, on the bits (a select GCC vectorizes).
TL_ALWAYS_INLINE double select_bits(bool take, double adjusted, double value) {
  uint64_t vb, ab;
  std::memcpy(&vb, &value, sizeof vb);
  std::memcpy(&ab, &adjusted, sizeof ab);
  const uint64_t mask = uint64_t(0) - static_cast<uint64_t>(take);
  const uint64_t bits = vb ^ ((vb ^ ab) & mask);
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// trunc(x) that vectorizes (GCC leaves std::trunc scalar under -ftrapping-math): adding and
// subtracting 2^52 rounds |x| to an integer, one less if that went up; |x| >= 2^52, inf and nan
// are integers (or nan) already and come back as they are.
TL_ALWAYS_INLINE double trunc_vectorizable(double x) {
  const double ax = std::fabs(x);
  double r = (ax + 4503599627370496.0) - 4503599627370496.0;
  r -= static_cast<double>(r > ax);
  return select_bits(ax < 4503599627370496.0, std::copysign(r, x), x);
}

TL_ALWAYS_INLINE double fmod_small_quotient(double a, double b) {
  return std::copysign(a - trunc_vectorizable(a / b) * b, a);  // the sign of a, zeros included
}

// fmod + b where the signs differ (a zero remainder keeps its sign); r + b is exact then.
TL_ALWAYS_INLINE double remainder_small_quotient(double a, double b) {
  const double r = fmod_small_quotient(a, b);
  return select_bits((r != 0.0) & ((r < 0.0) != (b < 0.0)), r + b, r);
}

// floor(a / b) as PyTorch's div(rounding_mode="floor"): the truncated quotient, one less where
// the remainder and b differ in sign; a zero quotient takes the sign of a / b. PyTorch computes
// it in float and rounds the quotient to the nearest integer, which is exact only below 2^22:
// larger quotients take its scalar formula (`floor_divide_needs_scalar`).
TL_ALWAYS_INLINE bool floor_divide_needs_scalar(double a, double b) {
  return !(std::fabs(a) < 2097152.0 * std::fabs(b)) || !(std::fabs(b) <= DBL_MAX);
}
TL_ALWAYS_INLINE double floor_divide_small_quotient(double a, double b) {
  const double q = trunc_vectorizable(a / b);
  const double r = a - q * b;
  const double floored = q - static_cast<double>((r != 0.0) & ((r < 0.0) != (b < 0.0)));
  return select_bits(floored == 0.0, std::copysign(0.0, a / b), floored);
}

}  // namespace tl::native
