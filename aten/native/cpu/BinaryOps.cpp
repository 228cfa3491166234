// Arithmetic: add, sub, rsub, mul, div (true / trunc / floor), floor_divide, pow.
#include "aten/native/cpu/ComplexKernels.h"
#include "aten/native/cpu/ComplexPointwise.h"
#include <atomic>
#include <cmath>
#include <optional>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/RemainderMath.h"
#include "aten/native/cpu/VecMathLoops.h"
#include "aten/native/cpu/VecMathPow.h"

namespace tl::native {
namespace {

// ---------------------------------------------------------------- iterator set-ups

// out = op(self, other) with promotion, out= resize and can_cast checks.
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

// out = op(self, <number>): the number only takes part in type promotion.
TensorIterator scalar_iter(Tensor& out, const Tensor& self, const Scalar& other, const char* op,
                           bool int_to_float = false) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .add_scalar(other)
      .promote_integer_inputs_to_float(int_to_float)
      .build();
}

// out = op(self) computed in `common` (inputs converted to it).
TensorIterator unary_iter_as(Tensor& out, const Tensor& self, ScalarType common, const char* op) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .declare_static_common_dtype(common)
      .build();
}

inline bool is_cpu_scalar_tensor(const Tensor& t) { return t.dim() == 0 && t.is_cpu(); }

// ---------------------------------------------------------------- checks

void alpha_check(ScalarType dtype, const Scalar& alpha, const char* op) {
  TL_CHECK(!alpha.is_bool() || dtype == ScalarType::Bool, op, ": Boolean alpha only supported for Boolean results.");
  TL_CHECK(is_complex_type(dtype) || !alpha.is_complex(), op,
           ": For non-complex input tensors, argument alpha must not be a complex number.");
  TL_CHECK(is_floating_type(dtype) || is_complex_type(dtype) || !alpha.is_floating_point(), op,
           ": For integral input tensors, argument alpha must not be a floating point number.");
}

void sub_check(ScalarType a, ScalarType b, const char* op) {
  TL_CHECK(a != ScalarType::Bool || b != ScalarType::Bool, op,
           ": Subtraction, the `-` operator, with two bool tensors is not supported. "
           "Use the `^` or `logical_xor()` operator instead.");
  TL_CHECK(a != ScalarType::Bool && b != ScalarType::Bool, op,
           ": Subtraction, the `-` operator, with a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}
void sub_check(ScalarType a, const Scalar& b, const char* op) {
  sub_check(a, b.is_bool() ? ScalarType::Bool : ScalarType::Int64, op);
}

// ---------------------------------------------------------------- add / sub

// a + alpha * b (sign = +1) or a - alpha * b (sign = -1), with alpha converted (checked) to the
// compute dtype. Floating types use a fused multiply-add like PyTorch's vectorized kernels.
template <typename scalar_t>
void add_sub_loop(TensorIterator& iter, const Scalar& alpha, int sign, const char* op) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    const bool al = alpha.to_bool();
    cpu_kernel(iter, [al](bool a, bool b) -> bool { return a || (al && b); });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    const scalar_t al = checked_scalar_cast<scalar_t>(alpha, op);
    if (al == 1 && sign > 0) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return wrapping_add(a, b); });
    } else if (al == 1) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return wrapping_sub(a, b); });
    } else {
      const scalar_t m = sign > 0 ? al : wrapping_neg(al);
      cpu_kernel(iter, [m](scalar_t a, scalar_t b) -> scalar_t { return wrapping_add(a, wrapping_mul(m, b)); });
    }
  } else {
    const opmath al = to_opmath(checked_scalar_cast<scalar_t>(alpha, op));
    if (al == opmath(1) && sign > 0) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        return from_opmath<scalar_t>(to_opmath(a) + to_opmath(b));
      });
    } else if (al == opmath(1)) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        return from_opmath<scalar_t>(to_opmath(a) - to_opmath(b));
      });
    } else {
      const opmath m = sign > 0 ? al : -al;
      cpu_kernel(iter, [m](scalar_t a, scalar_t b) -> scalar_t {
        return from_opmath<scalar_t>(std::fma(to_opmath(b), m, to_opmath(a)));
      });
    }
  }
}

// a + alpha * c (sign +1) or a - alpha * c (sign -1) for a number c (already in the compute dtype).
template <typename scalar_t>
void add_sub_scalar_loop(TensorIterator& iter, const Scalar& other, const Scalar& alpha, int sign, const char* op) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    const bool c = alpha.to_bool() && scalar_cast<bool>(other);
    cpu_kernel(iter, [c](bool a) -> bool { return a || c; });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    const scalar_t al = checked_scalar_cast<scalar_t>(alpha, op);
    const scalar_t c = wrapping_mul(al, scalar_cast<scalar_t>(other));
    const scalar_t d = sign > 0 ? c : wrapping_neg(c);
    cpu_kernel(iter, [d](scalar_t a) -> scalar_t { return wrapping_add(a, d); });
  } else {
    const opmath al = to_opmath(checked_scalar_cast<scalar_t>(alpha, op));
    const opmath c = to_opmath(scalar_cast<scalar_t>(other));
    if (al == opmath(1)) {
      const opmath d = sign > 0 ? c : -c;
      cpu_kernel(iter, [d](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(to_opmath(a) + d); });
    } else {
      const opmath m = sign > 0 ? al : -al;
      cpu_kernel(iter, [c, m](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::fma(c, m, to_opmath(a))); });
    }
  }
}

// ---------------------------------------------------------------- division helpers

template <typename T>
inline T div_floor_floating(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  T floordiv;
  if (div != T(0)) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1.0);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  return floordiv;
}

// Floor division of two reduced-float (Half/BFloat16) elements the way PyTorch's vectorized
// kernel does it: every intermediate result is rounded to the storage type.
template <typename T>
inline T div_floor_reduced(T ta, T tb) {
  auto r = [](float x) { return to_opmath(from_opmath<T>(x)); };
  const float a = to_opmath(ta), b = to_opmath(tb);
  const float basic_div = r(a / b);
  if (b == 0.0f) return T(basic_div);
  const float mod = r(std::fmod(a, b));
  const float floor_ = (std::isinf(basic_div) && !std::isinf(a)) ? a : r(a - mod);
  float div = r(floor_ / b);
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div = r(div - 1.0f);
  if (div == 0.0f) return T(std::copysign(0.0f, basic_div));
  float floordiv = std::floor(div);
  if (r(div - floordiv) > 0.5f) floordiv = r(floordiv + 1.0f);
  return T(floordiv);
}

// Integer quotients; b == -1 is special-cased so INT_MIN / -1 wraps instead of trapping.
template <typename T>
inline T div_trunc_integer(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}
template <typename T>
inline T div_floor_integer(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
    if ((a < 0) != (b < 0)) {
      const T q = static_cast<T>(a / b);
      const T r = static_cast<T>(a % b);
      return r != 0 ? static_cast<T>(q - 1) : q;
    }
  }
  return static_cast<T>(a / b);
}

enum class DivMode { True, Trunc, Floor };

DivMode parse_mode(std::optional<std::string_view> mode) {
  if (!mode) return DivMode::True;
  if (*mode == "trunc") return DivMode::Trunc;
  if (*mode == "floor") return DivMode::Floor;
  throw RuntimeError(str("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
                       std::string(*mode), "'"));
}

const char* mode_kernel_name(DivMode m) { return m == DivMode::Trunc ? "div_trunc_cpu" : "div_floor_cpu"; }

void check_not_bool(ScalarType t, const char* kernel_name, const char* op) {
  if (t == ScalarType::Bool) throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for 'Bool'"));
}

[[noreturn]] void zero_division(const char* op) { throw RuntimeError(str(op, ": ZeroDivisionError")); }

// Tensor / tensor with a rounding mode (common dtype not promoted to float for trunc/floor).
template <typename scalar_t>
void div_mode_loop(TensorIterator& iter, DivMode mode, const char* op) {
  if constexpr (std::is_integral_v<scalar_t>) {
    std::atomic<bool> by_zero{false};
    if (mode == DivMode::Trunc) {
      cpu_kernel_novec(iter, [&by_zero](scalar_t a, scalar_t b) -> scalar_t {
        if (b == 0) {
          by_zero.store(true, std::memory_order_relaxed);
          return 0;
        }
        return div_trunc_integer(a, b);
      });
    } else {
      cpu_kernel_novec(iter, [&by_zero](scalar_t a, scalar_t b) -> scalar_t {
        if (b == 0) {
          by_zero.store(true, std::memory_order_relaxed);
          return 0;
        }
        return div_floor_integer(a, b);
      });
    }
    if (by_zero.load()) zero_division(op);
  } else {
    // Reduced floats round the quotient to scalar_t before truncating (as PyTorch does).
    if (mode == DivMode::Trunc) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        const scalar_t q = from_opmath<scalar_t>(to_opmath(a) / to_opmath(b));
        return from_opmath<scalar_t>(trunc_vectorizable(static_cast<double>(to_opmath(q))));
      });
    } else if constexpr (is_reduced_float_v<scalar_t>) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return div_floor_reduced(a, b); });
    } else if constexpr (std::is_same_v<scalar_t, float>) {
      // Vectorized in double where exact (RemainderMath.h), the float formula elsewhere.
      math_kernel<float>(
          iter, [](double a, double b) TL_MATH_INLINE { return floor_divide_small_quotient(a, b); },
          [](double a, double b) { return floor_divide_needs_scalar(a, b); },
          [](double a, double b) { return static_cast<double>(div_floor_floating(static_cast<float>(a), static_cast<float>(b))); });
    } else {
      cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return div_floor_floating(a, b); });
    }
  }
}

// Tensor / number (b in opmath precision; for reduced floats PyTorch uses the number's own value).
template <typename scalar_t>
void div_scalar_loop(TensorIterator& iter, DivMode mode, opmath_t<scalar_t> b, const char* op) {
  if constexpr (std::is_integral_v<scalar_t>) {
    if (iter.numel() > 0 && !iter.is_meta() && b == 0) zero_division(op);
    if (mode == DivMode::Trunc) {
      cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return div_trunc_integer(a, b); });
    } else {
      cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return div_floor_integer(a, b); });
    }
  } else {
    if (mode == DivMode::True) {
      cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(to_opmath(a) / b); });
    } else if (mode == DivMode::Trunc) {
      cpu_kernel(iter, [b](scalar_t a) -> scalar_t {
        return from_opmath<scalar_t>(trunc_vectorizable(static_cast<double>(to_opmath(a) / b)));
      });
    } else if constexpr (std::is_same_v<scalar_t, float>) {
      const double bd = b;
      math_kernel<float>(
          iter, [bd](double a) TL_MATH_INLINE { return floor_divide_small_quotient(a, bd); },
          [bd](double a) { return floor_divide_needs_scalar(a, bd); },
          [b](double a) { return static_cast<double>(div_floor_floating(static_cast<float>(a), b)); });
    } else {
      cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(div_floor_floating(to_opmath(a), b)); });
    }
  }
}

// The value of a number operand in the compute precision: reduced floats keep the number's
// own value in float (PyTorch's original_scalar_value); other dtypes round it to scalar_t.
template <typename scalar_t>
opmath_t<scalar_t> scalar_operand(const Scalar& s) {
  if constexpr (is_reduced_float_v<scalar_t>) {
    return static_cast<float>(s.to_double());
  } else {
    return static_cast<opmath_t<scalar_t>>(scalar_cast<scalar_t>(s));
  }
}

void div_scalar_impl(const Tensor& self, const Scalar& other, DivMode mode, Tensor& out, const char* op = "div") {
  auto iter = scalar_iter(out, self, other, op, mode == DivMode::True);
  const ScalarType dt = iter.common_dtype();
  if (mode == DivMode::True && is_complex_type(dt)) return complex_div_scalar(iter, other);
  if (mode != DivMode::True) check_not_bool(dt, mode_kernel_name(mode), op);
  TL_DISPATCH_NUMERIC(dt, op, [&] { div_scalar_loop<scalar_t>(iter, mode, scalar_operand<scalar_t>(other), op); });
}

void div_impl(const Tensor& self, const Tensor& other, DivMode mode, Tensor& out, const char* op = "div") {
  const ScalarType common0 = result_type(self, other);
  const ScalarType common =
      (mode == DivMode::True && is_integral_type(common0, true)) ? default_dtype() : common0;
  // A 0-d CPU divisor with a reduced-float result: divide by its value in float, as PyTorch does.
  if (is_reduced_float(common) && is_cpu_scalar_tensor(other) && !self.is_meta()) {
    const Scalar b = tensor_item(other);
    auto iter = unary_iter_as(out, self, common, op);
    if (mode != DivMode::True) check_not_bool(common, mode_kernel_name(mode), op);
    TL_DISPATCH_FLOAT(common, op, [&] { div_scalar_loop<scalar_t>(iter, mode, static_cast<opmath_t<scalar_t>>(b.to_double()), op); });
    return;
  }
  auto iter = binary_iter(out, self, other, op, mode == DivMode::True);
  const ScalarType dt = iter.common_dtype();
  if (mode == DivMode::True && is_complex_type(dt)) return complex_div(iter);
  if (mode == DivMode::True) {
    TL_DISPATCH_FLOAT(dt, op, [&] {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        return from_opmath<scalar_t>(to_opmath(a) / to_opmath(b));
      });
    });
    return;
  }
  check_not_bool(dt, mode_kernel_name(mode), op);
  TL_DISPATCH_NUMERIC(dt, op, [&] { div_mode_loop<scalar_t>(iter, mode, op); });
}

// ---------------------------------------------------------------- pow helpers

template <typename T>
inline T powi_impl(T a, T b) {
  T result = 1;
  while (b) {
    if (b & 1) result = wrapping_mul(result, a);
    b /= 2;
    a = wrapping_mul(a, a);
  }
  return result;
}

// Integer power like PyTorch: negative exponents give 1 / a truncated (1, -1 or 0).
template <typename T>
inline T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2) != 0 ? T(-1) : T(1);
      return 0;
    }
  }
  return powi_impl(a, b);
}

void check_pow_dtype(ScalarType t) {
  if (t == ScalarType::Bool) throw NotImplementedError("pow: \"pow\" not implemented for 'Bool'");
}

// pow for floating results is vectorized in double (VecMathPow.h): pow_f64 (double-double log,
// < 1 ulp) for float64, pow_finite_for_float for float32 / float16 / bfloat16. Blocks holding an
// infinite or nan base or exponent (or, for float64, a zero base) take libm's pow for its
// special cases.
template <typename scalar_t>
TL_ALWAYS_INLINE double pow_arg(scalar_t a) {
  return static_cast<double>(to_opmath(a));
}

template <typename scalar_t>
void pow_tensor_loop(TensorIterator& iter) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return powi(a, b); });
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    math_kernel<double>(
        iter, [](double a, double b) TL_MATH_INLINE { return vec::pow_f64(a, b); },
        [](double a, double b) { return vec::pow_f64_needs_libm(a, b); }, [](double a, double b) { return std::pow(a, b); });
  } else {
    math_kernel<scalar_t>(
        iter, [](double a, double b) TL_MATH_INLINE { return vec::pow_finite_for_float<true>(a, b); },
        [](double a, double b) { return vec::pow_needs_libm(a, b); }, [](double a, double b) { return std::pow(a, b); });
  }
}

// x ** b for a number b, vectorized in double; a non-finite b (float64: also a zero or
// non-finite x, per block) goes to libm.
template <typename scalar_t>
void pow_general_scalar_loop(TensorIterator& iter, double b) {
  if (!vec::disfinite(b)) {
    cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::pow(pow_arg(a), b)); });
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    math_kernel<double>(
        iter, [b](double a) TL_MATH_INLINE { return vec::pow_f64(a, b); }, [b](double a) { return vec::pow_f64_needs_libm(a, b); },
        [b](double a) { return std::pow(a, b); });
  } else {
    math_kernel<scalar_t>(
        iter, [b](double a) TL_MATH_INLINE { return vec::pow_finite_for_float(a, b); }, [](double a) { return !vec::disfinite(a); },
        [b](double a) { return std::pow(a, b); });
  }
}

template <typename scalar_t>
void pow_tensor_scalar_loop(TensorIterator& iter, const Scalar& exponent) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_integral_v<scalar_t>) {
    const scalar_t b = checked_scalar_cast<scalar_t>(exponent, "pow");
    cpu_kernel_novec(iter, [b](scalar_t a) -> scalar_t { return powi(a, b); });
  } else if constexpr (std::is_same_v<scalar_t, Half>) {
    // PyTorch: plain pow with the exponent rounded to half, no special cases.
    pow_general_scalar_loop<Half>(iter, static_cast<float>(checked_scalar_cast<Half>(exponent, "pow")));
  } else {
    // float, double and bfloat16: sqrt / rsqrt / reciprocal / square / cube shortcuts like
    // PyTorch. `R` rounds an intermediate to scalar_t (bfloat16 arithmetic rounds every op).
    // float and double use the exponent as the double it is (pow(tensor(0.), 1e-320) is 0,
    // not 0 ** 0); bfloat16 rounds it to bfloat16 first, as PyTorch.
    const double b = is_reduced_float_v<scalar_t> ? to_opmath(checked_scalar_cast<scalar_t>(exponent, "pow"))
                                                  : exponent.to_double();
    auto R = [](opmath x) -> opmath { return to_opmath(from_opmath<scalar_t>(x)); };
    if (b == 2.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t {
        const opmath x = to_opmath(a);
        return from_opmath<scalar_t>(x * x);
      });
    } else if (b == 3.0) {
      cpu_kernel(iter, [R](scalar_t a) -> scalar_t {
        const opmath x = to_opmath(a);
        return from_opmath<scalar_t>(R(x * x) * x);
      });
    } else if (b == 0.5) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::sqrt(to_opmath(a))); });
    } else if (b == -0.5) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t {
        return from_opmath<scalar_t>(opmath(1) / std::sqrt(to_opmath(a)));
      });
    } else if (b == -1.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(opmath(1) / to_opmath(a)); });
    } else if (b == -2.0) {
      cpu_kernel(iter, [R](scalar_t a) -> scalar_t {
        const opmath x = to_opmath(a);
        return from_opmath<scalar_t>(opmath(1) / R(x * x));
      });
    } else {
      pow_general_scalar_loop<scalar_t>(iter, b);
    }
  }
}

template <typename scalar_t>
void pow_scalar_base_loop(TensorIterator& iter, const Scalar& self) {
  const scalar_t base = scalar_cast<scalar_t>(self);
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel_novec(iter, [base](scalar_t e) -> scalar_t { return powi(base, e); });
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    if (vec::pow_f64_needs_libm(base, 0.0)) {
      cpu_kernel_novec(iter, [base](double e) -> double { return std::pow(base, e); });
      return;
    }
    math_kernel<double>(
        iter, [base](double e) TL_MATH_INLINE { return vec::pow_f64(base, e); }, [](double e) { return !vec::disfinite(e); },
        [base](double e) { return std::pow(base, e); });
  } else {
    const double b = static_cast<double>(to_opmath(base));
    if (!vec::disfinite(b)) {
      cpu_kernel_novec(iter, [b](scalar_t e) -> scalar_t { return from_opmath<scalar_t>(std::pow(b, pow_arg(e))); });
      return;
    }
    math_kernel<scalar_t>(
        iter, [b](double e) TL_MATH_INLINE { return vec::pow_finite_for_float<true>(b, e); }, [](double e) { return !vec::disfinite(e); },
        [b](double e) { return std::pow(b, e); });
  }
}

template <typename scalar_t>
void rsub_scalar_loop(TensorIterator& iter, const Scalar& other, const Scalar& alpha) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_integral_v<scalar_t>) {
    const scalar_t m = wrapping_neg(checked_scalar_cast<scalar_t>(alpha, "rsub"));
    const scalar_t c = scalar_cast<scalar_t>(other);
    cpu_kernel(iter, [m, c](scalar_t a) -> scalar_t { return wrapping_add(c, wrapping_mul(m, a)); });
  } else {
    const opmath al = to_opmath(checked_scalar_cast<scalar_t>(alpha, "rsub"));
    const opmath c = to_opmath(scalar_cast<scalar_t>(other));
    if (al == opmath(1)) {
      cpu_kernel(iter, [c](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(c - to_opmath(a)); });
    } else {
      const opmath m = -al;
      cpu_kernel(iter, [m, c](scalar_t a) -> scalar_t {
        return from_opmath<scalar_t>(std::fma(to_opmath(a), m, c));
      });
    }
  }
}

template <typename scalar_t>
void mul_loop(TensorIterator& iter) {
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool a, bool b) -> bool { return a && b; });
  } else {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      return from_opmath<scalar_t>(wrapping_mul(to_opmath(a), to_opmath(b)));
    });
  }
}

template <typename scalar_t>
void mul_scalar_loop(TensorIterator& iter, const Scalar& other) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    const bool b = scalar_cast<bool>(other);
    cpu_kernel(iter, [b](bool a) -> bool { return a && b; });
  } else {
    const opmath b = scalar_operand<scalar_t>(other);
    cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(wrapping_mul(to_opmath(a), b)); });
  }
}

}  // namespace

// ---------------------------------------------------------------- add / sub / rsub

void add_kernel(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  auto iter = binary_iter(out, self, other, "add");
  alpha_check(iter.common_dtype(), alpha, "add");
  if (is_complex_type(iter.common_dtype())) return complex_add_sub(iter, alpha, +1);
  TL_DISPATCH_ALL(iter.common_dtype(), "add", [&] { add_sub_loop<scalar_t>(iter, alpha, +1, "add"); });
}

void sub_kernel(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  sub_check(self.dtype(), other.dtype(), "sub");
  auto iter = binary_iter(out, self, other, "sub");
  alpha_check(iter.common_dtype(), alpha, "sub");
  if (is_complex_type(iter.common_dtype())) return complex_add_sub(iter, alpha, -1);
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "sub", [&] { add_sub_loop<scalar_t>(iter, alpha, -1, "sub"); });
}

// rsub has no in-place or out= form (PyTorch has none): the kernels return a new tensor.
Tensor rsub_kernel(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out;
  sub_check(other.dtype(), self.dtype(), "rsub");
  auto iter = binary_iter(out, other, self, "rsub");
  alpha_check(iter.common_dtype(), alpha, "rsub");
  if (is_complex_type(iter.common_dtype())) {
    complex_add_sub(iter, alpha, -1);
    return out;
  }
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "rsub", [&] { add_sub_loop<scalar_t>(iter, alpha, -1, "rsub"); });
  return out;
}

void add_scalar_kernel(const Tensor& self, const Scalar& other, const Scalar& alpha, Tensor& out) {
  auto iter = scalar_iter(out, self, other, "add");
  alpha_check(iter.common_dtype(), alpha, "add");
  if (is_complex_type(iter.common_dtype())) return complex_add_scalar(iter, other, alpha, +1);
  TL_DISPATCH_ALL(iter.common_dtype(), "add", [&] { add_sub_scalar_loop<scalar_t>(iter, other, alpha, +1, "add"); });
}

void sub_scalar_kernel(const Tensor& self, const Scalar& other, const Scalar& alpha, Tensor& out) {
  sub_check(self.dtype(), other, "sub");
  auto iter = scalar_iter(out, self, other, "sub");
  alpha_check(iter.common_dtype(), alpha, "sub");
  if (is_complex_type(iter.common_dtype())) return complex_add_scalar(iter, other, alpha, -1);
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "sub", [&] { add_sub_scalar_loop<scalar_t>(iter, other, alpha, -1, "sub"); });
}

// other - alpha * self for a number `other`.
Tensor rsub_scalar_kernel(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  sub_check(self.dtype(), other, "rsub");
  auto iter = scalar_iter(out, self, other, "rsub");
  alpha_check(iter.common_dtype(), alpha, "rsub");
  if (is_complex_type(iter.common_dtype())) {
    complex_rsub_scalar(iter, other, alpha);
    return out;
  }
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "rsub", [&] { rsub_scalar_loop<scalar_t>(iter, other, alpha); });
  return out;
}

// ---------------------------------------------------------------- mul

void mul_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType common = result_type(self, other);
  if (is_reduced_float(common) && is_cpu_scalar_tensor(other) && !self.is_meta()) {
    const float b = static_cast<float>(tensor_item(other).to_double());
    auto iter = unary_iter_as(out, self, common, "mul");
    TL_DISPATCH_FLOAT(common, "mul", [&] {
      cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(to_opmath(a) * b); });
    });
    return;
  }
  auto iter = binary_iter(out, self, other, "mul");
  if (is_complex_type(iter.common_dtype())) return complex_mul(iter);
  TL_DISPATCH_ALL_AND_UNSIGNED(iter.common_dtype(), "mul", [&] { mul_loop<scalar_t>(iter); });
}

void mul_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  auto iter = scalar_iter(out, self, other, "mul");
  if (is_complex_type(iter.common_dtype())) return complex_mul_scalar(iter, other);
  TL_DISPATCH_ALL_AND_UNSIGNED(iter.common_dtype(), "mul", [&] { mul_scalar_loop<scalar_t>(iter, other); });
}

// ---------------------------------------------------------------- div / floor_divide

void div_kernel(const Tensor& self, const Tensor& other, Tensor& out) { div_impl(self, other, DivMode::True, out); }

void div_mode_kernel(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                     Tensor& out) {
  div_impl(self, other, parse_mode(rounding_mode), out);
}

void div_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  div_scalar_impl(self, other, DivMode::True, out);
}

void div_scalar_mode_kernel(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode,
                            Tensor& out) {
  div_scalar_impl(self, other, parse_mode(rounding_mode), out);
}

void floor_divide_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  div_impl(self, other, DivMode::Floor, out, "floor_divide");
}

void floor_divide_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  div_scalar_impl(self, other, DivMode::Floor, out, "floor_divide");
}

// ---------------------------------------------------------------- pow

void pow_kernel(const Tensor& self, const Tensor& exponent, Tensor& out) {
  auto iter = binary_iter(out, self, exponent, "pow");
  const ScalarType dt = iter.common_dtype();
  if (is_complex_type(dt)) return complex_pow(iter);
  check_pow_dtype(dt);
  TL_DISPATCH_NUMERIC(dt, "pow", [&] { pow_tensor_loop<scalar_t>(iter); });
}

void pow_tensor_scalar_kernel(const Tensor& self, const Scalar& exponent, Tensor& out) {
  TL_CHECK(!(is_integral_type(self.dtype(), true) && !exponent.is_floating_point() && !exponent.is_complex() &&
             exponent.to_long() < 0),
           "pow: Integers to negative integer powers are not allowed.");
  auto iter = scalar_iter(out, self, exponent, "pow");
  const ScalarType dt = iter.common_dtype();
  if (is_complex_type(dt)) return complex_pow_tensor_scalar(iter, exponent);
  const double e = exponent.to_double();
  // x ** 0 and x ** 1 need no arithmetic: PyTorch fills or copies, so uint16/32/64 take them too.
  if (e == 0.0) {  // x ** 0 == 1, nan included
    TL_DISPATCH_ALL_AND_UNSIGNED(dt, "pow", [&] { cpu_kernel(iter, [](scalar_t) -> scalar_t { return scalar_t(1); }); });
    return;
  }
  if (e == 1.0) {
    TL_DISPATCH_ALL_AND_UNSIGNED(dt, "pow", [&] { cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; }); });
    return;
  }
  check_pow_dtype(dt);
  TL_DISPATCH_NUMERIC(dt, "pow", [&] { pow_tensor_scalar_loop<scalar_t>(iter, exponent); });
}

void pow_scalar_kernel(const Scalar& self, const Tensor& exponent, Tensor& out) {
  auto iter = TensorIteratorConfig().set_op_name("pow").add_output(out).add_input(exponent).add_scalar(self).build();
  const ScalarType dt = iter.common_dtype();
  if (is_complex_type(dt)) return complex_pow_scalar_base(iter, self);
  if (!self.is_bool() && self.to_double() == 1.0) {  // 1 ** x == 1, nan included
    TL_DISPATCH_ALL(dt, "pow", [&] { cpu_kernel(iter, [](scalar_t) -> scalar_t { return scalar_t(1); }); });
    return;
  }
  check_pow_dtype(dt);
  TL_DISPATCH_NUMERIC(dt, "pow", [&] { pow_scalar_base_loop<scalar_t>(iter, self); });
}

}  // namespace tl::native
