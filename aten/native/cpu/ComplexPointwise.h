// The complex cases of the pointwise math kernels (ComplexPointwise.cpp). The real kernels build
// the iterator (promotion, broadcasting, out= checks) and call these when its common dtype is
// complex.
#pragma once
#include <string_view>

#include "aten/core/Scalar.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

// exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, reciprocal, sin, cos, tan, asin, acos, atan,
// sinh, cosh, tanh, asinh, acosh, atanh, sigmoid by the op's name; false for any other name (the
// caller's real dispatch then refuses complex as PyTorch does).
bool complex_unary(TensorIterator& iter, std::string_view op);

void complex_add_scalar(TensorIterator& iter, const Scalar& other, const Scalar& alpha, int sign);  // a + sign alpha b
void complex_rsub_scalar(TensorIterator& iter, const Scalar& other, const Scalar& alpha);           // b - alpha a
void complex_div(TensorIterator& iter);                                     // a / b (Smith's quotient)
void complex_div_scalar(TensorIterator& iter, const Scalar& other);         // a / number
void complex_pow(TensorIterator& iter);                                     // a ** b
void complex_pow_tensor_scalar(TensorIterator& iter, const Scalar& exponent);
void complex_pow_scalar_base(TensorIterator& iter, const Scalar& base);     // number ** b
void complex_logaddexp(TensorIterator& iter);                               // log(exp(a) + exp(b))
void complex_tanh_backward(TensorIterator& iter);                           // grad * conj(1 - y^2)
void complex_sigmoid_backward(TensorIterator& iter);                        // grad * conj((1 - y) y)

}  // namespace tl::native
