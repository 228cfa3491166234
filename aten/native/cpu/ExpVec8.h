// 8 float lanes in GCC vector types (one AVX2 register) and their exp, for the softmax and cross_entropy kernels on
// CPUs without AVX-512 (SoftmaxRowsVec.cpp, CrossEntropyRowsVec.cpp, CrossEntropyFewClasses.cpp). Include only from
// .cpp files whose callers are TL_TARGET_CLONES functions: these helpers are always inlined into the per-ISA clones.
//
// exp8: ExpAvx512.h's algorithm without the AVX-512 instructions. k = round(x / ln2) through the 1.5 * 2^23 shifter,
// r = x - k ln2 (ln2 in two floats), exp(r) = 1 + r + r^2 P(r) (its degree-4 minimax P; 0.91 ulp worst case with
// FMA), times 2^k in two halves read from the shifter's low bits (normal floats for every k in [-150, 128], so
// subnormal results are right and 2^128 overflows to inf). x is clamped to [-104, 88.7228394] (below, the result
// rounds to 0); NaN passes the clamps (the comparisons are false) and stays NaN. Upper = false skips the upper
// clamp, for arguments known <= 0 or NaN (x - max(x)).
#pragma once
#include <cstdint>
#include <cstring>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vector arguments' baseline ABI never applies (always inlined)

namespace tl::native::vec8 {

typedef float vf __attribute__((vector_size(32)));
typedef int32_t vi __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;

inline __attribute__((always_inline)) vf splat(float v) { return vf{} + v; }
inline __attribute__((always_inline)) vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline __attribute__((always_inline)) void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
// The max ignoring NaN (max(v, acc) keeps acc when v is NaN).
inline __attribute__((always_inline)) vf vmax(vf v, vf acc) { return v > acc ? v : acc; }

template <bool Upper = true>
inline __attribute__((always_inline)) vf exp8(vf x) {
  x = x < splat(-104.0f) ? splat(-104.0f) : x;
  if constexpr (Upper) x = x > splat(88.7228394f) ? splat(88.7228394f) : x;
  const vf t = x * splat(1.44269504088896341f) + splat(12582912.0f);
  const vf k = t - splat(12582912.0f);
  vf r = x - k * splat(0.693359375f);
  r = r - k * splat(-2.12194440e-4f);
  vf p = splat(1.381461275741458e-3f);
  p = p * r + splat(8.368710055947304e-3f);
  p = p * r + splat(4.166838899254799e-2f);
  p = p * r + splat(1.666652113199234e-1f);
  p = p * r + splat(4.999999403953552e-1f);
  p = p * r + splat(1.0f);
  p = p * r + splat(1.0f);
  // (A cast between two vector types of one size reinterprets the bits.)
  const vi ki = ((vi)t & 0x7fffff) - 0x400000;
  const vi k1 = ki >> 1, k2 = ki - k1;
  const vi b1 = (k1 + 127) << 23, b2 = (k2 + 127) << 23;
  return p * (vf)b1 * (vf)b2;
}

}  // namespace tl::native::vec8

#pragma GCC diagnostic pop
