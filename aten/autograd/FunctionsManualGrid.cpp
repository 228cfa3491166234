#include "aten/autograd/FunctionsManualGrid.h"

#include "generated/ops/_grid_sampler_double_backward.h"
#include "generated/ops/add.h"
#include "generated/ops/grid_sampler_2d.h"
#include "generated/ops/grid_sampler_2d_backward.h"
#include "generated/ops/grid_sampler_3d.h"
#include "generated/ops/grid_sampler_3d_backward.h"

namespace tl::autograd::generated {
namespace {

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return tl::add(a, b);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> grid_sampler_double_backward(const Tensor& gg_input, const Tensor& gg_grid,
                                                                const Tensor& grad_output, const Tensor& input,
                                                                const Tensor& grid, int64_t interpolation_mode,
                                                                int64_t padding_mode, bool align_corners,
                                                                std::array<bool, 3> grad_input_mask) {
  Tensor d_go, d_input, d_grid;
  if (gg_grid.defined())
    std::tie(d_go, d_input, d_grid) = tl::_grid_sampler_double_backward(gg_grid, grad_output, input, grid,
                                                                        interpolation_mode, padding_mode, align_corners);
  if (gg_input.defined()) {
    // grad_input is linear in grad_output with the sampling weights (the forward's transpose), and does
    // not depend on input.
    const bool two_d = input.dim() == 4;
    if (grad_input_mask[0])
      d_go = add_defined(d_go, two_d ? tl::grid_sampler_2d(gg_input, grid, interpolation_mode, padding_mode,
                                                           align_corners)
                                     : tl::grid_sampler_3d(gg_input, grid, interpolation_mode, padding_mode,
                                                           align_corners));
    if (grad_input_mask[2]) {
      const auto gi = two_d ? tl::grid_sampler_2d_backward(grad_output, gg_input, grid, interpolation_mode,
                                                           padding_mode, align_corners, {false, true})
                            : tl::grid_sampler_3d_backward(grad_output, gg_input, grid, interpolation_mode,
                                                           padding_mode, align_corners, {false, true});
      d_grid = add_defined(d_grid, std::get<1>(gi));
    }
  }
  return {d_go, d_input, d_grid};
}

}  // namespace tl::autograd::generated
