// Unary pointwise ops: neg, abs, sign, relu (keep the dtype) and reciprocal (integer and bool
// inputs give the default float dtype). The transcendental ops are in TranscendentalOps.cpp.
#include "aten/native/cpu/ComplexKernels.h"
#include "aten/native/cpu/ComplexPointwise.h"
#include <cmath>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

// Same-dtype unary op: an out= tensor must have exactly self's dtype (as in PyTorch).
TensorIterator unary_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .check_exact_output_dtype(true)
      .build();
}

// Floating unary op: integer/bool inputs compute in the default float dtype; out= may have any
// dtype the result can be cast to.
TensorIterator unary_float_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .promote_integer_inputs_to_float(true)
      .build();
}

[[noreturn]] void not_implemented_bool(const char* op, const char* kernel_name) {
  throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for 'Bool'"));
}

template <typename scalar_t>
void abs_loop(TensorIterator& iter) {
  if constexpr (std::is_unsigned_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a < 0 ? wrapping_neg(a) : a; });
  } else {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::fabs(to_opmath(a))); });
  }
}

template <typename scalar_t>
void sign_loop(TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool a) -> bool { return a; });
  } else if constexpr (std::is_unsigned_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(a > 0); });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>((a > 0) - (a < 0)); });
  } else {
    // nan -> 0 and -0.0 -> 0.0, like PyTorch's vectorized kernel.
    cpu_kernel(iter, [](scalar_t a) -> scalar_t {
      const opmath x = to_opmath(a);
      return from_opmath<scalar_t>(static_cast<opmath>(opmath(0) < x) - static_cast<opmath>(x < opmath(0)));
    });
  }
}

template <typename scalar_t>
void relu_loop(TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_unsigned_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a < 0 ? scalar_t(0) : a; });
  } else {
    // max(a, 0) keeping nan and -0.0, like PyTorch's clamp_min.
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return to_opmath(a) < opmath(0) ? scalar_t(0) : a; });
  }
}

}  // namespace

void neg_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool,
           "neg: Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  auto iter = unary_iter(out, self, "neg");
  if (is_complex_type(iter.common_dtype())) return complex_neg(iter);
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "neg", [&] {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(wrapping_neg(to_opmath(a))); });
  });
}

void abs_kernel(const Tensor& self, Tensor& out) {
  if (is_complex_type(self.dtype())) {
    TL_CHECK(!out.is_same(self), "In-place abs is not supported for complex tensors.");
    // A real out= of any floating dtype takes the magnitudes; a complex one must be self's own dtype (PyTorch's
    // check, with its message).
    TL_CHECK(!out.defined() || !is_complex_type(out.dtype()) || out.dtype() == self.dtype(), "Found dtype ",
             legacy_type_name(out.dtype()), " but expected ", legacy_type_name(self.dtype()));
    return complex_abs_kernel(self, out);
  }
  auto iter = unary_iter(out, self, "abs");  // out= checks before the dtype error, as in PyTorch
  if (iter.is_meta()) return;
  if (self.dtype() == ScalarType::Bool) not_implemented_bool("abs", "abs_cpu");
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "abs", [&] { abs_loop<scalar_t>(iter); });
}

void sign_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_iter(out, self, "sign");
  TL_DISPATCH_ALL(iter.common_dtype(), "sign", [&] { sign_loop<scalar_t>(iter); });
}

void relu_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "relu: Boolean inputs not supported for relu");
  auto iter = unary_iter(out, self, "relu");
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "relu", [&] { relu_loop<scalar_t>(iter); });
}

void reciprocal_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_float_iter(out, self, "reciprocal");
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, "reciprocal")) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), "reciprocal", [&] {
    using opmath = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(opmath(1) / to_opmath(a)); });
  });
}

}  // namespace tl::native
