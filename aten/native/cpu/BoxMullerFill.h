// The normal fill PyTorch uses for contiguous tensors of 16 or more elements: the whole buffer
// is first filled with uniforms, then each block of 16 becomes 8 Box-Muller pairs (j, j + 8);
// when the size is not a multiple of 16 the last 16 elements are drawn again and transformed
// once more. float32 uses PyTorch's AVX2 arithmetic (Cephes-style single-precision log and
// sincos, with the multiply-adds its compiler fuses), so the results are bit-identical; float16
// and bfloat16 are computed the same way in float32; float64 uses libm as PyTorch's scalar code.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "aten/native/cpu/Distributions.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native::dist {
namespace boxmuller {

TL_ALWAYS_INLINE uint32_t bits_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
TL_ALWAYS_INLINE float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Natural log of x in (0, 1] in single precision (Cephes logf: x = m * 2^e with m in
// [sqrt(1/2), sqrt(2)), a degree-9 polynomial in m - 1, ln 2 split in two parts).
TL_ALWAYS_INLINE float cephes_log(float x) {
  const int32_t biased = static_cast<int32_t>(bits_of(x) >> 23);
  float m = from_bits((bits_of(x) & ~0x7f800000u) | 0x3f000000u);  // mantissa in [0.5, 1)
  float e = static_cast<float>(biased - 0x7f) + 1.0f;
  const bool small = m < 0.707106781186547524f;
  const float add = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + add;
  const float z = m * m;
  float y = 7.0376836292E-2f;
  y = std::fma(y, m, -1.1514610310E-1f);
  y = std::fma(y, m, 1.1676998740E-1f);
  y = std::fma(y, m, -1.2420140846E-1f);
  y = std::fma(y, m, 1.4249322787E-1f);
  y = std::fma(y, m, -1.6668057665E-1f);
  y = std::fma(y, m, 2.0000714765E-1f);
  y = std::fma(y, m, -2.4999993993E-1f);
  y = std::fma(y, m, 3.3333331174E-1f);
  y = y * m;
  y = std::fma(y, z, e * -2.12194440e-4f);
  y = y - z * 0.5f;
  m = m + y;
  return m + e * 0.693359375f;
}

// sin and cos of x >= 0 in single precision (Cephes sinf/cosf: reduction by multiples of pi/4
// in three parts, one polynomial for each octant type).
TL_ALWAYS_INLINE void cephes_sincos(float x, float& s, float& c) {
  const uint32_t sign = bits_of(x) & 0x80000000u;
  x = std::fabs(x);
  int32_t j = static_cast<int32_t>(x * 1.27323954473516f);  // 4 / pi
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  const uint32_t sin_sign = sign ^ (static_cast<uint32_t>(j & 4) << 29);
  const uint32_t cos_sign = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  const bool sin_poly = (j & 2) == 0;
  x = x + y * -0.78515625f;
  x = x + y * -2.4187564849853515625e-4f;
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const float z = x * x;
  float pc = std::fma(2.443315711809948E-005f, z, -1.388731625493765E-003f);
  pc = std::fma(pc, z, 4.166664568298827E-002f);
  pc = pc * z;
  pc = std::fma(pc, z, -(z * 0.5f));
  pc = pc + 1.0f;
  float ps = std::fma(-1.9515295891E-4f, z, 8.3321608736E-3f);
  ps = std::fma(ps, z, -1.6666654611E-1f);
  ps = ps * z;
  ps = std::fma(ps, x, x);
  s = from_bits(bits_of(sin_poly ? ps : pc) ^ sin_sign);
  c = from_bits(bits_of(sin_poly ? pc : ps) ^ cos_sign);
}

// The 8 pairs of a block are independent and branch-free, so the loop runs as one vector of 8
// (the same operations per lane: the results do not change).
template <typename T>
TL_ALWAYS_INLINE void transform16(T* d, T mean, T std) {
#pragma omp simd
  for (int j = 0; j < 8; ++j) {
    if constexpr (std::is_same_v<T, float>) {
      const float r = std::sqrt(-2.0f * cephes_log(1.0f - d[j]));
      float s, c;
      cephes_sincos(static_cast<float>(2.0 * M_PI) * d[j + 8], s, c);
      d[j] = std::fma(r * c, std, mean);
      d[j + 8] = std::fma(r * s, std, mean);
    } else {  // double
      const double r = std::sqrt(-2.0 * std::log(1.0 - d[j]));
      const double theta = 2.0 * M_PI * d[j + 8];
      d[j] = std::fma(r * std::cos(theta), std, mean);
      d[j + 8] = std::fma(r * std::sin(theta), std, mean);
    }
  }
}

// Transforms the blocks of 16 of `data`; compiled for FMA hardware where there is some (std::fma
// is then one instruction, and the results are the same either way).
template <typename T>
TL_TARGET_CLONES void transform_blocks(T* data, int64_t blocks, T mean, T std) {
  for (int64_t b = 0; b < blocks; ++b) transform16(data + 16 * b, mean, std);
}

}  // namespace boxmuller

// Fills n >= 16 contiguous values with normal samples as PyTorch's normal_fill; `g` is locked.
// float32 and float64 first draw a uniform for every element, transform each block of 16, then
// draw the last 16 again; float16 and bfloat16 (computed in float) draw and transform block by
// block, the last block being the last 16 elements.
template <typename T>
void normal_fill(CPUGenerator& g, T* data, int64_t n, double mean, double std) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const T m = static_cast<T>(mean), s = static_cast<T>(std);
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(uniform_real<T>(g, 0, 1));
    boxmuller::transform_blocks(data, n / 16, m, s);
    if (n % 16 != 0) {
      T* tail = data + n - 16;
      for (int i = 0; i < 16; ++i) tail[i] = static_cast<T>(uniform_real<T>(g, 0, 1));
      boxmuller::transform_blocks(tail, 1, m, s);
    }
  } else {
    const float m = static_cast<float>(mean), s = static_cast<float>(std);
    float block[16];
    auto fill_block = [&](T* dst) {
      for (float& u : block) u = uniform_real<float>(g, 0.f, 1.f);
      boxmuller::transform_blocks(block, 1, m, s);
      for (int i = 0; i < 16; ++i) dst[i] = static_cast<T>(block[i]);
    };
    for (int64_t i = 0; i + 16 <= n; i += 16) fill_block(data + i);
    if (n % 16 != 0) fill_block(data + n - 16);
  }
}

}  // namespace tl::native::dist
