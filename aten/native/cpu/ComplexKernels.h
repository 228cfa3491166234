// The complex cases of unary ops whose real kernels live elsewhere (UnaryOps.cpp, SignOps.cpp):
// defined in ComplexOps.cpp.
#pragma once
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

void complex_abs_kernel(const Tensor& self, Tensor& out);    // real result
void complex_angle_kernel(const Tensor& self, Tensor& out);  // real result
void complex_sgn_kernel(const Tensor& self, Tensor& out);    // z / |z|

// Loops over an iterator whose common dtype is complex (BinaryOps.cpp, UnaryOps.cpp build it).
void complex_add_sub(TensorIterator& iter, const Scalar& alpha, int sign);  // a + sign * alpha * b
void complex_mul(TensorIterator& iter);
void complex_mul_scalar(TensorIterator& iter, const Scalar& other);
void complex_neg(TensorIterator& iter);

}  // namespace tl::native
