// complex32 mul and add/sub with alpha, vectorized (Complex32Arith.cpp).
#pragma once
#include "aten/core/ScalarType.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

// out = a * b (iter: one output, two complex32 inputs; the second may be a broadcast constant).
void complex32_mul(TensorIterator& iter);
// out = a * c for iter's one input and a number already rounded to complex32.
void complex32_mul_scalar(TensorIterator& iter, ComplexHalf c);
// out = a + alpha b with alpha already rounded to complex32, in PyTorch's c10::complex<Half> arithmetic
// (the product rounded to complex32, then the sum).
void complex32_add(TensorIterator& iter, ComplexHalf alpha);

}  // namespace tl::native
