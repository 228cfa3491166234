// Ops built on pow: float_power (pow computed in float64) and ldexp (self * 2 ** other).
// They reuse the pow and mul kernels on converted inputs (ldexp's integer exponents excepted).
#include <cmath>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"

namespace tl::native {
namespace {

// float_power's result is float64, or complex128 when either operand is complex (PyTorch): an
// in-place base or an out= tensor of another dtype is refused (pow would cast), with PyTorch's messages.
void check_float_power_out(const Tensor& out, const Tensor* self, ScalarType want) {
  if (!out.defined() || out.dtype() == want) return;
  if (self && out.is_same(*self)) {
    throw RuntimeError(str("float_power_: the base given to float_power_ has dtype ", legacy_type_name(out.dtype()),
                           " but the operation's result requires dtype ", legacy_type_name(want)));
  }
  throw RuntimeError(str("float_power: the output given to float_power has dtype ", legacy_type_name(out.dtype()),
                         " but the operation's result requires dtype ", legacy_type_name(want)));
}

ScalarType float_power_type(bool complex) { return complex ? ScalarType::Complex128 : ScalarType::Float64; }

// The input in the computing dtype, without recording history (the caller's autograd node covers the op).
Tensor as_type(const Tensor& t, ScalarType want) {
  if (t.dtype() == want) return t;
  autograd::NoGradGuard no_grad;
  return tl::_to_copy(t, want);
}

Scalar as_type(const Scalar& s, ScalarType want) {
  return want == ScalarType::Complex128 ? Scalar(s.to_complex()) : Scalar(s.to_double());
}

template <typename T, typename E>
void ldexp_int_loop(TensorIterator& iter) {
  cpu_kernel_novec(iter, [](T x, E e) -> T { return from_opmath<T>(std::ldexp(to_opmath(x), static_cast<int>(e))); });
}

// x * 2**e for an integer (or bool) exponent tensor of its own dtype.
template <typename T>
void ldexp_int_exponent(TensorIterator& iter, ScalarType exp_dtype) {
  switch (exp_dtype) {
    case ScalarType::Bool: return ldexp_int_loop<T, bool>(iter);
    case ScalarType::UInt8: return ldexp_int_loop<T, uint8_t>(iter);
    case ScalarType::Int8: return ldexp_int_loop<T, int8_t>(iter);
    case ScalarType::Int16: return ldexp_int_loop<T, int16_t>(iter);
    case ScalarType::Int32: return ldexp_int_loop<T, int32_t>(iter);
    case ScalarType::Int64: return ldexp_int_loop<T, int64_t>(iter);
    default:
      throw NotImplementedError(str("ldexp: not implemented for dtype ", scalar_type_name(exp_dtype)));
  }
}

}  // namespace

void float_power_kernel(const Tensor& self, const Tensor& exponent, Tensor& out) {
  const ScalarType want = float_power_type(is_complex_type(self.dtype()) || is_complex_type(exponent.dtype()));
  check_float_power_out(out, &self, want);
  pow_kernel(as_type(self, want), as_type(exponent, want), out);
}

void float_power_tensor_scalar_kernel(const Tensor& self, const Scalar& exponent, Tensor& out) {
  const ScalarType want = float_power_type(is_complex_type(self.dtype()) || exponent.is_complex());
  check_float_power_out(out, &self, want);
  pow_tensor_scalar_kernel(as_type(self, want), as_type(exponent, want), out);
}

void float_power_scalar_kernel(const Scalar& self, const Tensor& exponent, Tensor& out) {
  const ScalarType want = float_power_type(self.is_complex() || is_complex_type(exponent.dtype()));
  check_float_power_out(out, nullptr, want);
  pow_scalar_kernel(as_type(self, want), as_type(exponent, want), out);
}

// self * 2 ** other, as PyTorch: a floating self with an integer exponent scales exactly with
// std::ldexp (the exponent converted to int, as PyTorch's kernel does) in result_type(self, other);
// everything else takes pow(2, other) in other's dtype (float16 overflows at 2**16), then mul.
void ldexp_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  // PyTorch's ldexp kernel takes a floating self and an exponent of the five integer dtypes (or bool):
  // a uint16/32/64 exponent of a floating self is refused; an integer self with a uint16/32/64
  // exponent, or a uint16/32/64 self, goes through pow and mul (so 0 * 2**huge is nan).
  // Only a floating self takes the integer-exponent kernel (and refuses a bool exponent there); an
  // integer self goes through pow and mul like any other mix (0 * 2**(2**31 - 1) is nan, as in PyTorch).
  if (is_floating_type(self.dtype()) &&
      (is_barebones_unsigned_type(other.dtype()) || other.dtype() == ScalarType::Bool)) {
    throw NotImplementedError(str("ldexp: \"ldexp_cpu_exp\" not implemented for '", legacy_type_name(other.dtype()), "'"));
  }
  if (is_floating_type(self.dtype()) && is_integral_type(other.dtype(), false)) {
    ScalarType common = result_type(self, other);
    if (is_integral_type(common, true)) common = default_dtype();
    auto iter = TensorIteratorConfig()
                    .set_op_name("ldexp")
                    .add_output(out)
                    .add_input(self)
                    .add_input_keep_dtype(other)
                    .declare_static_common_dtype(common)
                    .build();
    const ScalarType exp_dtype = other.dtype();
    TL_DISPATCH_FLOAT(common, "ldexp", [&] { ldexp_int_exponent<scalar_t>(iter, exp_dtype); });
    return;
  }
  // PyTorch computes 2 ** other in the result's dtype, and has no complex32 pow.
  const bool half_complex = self.dtype() == ScalarType::Complex32 || other.dtype() == ScalarType::Complex32;
  TL_CHECK_AS(NotImplementedError, !half_complex || result_type(self, other) != ScalarType::Complex32,
              "\"pow\" not implemented for 'ComplexHalf'");
  Tensor scale;
  pow_scalar_kernel(Scalar(2.0), other, scale);
  mul_kernel(self, scale, out);
}

}  // namespace tl::native
