// Derivative helpers for the repeating and reordering ops (repeat, roll).
#pragma once
#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The gradient of self.repeat(repeats): every copy's gradient summed back onto self's shape.
Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef input_sizes);
// The gradient of roll(self, shifts, dims): the gradient rolled back.
Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);

}  // namespace tl::autograd::generated
