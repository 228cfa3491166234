// Gradient helpers for padding and embedding (shape11, issue 11).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// constant_pad_nd's gradient: the padded gradient cropped back, i.e. constant_pad_nd with the pads
// negated (so double backward pads again).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

// embedding_dense_backward's derivative with respect to grad_output: the rows of `grad` (shaped as
// the weight) at `indices`, zero where the index is padding_idx.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx);

}  // namespace tl::autograd::generated
