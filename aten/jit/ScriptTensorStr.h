#pragma once
// str() of a tensor in script (f"{x}", str(x), print(x)), as TorchScript prints it: ATen's C++ tensor printing
// (the values, then "[ CPUFloatType{2,3} ]"), not Python's tensor repr.
#include <string>

#include "aten/core/Tensor.h"

namespace tl::jit {

std::string script_tensor_str(const Tensor& t);

// A double in its shortest round-tripping digits, written as {fmt}'s "{}" writes it (Python's repr without
// the ".0" of integral values: 2.5, 3, 1e+16, 1.5e-07, nan, inf).
std::string shortest_double_str(double d);

}  // namespace tl::jit
