#include "aten/native/TypePromotion.h"

namespace tl::native {
namespace {

inline ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

// `higher` comes from a higher-priority class; `lower` only counts if its category is higher.
inline ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex_type(higher)) return higher;
  if (is_complex_type(lower)) {
    // A float class keeps its precision (float64 tensor + 1j -> complex128); integral and bool
    // classes take the complex type of the lower class.
    if (is_floating_type(higher)) return to_complex_type(higher);
    return lower;
  }
  if (is_floating_type(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_type(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

}  // namespace

ScalarType scalar_default_dtype(const Scalar& s) {
  if (s.is_complex()) return default_complex_dtype();
  if (s.is_floating_point()) return default_dtype();
  return s.is_bool() ? ScalarType::Bool : ScalarType::Int64;
}

ResultTypeState update_result_type_state(const Tensor& tensor, const ResultTypeState& state) {
  if (!tensor.defined()) return state;
  ResultTypeState out = state;
  ScalarType current = tensor.dtype();
  const bool wrapped = tensor.impl()->is_wrapped_number();
  if (wrapped && is_floating_type(current)) current = default_dtype();
  if (wrapped && is_complex_type(current)) current = default_complex_dtype();
  if (tensor.dim() > 0) {
    out.dim_result = promote_skip_undefined(state.dim_result, current);
  } else if (wrapped) {
    out.wrapped_result = promote_skip_undefined(state.wrapped_result, current);
  } else {
    out.zero_result = promote_skip_undefined(state.zero_result, current);
  }
  return out;
}

ResultTypeState update_result_type_state(const Scalar& scalar, const ResultTypeState& state) {
  ResultTypeState out = state;
  out.wrapped_result = promote_skip_undefined(state.wrapped_result, scalar_default_dtype(scalar));
  return out;
}

ScalarType result_type(const ResultTypeState& state) {
  return combine_categories(state.dim_result, combine_categories(state.zero_result, state.wrapped_result));
}

ScalarType result_type(TensorList tensors) {
  ResultTypeState state;
  for (const Tensor& t : tensors) state = update_result_type_state(t, state);
  return result_type(state);
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, ResultTypeState{})));
}
ScalarType result_type(const Tensor& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, ResultTypeState{})));
}
ScalarType result_type(const Scalar& a, const Tensor& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, ResultTypeState{})));
}
ScalarType result_type(const Scalar& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, ResultTypeState{})));
}

}  // namespace tl::native
