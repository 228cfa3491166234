// Derivatives of the losses' backward kernels (double backward): with respect to the backward op's
// grad_output, and to its self / target (`grad` here is the incoming gradient times grad_output).
#pragma once
#include <cstdint>
#include <optional>

#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

Tensor mse_loss_double_backward(const Tensor& grad, const Tensor& self, int64_t reduction);
Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                            const Tensor& target, int64_t reduction);
Tensor smooth_l1_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                      double beta);
Tensor smooth_l1_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& target, int64_t reduction, double beta);
Tensor huber_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                  double delta);
Tensor huber_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                              const Tensor& target, int64_t reduction, double delta);

// binary_cross_entropy: the target's gradient, and the backward op's derivatives.
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_double_backward(const Tensor& grad_output, const Tensor& grad, const Tensor& self,
                                            const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction);
Tensor binary_cross_entropy_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_double_backward_target(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& target, const std::optional<Tensor>& weight,
                                                   int64_t reduction);
// binary_cross_entropy_with_logits: gradients written with differentiable ops (double backward through them).
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight, int64_t reduction);
// soft_margin_loss_backward's derivatives.
Tensor soft_margin_loss_double_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                        int64_t reduction);
Tensor soft_margin_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                                    const Tensor& target, int64_t reduction);

}  // namespace tl::autograd::generated
