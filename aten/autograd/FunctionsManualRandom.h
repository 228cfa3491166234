// Derivative helpers of the random ops (native_functions.yaml, "random streams").
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// For a formula PyTorch declares but does not implement (bernoulli.p): recording succeeds, and the
// backward pass raises RuntimeError "derivative for <op> is not implemented", as in PyTorch.
Tensor not_implemented(const char* op);

}  // namespace tl::autograd::generated
