// Integer-division family beside div/floor_divide: fmod (C's truncated remainder), remainder
// (Python's floored remainder), gcd and lcm.
//
// Integer divisors of 0 raise RuntimeError "ZeroDivisionError" as PyTorch; x % -1 is 0 for every x
// (INT_MIN % -1 would trap in C++). Float16/bfloat16 compute in float and round once.
#include <atomic>
#include <cmath>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/RemainderMath.h"
#include "aten/native/cpu/VecMathLoops.h"

namespace tl::native {
namespace {

TensorIterator binary_iter(Tensor& out, const Tensor& self, const Tensor& other, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_input(other).build();
}

TensorIterator scalar_iter(Tensor& out, const Tensor& self, const Scalar& other, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_scalar(other).build();
}

[[noreturn]] void zero_division(const char* op) { throw RuntimeError(str(op, ": ZeroDivisionError")); }

void check_not_bool(ScalarType t, const char* kernel_name, const char* op) {
  if (t == ScalarType::Bool) throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for 'Bool'"));
}

// a % b with C's sign (that of a); b != 0.
template <typename T>
inline T fmod_integer(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

// a % b with Python's sign (that of b); b != 0.
template <typename T>
inline T remainder_integer(T a, T b) {
  const T r = fmod_integer(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
  }
  return r;
}

template <typename T>
inline T remainder_floating(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) mod += b;
  return mod;
}

enum class Rem { Fmod, Remainder };

template <Rem kind, typename T>
inline T rem_integer(T a, T b) {
  return kind == Rem::Fmod ? fmod_integer(a, b) : remainder_integer(a, b);
}
template <Rem kind, typename T>
inline T rem_floating(T a, T b) {
  return kind == Rem::Fmod ? std::fmod(a, b) : remainder_floating(a, b);
}

template <Rem kind, typename scalar_t>
void rem_tensor_loop(TensorIterator& iter, const char* op) {
  if constexpr (std::is_integral_v<scalar_t>) {
    std::atomic<bool> by_zero{false};
    cpu_kernel_novec(iter, [&by_zero](scalar_t a, scalar_t b) -> scalar_t {
      if (b == 0) {
        by_zero.store(true, std::memory_order_relaxed);
        return 0;
      }
      return rem_integer<kind>(a, b);
    });
    if (by_zero.load()) zero_division(op);
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    cpu_kernel_novec(iter, [](double a, double b) -> double { return rem_floating<kind>(a, b); });
  } else {
    math_kernel<scalar_t>(
        iter,
        [](double a, double b) TL_MATH_INLINE {
          return kind == Rem::Fmod ? fmod_small_quotient(a, b) : remainder_small_quotient(a, b);
        },
        [](double a, double b) { return fmod_needs_libm(a, b); },
        [](double a, double b) { return static_cast<double>(rem_floating<kind>(static_cast<float>(a), static_cast<float>(b))); });
  }
}

// The number is converted to the compute dtype first, as PyTorch's wrapped 0-d tensor is.
template <Rem kind, typename scalar_t>
void rem_scalar_loop(TensorIterator& iter, const Scalar& other, const char* op) {
  const scalar_t b = scalar_cast<scalar_t>(other);
  if constexpr (std::is_integral_v<scalar_t>) {
    if (b == 0 && iter.numel() > 0 && !iter.is_meta()) zero_division(op);
    if (b == 0) return;
    cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return rem_integer<kind>(a, b); });
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    cpu_kernel_novec(iter, [b](double a) -> double { return rem_floating<kind>(a, b); });
  } else {
    const float bf = to_opmath(b);
    const double bd = bf;
    math_kernel<scalar_t>(
        iter,
        [bd](double a) TL_MATH_INLINE {
          return kind == Rem::Fmod ? fmod_small_quotient(a, bd) : remainder_small_quotient(a, bd);
        },
        [bd](double a) { return fmod_needs_libm(a, bd); },
        [bf](double a) { return static_cast<double>(rem_floating<kind>(static_cast<float>(a), bf)); });
  }
}

template <typename scalar_t>
void rem_scalar_base_loop(TensorIterator& iter, const Scalar& self) {
  const scalar_t a = scalar_cast<scalar_t>(self);
  if constexpr (std::is_integral_v<scalar_t>) {
    std::atomic<bool> by_zero{false};
    cpu_kernel_novec(iter, [a, &by_zero](scalar_t b) -> scalar_t {
      if (b == 0) {
        by_zero.store(true, std::memory_order_relaxed);
        return 0;
      }
      return remainder_integer(a, b);
    });
    if (by_zero.load()) zero_division("remainder");
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    cpu_kernel_novec(iter, [a](double b) -> double { return remainder_floating(a, b); });
  } else {
    // The vector path of tensor % number, with the roles swapped (exact: see RemainderMath.h).
    const float af = to_opmath(a);
    const double ad = af;
    math_kernel<scalar_t>(
        iter, [ad](double b) TL_MATH_INLINE { return remainder_small_quotient(ad, b); },
        [ad](double b) { return fmod_needs_libm(ad, b); },
        [af](double b) { return static_cast<double>(remainder_floating(af, static_cast<float>(b))); });
  }
}

template <Rem kind>
void rem_tensor(const Tensor& self, const Tensor& other, Tensor& out, const char* op, const char* kernel_name) {
  auto iter = binary_iter(out, self, other, op);
  if (iter.is_meta()) return;  // meta: shapes and dtypes only, every dtype accepted (PyTorch's meta)
  check_not_bool(iter.common_dtype(), kernel_name, op);
  TL_DISPATCH_NUMERIC(iter.common_dtype(), op, [&] { rem_tensor_loop<kind, scalar_t>(iter, op); });
}

template <Rem kind>
void rem_scalar(const Tensor& self, const Scalar& other, Tensor& out, const char* op, const char* kernel_name) {
  auto iter = scalar_iter(out, self, other, op);
  if (iter.is_meta()) return;
  check_not_bool(iter.common_dtype(), kernel_name, op);
  TL_DISPATCH_NUMERIC(iter.common_dtype(), op, [&] { rem_scalar_loop<kind, scalar_t>(iter, other, op); });
}

// gcd of |a| and |b| by Euclid; |INT_MIN| wraps to INT_MIN as in PyTorch. Kept for the inputs
// gcd_fast refuses: PyTorch's Euclid on a wrapped INT_MIN gives results such as gcd(INT_MIN, 6) = -2.
template <typename T>
inline T gcd_euclid(T a, T b) {
  a = a < 0 ? wrapping_neg(a) : a;
  b = b < 0 ? wrapping_neg(b) : b;
  while (a != 0) {  // b % a cannot trap: b is INT_MIN only while a is INT_MIN or 0
    const T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}

template <typename U>
TL_ALWAYS_INLINE int count_trailing_zeros(U v) {  // v != 0
  if constexpr (sizeof(U) == 8) return __builtin_ctzll(v);
  else return __builtin_ctz(v);
}

// Binary (Stein's) gcd of u, v >= 0: shifts, subtractions and conditional moves instead of
// Euclid's divisions; the gcd is unique, so the result is Euclid's bit for bit.
template <typename U>
TL_ALWAYS_INLINE U gcd_binary(U u, U v) {
  if (u == 0) return v;
  if (v == 0) return u;
  const int zu = count_trailing_zeros(u), zv = count_trailing_zeros(v);
  u >>= zu;
  v >>= zv;
  while (u != v) {  // both odd: |u - v| is even and nonzero
    const U d = u > v ? u - v : v - u;
    v = u < v ? u : v;
    u = d >> count_trailing_zeros(d);
  }
  return u << (zu < zv ? zu : zv);
}

// Unsigned type wide enough for |a| of T (8/16-bit types compute in 32 bits, as C++ promotes them).
template <typename T>
using gcd_unsigned_t = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
inline T gcd_integer(T a, T b) {
  const T pa = a < 0 ? wrapping_neg(a) : a, pb = b < 0 ? wrapping_neg(b) : b;
  if (pa < 0 || pb < 0) return gcd_euclid(a, b);  // a wrapped minimum value
  using U = gcd_unsigned_t<T>;
  return static_cast<T>(gcd_binary(static_cast<U>(pa), static_cast<U>(pb)));
}

// |a / gcd * b|, computed in int for 8/16-bit types (C++ promotion, as PyTorch) and wrapping.
// Without a wrapped minimum value it is |(|a| / g) * |b||: both products agree up to sign modulo
// 2^bits, and the wrapping |x| equals |-x|; the unsigned division is the cheaper one.
template <typename T>
inline T lcm_integer(T a, T b) {
  using W = std::conditional_t<(sizeof(T) < 4), int32_t, T>;
  const T pa = a < 0 ? wrapping_neg(a) : a, pb = b < 0 ? wrapping_neg(b) : b;
  if (pa >= 0 && pb >= 0) {
    using U = gcd_unsigned_t<T>;
    const U g = gcd_binary(static_cast<U>(pa), static_cast<U>(pb));
    if (g == 0) return 0;
    const W r = static_cast<W>(static_cast<U>(static_cast<U>(pa) / g * static_cast<U>(pb)));
    return static_cast<T>(r < 0 ? wrapping_neg(r) : r);
  }
  const W g = gcd_euclid(a, b);
  if (g == 0) return 0;
  const W q = (std::is_signed_v<W> && g == W(-1)) ? wrapping_neg(W(a)) : static_cast<W>(W(a) / g);
  const W r = wrapping_mul(q, W(b));
  return static_cast<T>(r < 0 ? wrapping_neg(r) : r);
}

void check_integral(ScalarType t, const char* kernel_name, const char* op) {
  if (!is_integral_type(t, false))
    throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for '", scalar_type_name(t), "'"));
}

}  // namespace

void fmod_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  rem_tensor<Rem::Fmod>(self, other, out, "fmod", "fmod_cpu");
}

void fmod_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  rem_scalar<Rem::Fmod>(self, other, out, "fmod", "fmod_cpu");
}

void remainder_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  rem_tensor<Rem::Remainder>(self, other, out, "remainder", "remainder_cpu");
}

void remainder_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  rem_scalar<Rem::Remainder>(self, other, out, "remainder", "remainder_cpu");
}

// number % tensor: the number takes part in promotion as a wrapped 0-d tensor. No out= form
// (PyTorch has none).
Tensor remainder_scalar_tensor_kernel(const Scalar& self, const Tensor& other) {
  Tensor out;
  auto iter = TensorIteratorConfig().set_op_name("remainder").add_output(out).add_input(other).add_scalar(self).build();
  const ScalarType dt = iter.common_dtype();
  check_not_bool(dt, "remainder_cpu", "remainder");
  TL_DISPATCH_NUMERIC(dt, "remainder", [&] { rem_scalar_base_loop<scalar_t>(iter, self); });
  return out;
}

void gcd_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = binary_iter(out, self, other, "gcd");
  if (iter.is_meta()) return;
  check_integral(iter.common_dtype(), "gcd_cpu", "gcd");
  TL_DISPATCH_SWITCH(iter.common_dtype(), "gcd", TL_CASES_INTEGRAL([&] {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return gcd_integer(a, b); });
  }));
}

void lcm_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = binary_iter(out, self, other, "lcm");
  // PyTorch's meta lcm refuses bool only (its formula divides).
  if (iter.is_meta() && iter.common_dtype() != ScalarType::Bool) return;
  check_integral(iter.common_dtype(), "lcm_cpu", "lcm");
  TL_DISPATCH_SWITCH(iter.common_dtype(), "lcm", TL_CASES_INTEGRAL([&] {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return lcm_integer(a, b); });
  }));
}

}  // namespace tl::native
