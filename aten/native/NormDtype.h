#pragma once
// The `dtype=` rule shared by linalg.vector_norm and linalg.matrix_norm (and so linalg.norm and
// torch.norm), PyTorch's checks in its order: a floating or complex dtype, complex exactly when the
// input is complex (a complex input's norm is real, but its `dtype` names the complex precision the
// moduli are taken in), and one the input converts to without narrowing.
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/ScalarType.h"

namespace tl::native {

inline void check_linalg_norm_dtype(std::optional<ScalarType> dtype, ScalarType self, const char* op) {
  if (!dtype) return;
  const ScalarType d = *dtype;
  TL_CHECK(is_floating_type(d) || is_complex_type(d), op, ": dtype should be floating point or complex, but got ",
           legacy_type_name(d));
  const bool c = is_complex_type(self);
  TL_CHECK(c == is_complex_type(d), op, ": dtype should be ", c ? "complex" : "real", " for ",
           c ? "complex" : "real", " inputs, but got ", legacy_type_name(d));
  TL_CHECK(promote_types(self, d) == d, op, ": the dtype of the input (", legacy_type_name(self),
           ") should be convertible without narrowing to the specified dtype (", legacy_type_name(d), ")");
}

}  // namespace tl::native
