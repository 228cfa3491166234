// Formula helpers for the index family (gather/scatter), included by FunctionsManual.h.
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The "formula" of an op PyTorch has no derivative for (scatter with reduce=): recording works, and
// a backward through it raises PyTorch's "derivative for aten::scatter is not implemented".
Tensor not_implemented(const char* aten_op);

}  // namespace tl::autograd::generated
