// Formula helpers for advanced indexing (index, masked_select, masked_scatter), included by
// FunctionsManual.h. Each is built from ops, so second derivatives work.
#pragma once
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// index: grad added (accumulate: repeated indices sum) into zeros of self's shape at `indices`.
Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<std::optional<Tensor>>& indices);
// masked_select: grad scattered back into zeros of the broadcast shape of self and mask (the
// engine then sums it to self's shape).
Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask);
// masked_scatter's source: the grad at the mask's true elements, in order, padded with zeros to
// source's size.
Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef source_sizes);

}  // namespace tl::autograd::generated
