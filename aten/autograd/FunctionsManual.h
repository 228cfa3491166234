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
#include "aten/autograd/FunctionsManualIndex.h"  // gather/scatter
#include "aten/autograd/FunctionsManualScatterReduce.h"  // scatter_reduce, index_reduce
#include "aten/autograd/FunctionsManualAdvancedIndex.h"  // index, masked_select, masked_scatter
#include "aten/autograd/FunctionsManualJoin.h"  // helpers for tensor lists
#include "aten/autograd/FunctionsManualBinary.h"  // helpers for binary/ternary arithmetic
#include "aten/autograd/FunctionsManualSpecial.h"  // helpers for the special functions
#include "aten/autograd/FunctionsManualUnary.h"  // helpers for the unary catalog ops
#include "aten/autograd/FunctionsManualShapes.h"  // repeat, roll
#include "aten/autograd/FunctionsManualNorm.h"  // norm, linalg_vector_norm, renorm
#include "aten/autograd/FunctionsManualActivation.h"  // double backward of the activations
#include "aten/autograd/FunctionsManualPooling.h"  // max-pool double backward, adaptive sizes
#include "aten/autograd/FunctionsManualConvolution.h"  // linear, convolution (double backward)
#include "aten/autograd/FunctionsManualResampling.h"  // constant_pad_nd, embedding
#include "aten/autograd/FunctionsManualLoss.h"  // double backward of the losses
#include "aten/autograd/FunctionsManualNormalization.h"  // double backward of the normalizations
#include "aten/autograd/FunctionsManualLinalg.h"  // LU factorization and solves (LAPACK ops)
#include "aten/autograd/FunctionsManualLstsq.h"  // linalg_lstsq, pinv
#include "aten/autograd/FunctionsManualPacked.h"  // pad_sequence, embedding_bag
#include "aten/autograd/FunctionsManualGrid.h"  // grid sampler double backward
#include "aten/autograd/FunctionsManualComplex.h"  // abs, angle of complex tensors

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
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_sizes, IntArrayRef mat1_strides);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides);

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

namespace tl::autograd::generated {

// ---- along one dimension (dim engine ops) ----------------------------------------------------
// Gradient of cumsum: the reverse cumulative sum of grad along dim.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
// Gradient of cumprod, exact when self has zeros: before a slice's first zero it is
// revcumsum(grad * result) / self; at the first zero it is the reverse cumsum of grad times the
// cumprod with that zero replaced by 1; after it, 0.
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
// sum_{j >= i} grad_j * exp(self_i - result_j), computed in log space for positive and negative
// parts of grad separately, so large inputs do not overflow.
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);
// grad summed into the positions `indices` picked (cummax/cummin).
Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim);
// Derivative of _softmax_backward_data with respect to `output`.
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
// Derivatives of _log_softmax_backward_data with respect to grad_output and output.
Tensor log_softmax_backward_data_grad_backward(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
// Gradient of an op that picks values at `indices` along dim (sort, topk, kthvalue): zeros of
// `sizes` with grad scattered to the picked positions (keepdim=false: dim was removed).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                         bool keepdim);

// ---- indexing (index engine ops) ----------------------------------------------------------------
// zeros(self_sizes).scatter_add(dim, index, grad).
Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index);
// zeros(self_sizes).index_add(dim, index, grad).
Tensor index_select_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index);
// grad.index_select(dim, index) * alpha, shaped like the source.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha);
// grad summed into the flat positions `index` (negative ones wrapped), shaped like self.
Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index);

}  // namespace tl::autograd::generated


// ---- transcendental math ---------------------------------------------------------------------
namespace tl::autograd::generated {
// d atan2(self, other) / d self = other / (self^2 + other^2), and / d other = -self / (...);
// both 0 at the origin (as PyTorch).
Tensor atan2_backward_self(const Tensor& grad, const Tensor& self, const Tensor& other);
Tensor atan2_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other);
// Gradient of logaddexp (base2: logaddexp2) with respect to `self`: grad * sigmoid(self - other)
// (times ln2 inside for base 2), exactly 1/2 where self == other, infinities included;
// half/bfloat16 inputs are computed in float32.
Tensor logaddexp_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool base2);
}  // namespace tl::autograd::generated
