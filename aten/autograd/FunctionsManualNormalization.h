// Double-backward formulas of the normalization backward ops (native_layer_norm_backward,
// native_batch_norm_backward, native_group_norm_backward): their derivatives with respect to the
// backward op's own inputs, written with differentiable ops. The incoming ggI, ggW, ggB (the
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

std::tuple<Tensor, Tensor, Tensor> group_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& gO, const Tensor& mean, const Tensor& rstd,
                                                              int64_t N, int64_t C, int64_t HxW, int64_t group,
                                                              std::array<bool, 3> grad_input_mask);

}  // namespace tl::autograd::generated
