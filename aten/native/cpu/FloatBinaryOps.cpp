// Binary ops on the floating-point representation: copysign, hypot, nextafter, heaviside.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/RemainderMath.h"  // select_bits

namespace tl::native {
namespace {

TensorIterator binary_iter(Tensor& out, const Tensor& self, const Tensor& other, const char* op,
                           bool int_to_float = false) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .add_input(other)
      .promote_integer_inputs_to_float(int_to_float)
      .build();
}

// nextafter on the 16-bit pattern of a float16 / bfloat16 (both order like sign-magnitude integers).
template <typename T>
T nextafter_reduced(T from, T to) {
  const float f = to_opmath(from), t = to_opmath(to);
  if (f != f || t != t) return from_opmath<T>(f + t);
  if (from.x == to.x) return from;
  constexpr uint16_t kSign = 0x8000;
  const uint16_t abs_from = from.x & ~kSign, abs_to = to.x & ~kSign;
  if (abs_from == 0) {
    if (abs_to == 0) return to;
    return T(static_cast<uint16_t>((to.x & kSign) | 1u), typename T::from_bits_t{});  // smallest subnormal
  }
  // Away from zero when moving toward a larger magnitude of the same sign, else toward zero.
  const bool toward_zero = abs_from > abs_to || ((from.x ^ to.x) & kSign);
  return T(static_cast<uint16_t>(toward_zero ? from.x - 1 : from.x + 1), typename T::from_bits_t{});
}

// nextafter for float / double on the bits, branch-free so the loop vectorizes: one step of the
// sign-magnitude integer away from zero when moving toward a larger magnitude, else toward it;
// from a zero, the smallest subnormal with the sign of `to`; equal inputs give `to`, NaN NaN.
template <typename T>
TL_ALWAYS_INLINE T nextafter_bits(T from, T to) {
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  I f, t;
  std::memcpy(&f, &from, sizeof f);
  std::memcpy(&t, &to, sizeof t);
  const I away = static_cast<I>((to > from) == (from > T(0)));
  // In unsigned arithmetic: -0.0's bits are INT_MIN, and INT_MIN - 1 would overflow (the result is
  // replaced for zeros below anyway).
  using U = std::make_unsigned_t<I>;
  I r = static_cast<I>(static_cast<U>(f) + static_cast<U>(away + away - 1));
  const I from_zero = -static_cast<I>(from == T(0));
  r = (r & ~from_zero) | (((t & std::numeric_limits<I>::min()) | 1) & from_zero);
  const I equal = -static_cast<I>(from == to);
  r = (r & ~equal) | (t & equal);
  const T sum = from + to;  // NaN when either is
  I s;
  std::memcpy(&s, &sum, sizeof s);
  const I nan = -static_cast<I>((from != from) | (to != to));
  r = (r & ~nan) | (s & nan);
  T out;
  std::memcpy(&out, &r, sizeof out);
  return out;
}

template <typename scalar_t>
void nextafter_loop(TensorIterator& iter) {
  if constexpr (is_reduced_float_v<scalar_t>) {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return nextafter_reduced(a, b); });
  } else {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return nextafter_bits(a, b); });
  }
}

}  // namespace

void copysign_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = binary_iter(out, self, other, "copysign", true);
  TL_DISPATCH_FLOAT(iter.common_dtype(), "copysign", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      return from_opmath<scalar_t>(std::copysign(to_opmath(a), to_opmath(b)));
    });
  });
}

void copysign_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  auto iter = TensorIteratorConfig()
                  .set_op_name("copysign")
                  .add_output(out)
                  .add_input(self)
                  .add_scalar(other)
                  .promote_integer_inputs_to_float(true)
                  .build();
  TL_DISPATCH_FLOAT(iter.common_dtype(), "copysign", [&] {
    using opmath = opmath_t<scalar_t>;
    const opmath b = to_opmath(scalar_cast<scalar_t>(other));
    cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::copysign(to_opmath(a), b)); });
  });
}

// float32 and the 16-bit floats: sqrt of a sum of squares in double is exact up to the final
// rounding and cannot overflow, and it vectorizes; float64 takes libm's hypot.
void hypot_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = binary_iter(out, self, other, "hypot");
  if (iter.is_meta()) return;  // meta: every dtype accepted, as PyTorch's meta function
  const ScalarType dt = iter.common_dtype();
  if (!is_floating_type(dt))
    throw NotImplementedError(str("hypot: \"hypot_cpu\" not implemented for '", scalar_type_name(dt), "'"));
  TL_DISPATCH_FLOAT(dt, "hypot", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      cpu_kernel_novec(iter, [](double a, double b) -> double { return std::hypot(a, b); });
    } else {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        const double x = to_opmath(a), y = to_opmath(b);
        const double r = std::sqrt(x * x + y * y);
        // An infinite side wins over NaN, as in C's hypot: selected on the bits (a `?:` on
        // doubles would stop the loop vectorizing).
        const bool inf = (std::fabs(x) == HUGE_VAL) | (std::fabs(y) == HUGE_VAL);
        return from_opmath<scalar_t>(static_cast<float>(select_bits(inf, HUGE_VAL, r)));
      });
    }
  });
}

void nextafter_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = binary_iter(out, self, other, "nextafter");
  if (iter.is_meta()) return;
  const ScalarType dt = iter.common_dtype();
  if (!is_floating_type(dt))
    throw NotImplementedError(str("nextafter: \"nextafter_cpu\" not implemented for '", scalar_type_name(dt), "'"));
  TL_DISPATCH_FLOAT(dt, "nextafter", [&] {
    nextafter_loop<scalar_t>(iter);
  });
}

// values where self == 0, else (self > 0); NaN gives 0 as in PyTorch.
void heaviside_kernel(const Tensor& self, const Tensor& values, Tensor& out) {
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32) && !(is_complex_type(values.dtype()) && values.dtype() != ScalarType::Complex32),
           "heaviside is not yet implemented for complex tensors.");  // PyTorch's RuntimeError
  // out= of another dtype is refused with the same message, as PyTorch.
  // PyTorch's check is in its CPU kernel: meta tensors of different dtypes promote.
  TL_CHECK(self.is_meta() || (self.dtype() == values.dtype() && (!out.defined() || out.dtype() == self.dtype())),
           "heaviside: heaviside is not yet implemented for tensors with different dtypes.");
  auto iter = binary_iter(out, self, values, "heaviside");
  TL_DISPATCH_ALL(iter.common_dtype(), "heaviside", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t v) -> scalar_t {
      if constexpr (std::is_same_v<scalar_t, bool>) {
        return a || v;
      } else {
        using opmath = opmath_t<scalar_t>;
        const opmath x = to_opmath(a);
        return x == opmath(0) ? v : from_opmath<scalar_t>(static_cast<opmath>(x > opmath(0)));
      }
    });
  });
}

}  // namespace tl::native
