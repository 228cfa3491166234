// Derivative helpers for the binary/ternary arithmetic ops (copysign, maximum/minimum, fmax/fmin,
// clamp and its one-sided forms, nextafter): PyTorch's conventions at ties, bounds and NaN.
#pragma once
#include <array>
#include <optional>
#include <tuple>

#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// grad * copysign(1, ...) as result / self, 0 where self is 0.
Tensor copysign_tensor_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result);

// maximum/minimum: the whole gradient to the larger (smaller) input, half to each at a tie;
// `is_self` picks the input, `is_max` the op.
Tensor max_min_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_self, bool is_max);

// fmax/fmin: the gradient goes to the input the op returned (self on ties, other only where it
// was chosen over self: not NaN and strictly beyond it).
Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_self, bool is_max);

// clamp: the gradient passes where min <= self <= max (bounds included), 0 elsewhere and at NaN.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max);
// The bounds' gradients of clamp.Tensor: min's where self < min (and min < max), max's where
// self > max or max < min (the result is max then).
std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self,
                                                  const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                                                  const std::array<bool, 2>& grad_input_mask);

// grad where `mask`, 0 elsewhere.
Tensor grad_where(const Tensor& mask, const Tensor& grad);

}  // namespace tl::autograd::generated
