// Double-backward formulas of the normalization backward ops (native_layer_norm_backward,
// native_batch_norm_backward): their derivatives with respect to the backward op's own inputs, written
// with differentiable ops; and group norm's gradient (below). The incoming ggI, ggW, ggB (the
// gradients of the backward op's dx, dw, db) may each be undefined. Each returns the gradients for
// (input, weight, grad_out), those grad_input_mask asks for.
#pragma once
#include <array>
#include <optional>
#include <tuple>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& gO, const Tensor& mean, const Tensor& rstd,
                                                              IntArrayRef normalized_shape,
                                                              std::array<bool, 3> grad_input_mask);

std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(
    const Tensor& input, const std::optional<Tensor>& weight, const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
    const Tensor& gO, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool train,
    double eps, const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    std::array<bool, 3> grad_input_mask);

// native_group_norm's gradients for (input, weight, bias) from those of its output, mean and rstd (any may be
// undefined): native_group_norm_backward for the output's (the same formula in differentiable ops when grad
// mode is on, as PyTorch, whose native_group_norm_backward has no derivative), plus d mean / dx = 1 / n and
// d rstd / dx = -rstd^3 (x - mean) / n per group.
std::tuple<Tensor, Tensor, Tensor> group_norm_backward_with_stats(const Tensor& grad, const Tensor& grad_mean,
                                                                  const Tensor& grad_rstd, const Tensor& input,
                                                                  const Tensor& mean, const Tensor& rstd,
                                                                  const std::optional<Tensor>& weight, int64_t N,
                                                                  int64_t C, int64_t HxW, int64_t group,
                                                                  std::array<bool, 3> grad_input_mask);

}  // namespace tl::autograd::generated
