// Pointwise ops of three operands: lerp (number or tensor weight), addcmul, addcdiv.
// Float16/bfloat16 compute in float and round once.
#include <cmath>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

// self + w * (end - self), from the nearer end when |w| >= 0.5 so that lerp(a, b, 1) is exactly b.
template <typename T>
TL_ALWAYS_INLINE T lerp_value(T self, T end, T w) {
  const T diff = end - self;
  return std::abs(w) < T(0.5) ? self + w * diff : end - diff * (T(1) - w);
}

// Complex: the same choice by |w| (PyTorch's is_lerp_weight_small), with c10's schoolbook products.
template <typename T>
TL_ALWAYS_INLINE std::complex<T> lerp_value(std::complex<T> self, std::complex<T> end, std::complex<T> w) {
  const std::complex<T> diff = end - self;
  return std::abs(w) < T(0.5) ? self + cmath::mul(w, diff) : end - cmath::mul(diff, std::complex<T>(1) - w);
}

void check_same_dtype(const Tensor& self, const Tensor& other, const char* name) {
  TL_CHECK(self.dtype() == other.dtype(), "lerp: expected dtype ", scalar_type_name(self.dtype()), " for `", name,
           "` but got dtype ", scalar_type_name(other.dtype()));
}

template <typename scalar_t>
void lerp_number_loop(TensorIterator& iter, opmath_t<scalar_t> w) {
  if constexpr (is_complex_v<scalar_t>) {
    // The branch on |w| once, not per element (a hypot call each); c10's schoolbook products.
    if (std::abs(w) < 0.5) {
      cpu_kernel(iter, [w](scalar_t a, scalar_t b) -> scalar_t { return a + cmath::mul(w, b - a); });
    } else {
      const scalar_t one_minus_w = scalar_t(1) - w;
      cpu_kernel(iter, [one_minus_w](scalar_t a, scalar_t b) -> scalar_t { return b - cmath::mul(b - a, one_minus_w); });
    }
  } else {
    cpu_kernel(iter, [w](scalar_t a, scalar_t b) -> scalar_t {
      return from_opmath<scalar_t>(lerp_value(to_opmath(a), to_opmath(b), w));
    });
  }
}

// The weight in the compute precision, with PyTorch's overflow check (1e300 for float32 raises).
void lerp_scalar_impl(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out) {
  auto iter = TensorIteratorConfig().set_op_name("lerp").add_output(out).add_input(self).add_input(end).build();
  TL_DISPATCH_FLOAT_AND_COMPLEX(iter.common_dtype(), "lerp", [&] {
    using opmath = opmath_t<scalar_t>;
    const opmath w = checked_scalar_cast<opmath>(weight, "lerp");
    lerp_number_loop<scalar_t>(iter, w);
  });
}

void check_integral_addcdiv(const Tensor& t1, const Tensor& t2) {
  TL_CHECK(!(is_integral_type(t1.dtype(), true) && is_integral_type(t2.dtype(), true)),
           "addcdiv: Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
           "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
           "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
           "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}

TensorIterator ternary_iter(Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(a).add_input(b).add_input(c).build();
}

// The number `value` in the compute precision (float for float16/bfloat16: PyTorch's opmath).
template <typename scalar_t>
opmath_t<scalar_t> value_operand(const Scalar& value, const char* op) {
  if constexpr (is_reduced_float_v<scalar_t>) {
    return checked_scalar_cast<float>(value, op);
  } else {
    return checked_scalar_cast<scalar_t>(value, op);
  }
}

}  // namespace

void lerp_scalar_kernel(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out) {
  check_same_dtype(self, end, "end");
  if (!is_floating_type(self.dtype()) && !is_complex_type(self.dtype()))
    throw NotImplementedError(str("lerp: \"lerp_kernel_scalar\" not implemented for '", scalar_type_name(self.dtype()), "'"));
  lerp_scalar_impl(self, end, weight, out);
}

// A 0-d weight may have any dtype: it acts as a number, as in PyTorch.
void lerp_tensor_kernel(const Tensor& self, const Tensor& end, const Tensor& weight, Tensor& out) {
  check_same_dtype(self, end, "end");
  // A tensor weight makes lerp a three-input op whose out= must have self's dtype exactly (PyTorch).
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "lerp: Found dtype ", legacy_type_name(out.dtype()),
           " but expected ", legacy_type_name(self.dtype()));
  if (weight.dim() != 0) check_same_dtype(self, weight, "weight");
  if (!is_floating_type(self.dtype()) && !is_complex_type(self.dtype()))
    throw NotImplementedError(str("lerp: \"lerp_kernel_tensor\" not implemented for '", scalar_type_name(self.dtype()), "'"));
  if (weight.dim() == 0 && weight.is_cpu() && !self.is_meta() && !end.is_meta()) {
    lerp_scalar_impl(self, end, tensor_item(weight), out);
    return;
  }
  auto iter = TensorIteratorConfig()
                  .set_op_name("lerp")
                  .add_output(out)
                  .add_input(self)
                  .add_input(end)
                  .add_input(weight)
                  .declare_static_common_dtype(self.dtype())
                  .build();
  TL_DISPATCH_FLOAT_AND_COMPLEX(iter.common_dtype(), "lerp", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b, scalar_t w) -> scalar_t {
      return from_opmath<scalar_t>(lerp_value(to_opmath(a), to_opmath(b), to_opmath(w)));
    });
  });
}

void addcmul_kernel(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value, Tensor& out) {
  auto iter = ternary_iter(out, self, tensor1, tensor2, "addcmul");
  if (iter.common_dtype() == ScalarType::Bool)
    throw NotImplementedError("addcmul: \"addcmul_cpu_out\" not implemented for 'Bool'");
  if (iter.common_dtype() == ScalarType::Complex32) {
    // PyTorch's loop over c10::complex<Half>: self + (value * t1) * t2, every operation rounded to complex32.
    const ComplexHalf v = c32::checked(value);
    cpu_kernel_novec(iter, [v](ComplexHalf a, ComplexHalf b, ComplexHalf c) -> ComplexHalf {
      return c32::add(a, c32::mul(c32::mul(v, b), c));
    });
    return;
  }
  if (is_complex_type(iter.common_dtype())) {
    TL_DISPATCH_COMPLEX(iter.common_dtype(), "addcmul", [&] {  // (value * t1) * t2, c10's products
      const auto v = checked_scalar_cast<scalar_t>(value, "addcmul");
      cpu_kernel(iter, [v](scalar_t a, scalar_t b, scalar_t c) -> scalar_t { return a + cmath::mul(cmath::mul(v, b), c); });
    });
    return;
  }
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "addcmul", [&] {
    const auto v = value_operand<scalar_t>(value, "addcmul");
    cpu_kernel(iter, [v](scalar_t a, scalar_t b, scalar_t c) -> scalar_t {
      return from_opmath<scalar_t>(wrapping_add(to_opmath(a), wrapping_mul(wrapping_mul(v, to_opmath(b)), to_opmath(c))));
    });
  });
}

void addcdiv_kernel(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value, Tensor& out) {
  check_integral_addcdiv(tensor1, tensor2);
  auto iter = ternary_iter(out, self, tensor1, tensor2, "addcdiv");
  if (is_complex_type(iter.common_dtype()) && iter.common_dtype() != ScalarType::Complex32) {
    TL_DISPATCH_COMPLEX(iter.common_dtype(), "addcdiv", [&] {  // (value * t1) / t2, Smith's quotient
      const auto v = checked_scalar_cast<scalar_t>(value, "addcdiv");
      cpu_kernel(iter, [v](scalar_t a, scalar_t b, scalar_t c) -> scalar_t { return a + cmath::div(cmath::mul(v, b), c); });
    });
    return;
  }
  TL_DISPATCH_FLOAT(iter.common_dtype(), "addcdiv", [&] {
    const auto v = value_operand<scalar_t>(value, "addcdiv");
    cpu_kernel(iter, [v](scalar_t a, scalar_t b, scalar_t c) -> scalar_t {
      return from_opmath<scalar_t>(to_opmath(a) + v * to_opmath(b) / to_opmath(c));
    });
  });
}

}  // namespace tl::native
