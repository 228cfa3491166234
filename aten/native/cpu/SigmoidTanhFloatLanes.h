// float32 sigmoid, tanh and silu computed in float lanes, within 1 ulp of the correctly rounded result for every
// float (checked exhaustively by tools/check_float_lanes_ulp.cpp; docs/vecmath.md has the figures).
//
// The double-computed sigmoid_for_float / tanh_for_float (VecMathHyperbolic.h) round once from ~2^-50 and are
// correctly rounded, but run in double lanes: half the lanes of a float vector, a degree-11 exp and a double
// division. These run 8 (AVX2) or 16 (AVX-512) lanes per instruction. A plain float formula
// (1 / (1 + expf(-x))) is 2-3 ulp: the rounding of 1 + e and the exp's own error reach the result at full
// weight. So the parts that must be exact are kept as float pairs (hi + lo):
//   e^t = 2^k (ph + pl), t <= 0: k = round(t / ln2); r1 = t - k ln2_hi exact (a 16-bit head: k ln2_hi is
//     exact); e^r = (1 + r1) + (k ln2_lo's and 1 + r1's rounding terms + r^2 P(r)), 1 + r1 summed exactly
//     (Fast2Sum), P a degree-5 fit (relative error 1e-8, times r^2 <= 0.12), then normalized into ph + pl.
//   S = p / (1 + e) as q + c: 1 + e exactly as dh + dl (Fast2Sum, 1 >= e), q = p / dh, and the correction
//     c = (p - q dh + pl - q dl) / dh with the remainder by fma (exact).
// Then sigmoid(x) = 2^k S for x < 0 (t = x) and 1 - 2^k S for x >= 0 (t = -x); tanh(|x|) = 1 - 2^(k+1) S with
// t = -2|x| for |x| >= 0.55 (where tanh >= 1/2, so 1 - q does not cancel), |x| + |x|^3 Q(x^2) below (Q a
// degree-5 fit); silu(x) = x times the same pair by one fma. 1 - q is summed with its rounding error, so each
// result rounds once (subnormal results twice, still within 1 ulp). Branch-free float code (GCC vectorizes
// loops calling these inside TL_TARGET_CLONES functions: float_lanes_kernel in VecMathLoops.h); the fmas are
// __builtin_fmaf (an instruction in the AVX2 / AVX-512 clones, libm's exact fmaf in the baseline clone), and
// no result depends on fma contraction (mul_rn below). Special values: nan stays nan, sigmoid(+-inf) = 1 / 0,
// tanh(+-inf) = +-1, tanh(-0) = -0, large |x| saturates, subnormal inputs give 0.5 (sigmoid) and x (tanh).
#pragma once
#include <cstdint>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native::vec {
namespace float_lanes_detail {

// a * b rounded, as an fma with a zero addend: GCC never contracts it into a later addition, so the results do
// not depend on which products the compiler fuses (-ffp-contract=fast fuses a * b + c in the FMA clones only).
// Every other product whose result is added is written as an explicit fma or is exact (a power-of-two scaling
// of a normal float): the same bits in every clone, contiguous or strided, eager or fused.
TL_ALWAYS_INLINE float mul_rn(float a, float b) { return __builtin_fmaf(a, b, 0.0f); }

TL_ALWAYS_INLINE float fabs_bits(float x) { return bits_to_float(float_to_bits(x) & 0x7fffffffu); }

// c ? a : b on floats through an integer mask (GCC leaves a `?:` on floats as control flow here).
TL_ALWAYS_INLINE float fsel(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return bits_to_float((float_to_bits(a) & m) | (float_to_bits(b) & ~m));
}

// 2^k for an integer k in [-126, 127].
TL_ALWAYS_INLINE float pow2i(int32_t k) { return bits_to_float(static_cast<uint32_t>(k + 127) << 23); }

// For t in [-104, 0] (or nan): e^t = 2^k (ph + pl), pl below half an ulp of ph, relative error below 2^-27;
// returns k.
TL_ALWAYS_INLINE int32_t exp_split(float t, float& ph, float& pl) {
  // k = round(t / ln2) through the 1.5 * 2^23 shifter; k also sits in the shifted value's low mantissa bits
  // (read as an integer: no float -> int conversion, which nan would make undefined).
  const float shifted = __builtin_fmaf(t, 1.44269504088896341f, 12582912.0f);
  const float k = shifted - 12582912.0f;
  const int32_t ki = static_cast<int32_t>(float_to_bits(shifted) & 0x7fffffu) - 0x400000;
  // r = t - k ln2 = r1 - k lo: the head 0.693145751953125 (16 bits) gives r1 = t - k head exactly (|k| <= 150,
  // |r1| <= 0.35); the float tail lo makes k ln2 good to 2^-33.
  const float r1 = __builtin_fmaf(-k, 0.693145751953125f, t);
  const float r = __builtin_fmaf(-k, 1.42860682030941723e-6f, r1);  // rounded: only the polynomial sees it
  // e^r = 1 + r1 - k lo + r^2 P(r): 1 + r1 exactly as h + e1 (1 >= |r1|), the small terms added to e1.
  float p = 1.99076079e-4f;
  p = __builtin_fmaf(p, r, 1.39336695e-3f);
  p = __builtin_fmaf(p, r, 8.33328627e-3f);
  p = __builtin_fmaf(p, r, 4.16664630e-2f);
  p = __builtin_fmaf(p, r, 1.66666672e-1f);
  p = __builtin_fmaf(p, r, 0.5f);
  const float h = 1.0f + r1;
  const float e1 = (1.0f - h) + r1;
  const float lo = __builtin_fmaf(r * r, p, __builtin_fmaf(-k, 1.42860682030941723e-6f, e1));
  // normalized (Fast2Sum, |lo| <= 0.07 < h): the quotient's first-order correction needs pl << ph.
  ph = h + lo;
  pl = (h - ph) + lo;
  return ki;
}

// For t in [-104, 0] (or nan): S = e^r' / (1 + e^t) as q + c, where e^t = 2^k e^r' (k returned).
TL_ALWAYS_INLINE int32_t exp_ratio(float t, float& q, float& c) {
  float ph, pl;
  const int32_t k = exp_split(t, ph, pl);
  // e = 2^k p; below 2^-126 it adds nothing to 1 + e, so the scale is clamped to a normal power of two.
  const float s = pow2i(k < -126 ? -126 : k);
  const float eh = ph * s;     // exact: a normal float
  const float dh = 1.0f + eh;  // 1 + e = dh + dl (Fast2Sum: 1 >= eh)
  const float dl = __builtin_fmaf(pl, s, (1.0f - dh) + eh);
  const float inv = 1.0f / dh;
  q = mul_rn(ph, inv);
  const float rem = __builtin_fmaf(-q, dh, ph);  // p - q dh, exact
  c = mul_rn(__builtin_fmaf(-q, dl, rem + pl), inv);
  return k;
}

// 1 - 2^m (q + c) = h + hl for 2^m (q + c) <= 1/2: the head's subtraction is exact or its error kept.
TL_ALWAYS_INLINE float one_minus(float q, float c, int32_t m, float& hl) {
  const float s = pow2i(m < -126 ? -126 : m);  // below 2^-126 the result is 1 either way
  const float qh = q * s;  // exact: a normal float
  const float h = 1.0f - qh;
  hl = __builtin_fmaf(-c, s, (1.0f - h) - qh);
  return h;
}

// v 2^k for k in [-189, 0] in two steps, 2^(k + 64) (a normal float) then 2^-64, so that a subnormal result
// rounds once more (within 1 ulp) instead of flushing.
TL_ALWAYS_INLINE float scale2(float v, int32_t k) { return (v * pow2i(k + 64)) * 0x1p-64f; }

}  // namespace float_lanes_detail

TL_ALWAYS_INLINE float sigmoid_float_lanes(float x) {
  using namespace float_lanes_detail;
  const bool neg = x < 0.0f;
  float t = -fabs_bits(x);
  t = fsel(t < -104.0f, -104.0f, t);  // sigmoid(-104) < 2^-150 rounds to 0; nan passes
  float q, c;
  const int32_t k = exp_ratio(t, q, c);
  const float low = scale2(q + c, k);  // x < 0: 2^k (q + c)
  float hl;
  const float h = one_minus(q, c, k, hl);
  return fsel(neg, low, h + hl);  // nan: high is nan
}

TL_ALWAYS_INLINE float tanh_float_lanes(float x) {
  using namespace float_lanes_detail;
  const float ax = fabs_bits(x);
  // |x| >= 0.55: 1 - 2 e / (1 + e), e = e^-2|x|; tanh rounds to 1 beyond 9.02, so t is clamped at -20.
  float t = -2.0f * ax;
  t = fsel(t < -20.0f, -20.0f, t);
  float q, c;
  const int32_t k = exp_ratio(t, q, c);
  float hl;
  const float big = one_minus(q, c, k + 1, hl) + hl;
  // |x| < 0.55: |x| + |x|^3 Q(x^2).
  const float z = x * x;
  float p = 2.53033661e-3f;
  p = __builtin_fmaf(p, z, -8.52934364e-3f);
  p = __builtin_fmaf(p, z, 2.18192525e-2f);
  p = __builtin_fmaf(p, z, -5.39647900e-2f);
  p = __builtin_fmaf(p, z, 1.33333251e-1f);
  p = __builtin_fmaf(p, z, -3.33333343e-1f);
  const float small = __builtin_fmaf(ax, z * p, ax);
  // x's sign on the magnitude (tanh(-0) = -0: the polynomial's fma would give +0); nan stays nan.
  const float mag = fsel(ax < 0.55f, small, big);
  return fsel(ax == ax, bits_to_float(float_to_bits(mag) | (float_to_bits(x) & 0x80000000u)), x);
}

// silu(x) = x sigmoid(x) from the same parts, rounded once (x times a float pair by one fma): x < 0 gives
// 2^k x (q + c), x >= 0 gives x (h + hl). Below x = -120 the result rounds to -0 (t is clamped there, so the
// formula would not see x's size); silu(inf) = inf, silu(-inf) = nan as PyTorch's x / (1 + e^-x).
TL_ALWAYS_INLINE float silu_float_lanes(float x) {
  using namespace float_lanes_detail;
  const bool neg = x < 0.0f;
  float t = -fabs_bits(x);
  t = fsel(t < -120.0f, -120.0f, t);
  float q, c;
  const int32_t k = exp_ratio(t, q, c);
  const float low = scale2(__builtin_fmaf(x, q, x * c), k);
  float hl;
  const float h = one_minus(q, c, k, hl);
  const float high = __builtin_fmaf(x, h, x * hl);
  const float res = fsel(neg, fsel(x < -120.0f, -0.0f, low), high);
  return fsel(fabs_bits(x) == __builtin_inff(), fsel(neg, x - x, x), res);  // inf: inf; -inf: nan
}

}  // namespace tl::native::vec
