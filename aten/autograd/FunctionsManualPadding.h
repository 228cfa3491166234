// Gradient helpers for the padding ops (shape11, issue 11).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// constant_pad_nd's gradient: the padded gradient cropped back, i.e. constant_pad_nd with the pads
// negated (so double backward pads again).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

}  // namespace tl::autograd::generated
