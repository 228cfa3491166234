// TensorIterator setups shared by the unary kernel files (RoundingOps, SignOps, UnaryMathOps).
#pragma once
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

// Same-dtype unary op: an out= tensor must have exactly self's dtype (PyTorch: "Found dtype
// Double but expected Float").
inline TensorIterator same_dtype_unary_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).check_exact_output_dtype(true).build();
}

// Floating unary op: integer and bool inputs compute in the default float dtype; out= (and the
// in-place self) may have any dtype the result can be cast to.
inline TensorIterator float_unary_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).promote_integer_inputs_to_float(true).build();
}

// PyTorch's error for a dtype its kernel was not built for: `"ceil_vml_cpu" not implemented for 'Bool'`.
[[noreturn]] inline void unary_dtype_not_implemented(const char* op, const char* kernel_name, ScalarType dt) {
  throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for '", legacy_type_name(dt), "'"));
}

}  // namespace tl::native
