// Gradient helpers for grid sampling (nnf11, issue 11).
#pragma once
#include <array>
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// The derivative of grid_sampler_{2d,3d}_backward for grad_output, input and grid, from the gradients
// of its two outputs: `gg_input` (of grad_input; undefined or absent when it was not computed) flows as a
// forward sampling into grad_output and as a grid gradient (input := gg_input) into grid; `gg_grid` (of
// grad_grid) through _grid_sampler_double_backward.
std::tuple<Tensor, Tensor, Tensor> grid_sampler_double_backward(const Tensor& gg_input, const Tensor& gg_grid,
                                                                const Tensor& grad_output, const Tensor& input,
                                                                const Tensor& grid, int64_t interpolation_mode,
                                                                int64_t padding_mode, bool align_corners,
                                                                std::array<bool, 3> grad_input_mask);

}  // namespace tl::autograd::generated
