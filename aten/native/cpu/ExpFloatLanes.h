// exp in float lanes, for the kernels whose time is their exps (softmax, log_softmax and their backward).
//
// vec::exp_f32 (Vectorize.h) computes in double so that float results are correctly rounded; that halves
// the lanes per instruction and needs a degree-10 polynomial, which made softmax on 4096x1024 slower
// than PyTorch's. PyTorch's softmax uses a float exp of a few ulp (Vectorized<float>::exp_u20); this
// one is Cody-Waite reduction with ln2 split in two floats and a degree-6 minimax polynomial (the Cephes
// expf coefficients): within 2 ulp over the whole range, NaN kept, exp(-inf) = 0, exp(+inf) = inf,
// subnormal results down to exp(-103.97) (2^k applied in two steps so they do not flush to 0).
// Branch-free and without libm calls, so loops calling it vectorize (16 lanes with AVX-512).
#pragma once
#include <cstdint>
#include <cstring>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native::vec {

TL_ALWAYS_INLINE float exp_float_lanes(float x) {
  // Clamp to [-104, 88.7228394]: below, the result rounds to 0; at the top, p > 1 with k = 128 overflows
  // to inf. NaN passes (the comparisons are false: min/max instructions) and comes out as NaN.
  x = x < -104.0f ? -104.0f : x;
  x = x > 88.7228394f ? 88.7228394f : x;
  // k = round(x / ln2) through the 1.5 * 2^23 shifter; r = x - k ln2 in two steps, |r| <= ln2 / 2.
  const float t = x * 1.44269504088896341f + 12582912.0f;
  const float k = t - 12582912.0f;
  float r = x - k * 0.693359375f;
  r = r - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // 2^k = 2^k1 * 2^k2, k1 = k >> 1, each a normal float for k in [-150, 127].
  // k from the low mantissa bits of t (no float -> int conversion, which NaN would make undefined).
  int32_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const int32_t ki = (tb & 0x7fffff) - 0x400000;
  const int32_t k1 = ki >> 1, k2 = ki - k1;
  float s1, s2;
  const int32_t b1 = (k1 + 127) << 23, b2 = (k2 + 127) << 23;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}

}  // namespace tl::native::vec
