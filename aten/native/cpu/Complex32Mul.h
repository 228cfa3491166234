// complex32 products (mul of two tensors, of a tensor and a number), vectorized: Complex32Mul.cpp.
#pragma once
#include <complex>

#include "aten/native/TensorIterator.h"

namespace tl::native {

// Every operand complex32; each product in complex<float>, each part rounded to float16 once.
void complex32_mul(TensorIterator& iter);
// iter's one input times c (already rounded to complex32 by the caller, as PyTorch's wrapped number is).
void complex32_mul_scalar(TensorIterator& iter, std::complex<float> c);

}  // namespace tl::native
