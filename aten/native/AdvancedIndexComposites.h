// Bodies of the advanced-indexing ops written as compositions of other ops (their `impl:` in
// native_functions.yaml calls these): gradients come from the ops they call.
#pragma once
#include <optional>
#include <vector>

#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::native {

// where(condition) / nonzero(condition, as_tuple=True): one int64 index tensor per dim of
// condition (one for a 0-d condition, as PyTorch).
std::vector<Tensor> nonzero_as_tuple(const Tensor& condition);

// where(condition, a, b) for two numbers: the result has the dtype PyTorch gives the pair.
Tensor where_scalars(const Tensor& condition, const Scalar& a, const Scalar& b);

// take_along_dim: gather along dim of self and indices broadcast against each other apart from
// dim; of the flattened self at the flattened indices when dim is None.
Tensor take_along_dim_impl(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim);

}  // namespace tl::native
