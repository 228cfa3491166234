// A number passed to an op: bool, integer, floating point or complex. Python ints become
// Int (UInt64 for those in [2**63, 2**64), as in PyTorch), Python floats Double, Python complex
// numbers Complex; the tag decides type promotion against tensors.
#pragma once
#include <complex>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "aten/core/ScalarType.h"

namespace tl {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double, UInt64, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(Half v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(BFloat16 v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(std::complex<double> v) : tag_(Tag::Complex), im_(v.imag()) { v_.d = v.real(); }
  Scalar(std::complex<float> v) : Scalar(std::complex<double>(v)) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }

  // An integer above INT64_MAX (a Python int in [2**63, 2**64)): integral; as int64 it wraps, as a
  // double it is exact (rounded), and checked conversions to any integer dtype refuse it.
  static Scalar from_uint64(uint64_t v) {
    Scalar s(static_cast<int64_t>(v));
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) s.tag_ = Tag::UInt64;
    return s;
  }

  Tag tag() const { return tag_; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_integral() const { return tag_ == Tag::Int || tag_ == Tag::UInt64; }  // not bool
  bool is_floating_point() const { return tag_ == Tag::Double; }
  bool is_complex() const { return tag_ == Tag::Complex; }
  bool is_uint64() const { return tag_ == Tag::UInt64; }  // above INT64_MAX
  uint64_t to_uint64_bits() const { return static_cast<uint64_t>(v_.i); }

  // Of a complex number: its real part (conversions to real types drop the imaginary part, as casts do).
  double to_double() const {
    if (tag_ == Tag::Double || tag_ == Tag::Complex) return v_.d;
    return tag_ == Tag::UInt64 ? static_cast<double>(to_uint64_bits()) : static_cast<double>(v_.i);
  }
  // A double outside int64 (nan, inf included) gives INT64_MIN, as x86's conversion does, with no
  // undefined behaviour. Ops that must reject such values check them first (checked_scalar_cast).
  int64_t to_long() const {
    if (tag_ != Tag::Double && tag_ != Tag::Complex) return v_.i;
    return v_.d >= -9223372036854775808.0 && v_.d < 9223372036854775808.0 ? static_cast<int64_t>(v_.d)
                                                                          : std::numeric_limits<int64_t>::min();
  }
  bool to_bool() const {
    if (tag_ == Tag::Complex) return v_.d != 0 || im_ != 0;
    return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0;
  }
  std::complex<double> to_complex() const {
    return tag_ == Tag::Complex ? std::complex<double>(v_.d, im_) : std::complex<double>(to_double(), 0.0);
  }
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (is_complex_v<T>) return static_cast<T>(to_complex());
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_long());
    else return static_cast<T>(to_double());
  }

  // The dtype a tensor made from this scalar would have: bool, int64 or the default float.
  ScalarType type() const {
    switch (tag_) {
      case Tag::Bool: return ScalarType::Bool;
      case Tag::Int: return ScalarType::Int64;
      case Tag::Complex: return ScalarType::Complex128;
      default: return ScalarType::Float64;
    }
  }
  bool equal(double v) const { return to_double() == v && (tag_ != Tag::Complex || im_ == 0); }

 private:
  Tag tag_;
  union {
    double d;  // Double, and the real part of Complex
    int64_t i;
  } v_;
  double im_ = 0;  // the imaginary part of Complex
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) return os << (s.to_bool() ? "True" : "False");
  if (s.is_uint64()) return os << s.to_uint64_bits();
  if (s.is_integral()) return os << s.to_long();
  if (s.is_complex()) return os << "(" << s.to_double() << (s.to_complex().imag() < 0 ? "" : "+") << s.to_complex().imag() << "j)";
  return os << s.to_double();
}

}  // namespace tl
