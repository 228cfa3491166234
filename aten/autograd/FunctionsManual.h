// Helpers called by the derivative formulas of native_functions.yaml (the formulas are
// compiled in this namespace). Every helper is written with the public tl:: op API, so with
// create_graph its result carries history and can be differentiated again. The few that
// build their result in place (select/slice/as_strided backward) record a hand-written
// backward node for it instead (see FunctionsManual.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "aten/core/ArrayRef.h"
#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// Called by generated autograd wrappers on each differentiable output: RuntimeError "Autograd not
// support dtype: Int" when an op that records history produced an integer or bool result (sum
// with an integer dtype= of a float that requires grad), as PyTorch does.
void check_differentiable_dtype(const Tensor& result);

// t * s, skipping the multiplication when s == 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);

// Reduces `t` to `shape` by summing the dimensions that broadcasting added or expanded
// (leading dims, and dims where shape has 1). `shape` must be broadcastable to t's shape.
Tensor sum_to(const Tensor& t, IntArrayRef shape);
// True when a tensor of shape `shape` broadcasts to `desired`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);

// ---- pointwise ---------------------------------------------------------------------------
Tensor mul_tensor_backward(const Tensor& grad, const Tensor& other, ScalarType self_st);
// grad / other; zeros when a rounding mode is given (floor/trunc are piecewise constant).
Tensor div_tensor_self_backward(const Tensor& grad, const Tensor& other, ScalarType self_st,
                                std::optional<std::string_view> rounding_mode = std::nullopt);
// -grad * self / other^2; zeros with a rounding mode.
Tensor div_tensor_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                                 std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor div_scalar_self_backward(const Tensor& grad, const Scalar& other, ScalarType self_st,
                                std::optional<std::string_view> rounding_mode = std::nullopt);
// d(self ** exponent)/d self for a number exponent; zeros when exponent == 0.
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
// ... for a tensor exponent; 0 where exponent == 0 (also at self == 0).
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
// d(self ** exponent)/d exponent = result * log(self); 0 where self == 0 and exponent >= 0.
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result);

// ---- reductions ----------------------------------------------------------------------------
// Gradient of sum(self, dim, keepdim): grad broadcast back to `sizes` (dim None or [] = all dims).
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, int64_t numel);
Tensor mean_dim_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);

// ---- reductions on the reduction engine --------------------------------------------------------
// The Scalar? correction of var/std as a number (1 when None).
double correction_value(const std::optional<Scalar>& correction);
// prod over all elements / along dim; zeros handled without dividing by them.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor prod_dim_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
// amax/amin (dim [] = all): grad shared evenly between the elements equal to the result.
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim,
                          bool keepdim);
// max()/min(): as amax over all dims, NaN results going to the NaN elements.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// max.dim/min.dim: grad at the selected indices, 0 elsewhere.
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
// aminmax: either gradient may be undefined.
Tensor aminmax_backward(const Tensor& grad_min, const Tensor& grad_max, const Tensor& self, const Tensor& min,
                        const Tensor& max, std::optional<int64_t> dim, bool keepdim);
Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim, double correction, bool keepdim);
Tensor std_backward(const Tensor& grad, const Tensor& self, const Tensor& result, OptionalIntArrayRef dim,
                    double correction, bool keepdim);
Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         OptionalIntArrayRef dim, double correction, bool keepdim);
Tensor std_mean_backward(const Tensor& grad_std, const Tensor& grad_mean, const Tensor& self, const Tensor& std,
                         OptionalIntArrayRef dim, double correction, bool keepdim);
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim,
                          bool keepdim);
// nansum: grad where self is not NaN, 0 at the NaNs.
Tensor nansum_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim, bool keepdim);
// frexp: grad / 2**exponent (the exponent is piecewise constant).
Tensor frexp_backward(const Tensor& grad, const Tensor& exponent);

// ---- linear algebra --------------------------------------------------------------------------
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, ScalarType mat1_st);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, ScalarType mat2_st);

// ---- views -----------------------------------------------------------------------------------
// Gradient of as_strided(self, size, stride, storage_offset) for an input of geometry
// (input_sizes, input_strides, input_offset); offsets are in storage elements.
// Limits: the input geometry must not overlap itself; the output geometry may repeat elements
// only through stride-0 dimensions (as expand does). Other overlapping outputs raise
// NotImplementedError.
Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
// Zeros of `sizes` with `grad` written at `index` of `dim`.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
// Zeros of `sizes` with `grad` written into the slice [start:end:step] of `dim`.
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);

}  // namespace tl::autograd::generated
