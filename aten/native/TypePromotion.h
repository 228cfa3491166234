// PyTorch's result_type rules.
//
// Operands fall in three priority classes: tensors with dim > 0, 0-d tensors, and wrapped
// numbers (0-d tensors made from Python numbers, `impl()->is_wrapped_number()`, and Scalars).
// Dtypes are promoted within each class (promote_types); a lower class only matters when its
// category (bool < integral < floating < complex) is higher than that of the classes above it:
//   int32 tensor + 0-d int64 tensor -> int32;   int32 tensor + 0-d float64 tensor -> float64;
//   int32 tensor + 2.5 -> default_dtype();       bool tensor + 5 -> int64;  float16 tensor + 2.5 -> float16.
// A wrapped float contributes default_dtype(), a wrapped complex default_complex_dtype(), a wrapped
// int int64 and a wrapped bool bool; a complex class below a float one keeps the float's precision
// (float64 tensor + 1j -> complex128).
#pragma once
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::native {

// Incremental form, for callers that mix tensors and scalars in any number.
struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;
};
// Undefined tensors are ignored.
ResultTypeState update_result_type_state(const Tensor& tensor, const ResultTypeState& state);
ResultTypeState update_result_type_state(const Scalar& scalar, const ResultTypeState& state);
ScalarType result_type(const ResultTypeState& state);

ScalarType result_type(TensorList tensors);
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(const Scalar& a, const Tensor& b);
ScalarType result_type(const Scalar& a, const Scalar& b);

// The dtype a wrapped Python number contributes: bool, int64 or default_dtype().
ScalarType scalar_default_dtype(const Scalar& s);


}  // namespace tl::native
