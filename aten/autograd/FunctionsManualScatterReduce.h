// Formula helpers for scatter_reduce and index_reduce, included by FunctionsManual.h.
#pragma once
#include <string_view>
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// Gradients of self and src of scatter_reduce(self, dim, index, src, reduce, include_self) = result,
// as PyTorch's scatter_reduce_backward: sum passes grad (src gathers it); prod divides result by
// the factor, computing the product of the others where a factor is zero; mean divides by the
// count; amax/amin share grad evenly between the values equal to the result. Without include_self
// the scattered-to positions of self get none. src's gradient has the index's shape (PyTorch's
// restriction: src larger than the index is refused by the engine at backward).
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result);

// The same for index_reduce (slices along dim instead of elements; no 'sum').
std::tuple<Tensor, Tensor> index_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                 const Tensor& index, const Tensor& source, std::string_view reduce,
                                                 bool include_self, const Tensor& result);

}  // namespace tl::autograd::generated
