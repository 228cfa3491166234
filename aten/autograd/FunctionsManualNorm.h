// Derivative helpers for the vector norms (norm, linalg_vector_norm) and renorm, written with tl::
// ops so that they are differentiable again.
#pragma once
#include <optional>

#include "aten/core/ArrayRef.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The gradient of the p-norm (p = 2 when absent) `norm` of `self` over `dim` (all dims when
// empty), PyTorch's subgradients included: 0 at a zero vector (p >= 1), grad * sgn(x) for p = 1,
// for p = +-inf the gradient shared evenly among the elements whose |x| equals the norm (and NaNs),
// and no gradient at all (undefined) for p = 0. `self` is read in grad's dtype (the dtype= overloads).
Tensor norm_backward(Tensor grad, const Tensor& self, const std::optional<Scalar>& p, Tensor norm, IntArrayRef dim,
                     bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm);
Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& norm,
                                   OptionalIntArrayRef dim, bool keepdim);
// renorm's gradient: where a slice was scaled, maxnorm / (norm + 1e-7) times grad minus the
// norm's own gradient term; elsewhere grad. Norms in double (float for 16-bit inputs), as PyTorch.
Tensor renorm_backward(const Tensor& grad, const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);

}  // namespace tl::autograd::generated
