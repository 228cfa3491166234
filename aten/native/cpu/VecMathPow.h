// Vectorizable pow for float32 / float16 / bfloat16 results, computed in double:
// |x|^y = e^(y log|x|): log in double (1 ulp), exp to 2^-40 (exp_for_float), so the double
// result is within 2^-39 (relative) and rounds correctly to float except in near-halfway cases. Not
// accurate enough for float64 results: those use libm's pow (see PowOps.cpp).
#pragma once
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathExpLog.h"

namespace tl::native::vec {

// True where pow_f32_via_f64 is not valid: an infinite or nan base or exponent (libm's special
// cases: pow(1, nan) = 1, pow(-1, ±inf) = 1, pow(-inf, y), ...).
TL_ALWAYS_INLINE bool pow_needs_libm(double x, double y) { return !disfinite(x) | !disfinite(y); }

// pow(x, y) for finite x, y. Zero bases come out right through log(0) = -inf; a negative base
// takes the sign of an odd integer exponent and gives nan for a non-integer one.
TL_ALWAYS_INLINE double pow_finite_for_float(double x, double y) {
  const double l = log_f64(dabs(x));
  const double e = exp_for_float(y * l);  // |y l| error < 2^-46 where it matters
  // y integral, and odd: |y| >= 2^52 is always even; below, compare with rounding.
  const double ay = dabs(y);
  const bool huge = ay >= 4503599627370496.0;
  const double yr = dsel(huge, 0.0, y);
  const bool y_int = huge | (round_to_int(yr) == yr);
  const double half = 0.5 * yr;
  const bool y_odd = !huge & y_int & (round_to_int(half) != half);
  double res = dsel(y_odd & (dsign(x) != 0), -e, e);
  res = dsel((x < 0.0) & !y_int, kNaN, res);
  return dsel(y == 0.0, 1.0, res);
}

}  // namespace tl::native::vec
