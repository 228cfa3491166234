// Derivative helpers for the packed-sequence ops (pad_sequence) and embedding_bag.
#pragma once
#include <string_view>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The gradient of each sequence of pad_sequence: the slice of `grad` it was copied to.
std::vector<Tensor> pad_sequence_backward(const Tensor& grad, const std::vector<DimVector>& sizes, bool batch_first,
                                          std::string_view padding_side);

}  // namespace tl::autograd::generated
