// 16-bit floating point storage types. Arithmetic happens in float: each value
// converts to float on read and rounds back (round-to-nearest-even) on write.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

namespace tl {

namespace detail {
inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;
  struct from_bits_t {};
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float f) : x(from_float(f)) {}
  operator float() const { return to_float(x); }

  static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) return sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u);  // nan / inf
    if (u >= 0x477ff000u) return sign | 0x7c00u;                                 // overflow -> inf
    if (u < 0x38800000u) {                                                       // subnormal or zero
      // Add 0.5 in the target's lowest subnormal bit position and let the FPU round.
      float v = detail::bits_f32(u) + 0.5f;
      return sign | static_cast<uint16_t>(detail::f32_bits(v) - 0x3f000000u);
    }
    uint32_t mant_odd = (u >> 13) & 1u;
    u += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return sign | static_cast<uint16_t>(u >> 13);
  }
  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::bits_f32(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      if (mant == 0) return detail::bits_f32(sign);
      float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
      return sign ? -v : v;
    }
    return detail::bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
  }
};

struct alignas(2) BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float f) : x(from_float(f)) {}
  operator float() const { return detail::bits_f32(static_cast<uint32_t>(x) << 16); }

  static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // canonical quiet nan
    u += 0x7fffu + ((u >> 16) & 1u);                        // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << static_cast<float>(h); }

}  // namespace tl
