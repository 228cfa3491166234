// Derivative helpers for the special functions (logit, i1, i1e, zeta), written with tl:: ops so
// that they are differentiable again.
#pragma once
#include <optional>

#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// grad / (x (1 - x)) inside [eps, 1 - eps] and 0 outside when eps >= 0 is given; without eps,
// inside [0, 1] and nan outside (PyTorch's conventions).
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
// i1'(x) = i0(x) - i1(x) / x, and 1/2 where |x| is below the dtype's epsilon (the limit at 0).
Tensor i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// i1e'(x) = i0e(x) - i1e(x) (sign(x) + 1 / x), and 1/2 where |x| is below the dtype's epsilon.
Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// xlogy's (log1p: xlog1py's) gradient for self: xlogy(grad, other) (xlog1py(grad, other)), and 0
// where self == 0 and other <= 0 (other <= -1), as PyTorch (so at self == 0 it is log(other)).
Tensor xlogy_self_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool log1p);
Tensor xlogy_self_backward(const Tensor& grad, const Tensor& self, const Scalar& other);
// mvlgamma's gradient: grad * sum_{j < p} digamma(self - j/2).
Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p);
// polygamma's gradient: grad * polygamma(n + 1, self); n + 1 past int64 is an error, not a wrap.
Tensor polygamma_backward(const Tensor& grad, int64_t n, const Tensor& self);
// Raises NotImplementedError "the derivative for '<name>' is not implemented." (PyTorch's
// message) for an input whose gradient PyTorch does not implement (zeta's self).
Tensor not_implemented_backward(const char* name);

}  // namespace tl::autograd::generated
