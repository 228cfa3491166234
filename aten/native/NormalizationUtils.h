// Shape and dtype checks shared by the normalization kernels (aten/native/cpu/NormalizationKernels.cpp)
// and composites (aten/native/composite/Normalization.cpp), with PyTorch's messages.
#pragma once
#include <initializer_list>
#include <optional>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::native {

// The input viewed as M rows of N normalized elements; stat_shape is the shape of the saved
// mean/rstd (the leading dims, then 1 for every normalized dim).
struct LayerNormDims {
  int64_t M = 0, N = 0;
  std::vector<int64_t> stat_shape;
};

// layer_norm's checks: normalized_shape non-empty and matching input's trailing dims, weight and
// bias (when given) of shape normalized_shape.
LayerNormDims check_layer_norm_inputs(const Tensor& input, IntArrayRef normalized_shape,
                                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);

// The dtype of the saved statistics: float32 for float16/bfloat16 input with float32 parameters
// (PyTorch's CPU "mixed type"), else input's dtype. Refuses the other parameter dtypes as PyTorch.
// `params` holds the parameters given (null for absent ones).
ScalarType norm_param_dtype(const Tensor& input, std::initializer_list<const Tensor*> params);

// float for float16/bfloat16/float32, double for float64: the dtype the kernels compute in.
ScalarType opmath_type(ScalarType t);

// Writes the first dst.numel() elements of the contiguous src into dst (converting the dtype).
void copy_stats(const Tensor& dst, const Tensor& src);

}  // namespace tl::native
