// Derivative helpers for ops over tensor lists (cat, stack, unbind) and for saving per-element
// facts of a Tensor[] input (`tensors.sizes()` in a formula).
#pragma once
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

std::vector<DimVector> list_sizes(TensorList tensors);
std::vector<ScalarType> list_scalar_types(TensorList tensors);

// The gradient of each input of cat(tensors, dim): the slice of `grad` it was copied to (an
// empty gradient for 1-D empty inputs, which cat skips).
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<DimVector>& sizes,
                                         const std::vector<ScalarType>& dtypes, int64_t dim);
// The gradient of self from the gradients of unbind(self, dim)'s outputs (zeros where none flowed).
Tensor unbind_backward(const std::vector<Tensor>& grads, IntArrayRef self_sizes, ScalarType self_st, int64_t dim);

}  // namespace tl::autograd::generated

namespace tl::autograd::generated {

// Sum and product where an undefined tensor is a zero gradient (formulas over outputs that a
// backward op may leave undefined, e.g. under grad_input_mask).
Tensor add_defined(const Tensor& a, const Tensor& b);
Tensor mul_defined(const Tensor& a, const Tensor& b);

}  // namespace tl::autograd::generated
