// affine_grid_generator and its backward, built from other ops as PyTorch builds them, so every dtype
// (integers included: the linspace wraps and truncates as PyTorch's) gives PyTorch's values.
//
// The base grid holds, per output point, its normalized coordinates (x, y[, z], 1); the grid is the
// base grid times theta transposed, and theta's gradient is the base grid transposed times the
// grid's gradient.
#include "aten/core/Exception.h"
#include "generated/ops/affine_grid_generator.h"
#include "generated/ops/affine_grid_generator_backward.h"
#include "generated/ops/bmm.h"
#include "generated/ops/copy.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/fill.h"
#include "generated/ops/linspace.h"
#include "generated/ops/mul.h"
#include "generated/ops/reshape.h"
#include "generated/ops/select.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

// The n normalized coordinates of one axis: -1 .. 1 at the extreme pixels' centers (align_corners)
// or scaled by (n - 1) / n so -1 and 1 are their outer edges; a single pixel sits at 0.
Tensor axis_coordinates(ScalarType dtype, Device device, int64_t n, bool align_corners) {
  if (n <= 1) {
    // PyTorch makes this 0 with at::tensor, which has no float16/bfloat16 CPU kernel.
    TL_CHECK_AS(NotImplementedError, dtype != ScalarType::Float16 && dtype != ScalarType::BFloat16,
                "affine_grid_generator: \"tensor_cpu\" not implemented for '", legacy_type_name(dtype), "'");
    return tl::zeros({}, dtype, device);
  }
  Tensor range = tl::linspace(-1, 1, n, dtype, std::nullopt, device);
  if (!align_corners) range = tl::div(tl::mul(range, Scalar(n - 1)), Scalar(n));
  return range;
}

void check_size(IntArrayRef size) {
  TL_CHECK(size.size() == 4 || size.size() == 5,
           "affine_grid_generator: AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
}

// (N, [D,] H, W, k + 1): the last dim holds x, y[, z] and 1.
Tensor base_grid(ScalarType dtype, Device device, IntArrayRef size, bool align_corners) {
  const bool vol = size.size() == 5;
  const int64_t N = size[0], D = vol ? size[2] : 1, H = size[vol ? 3 : 2], W = size[vol ? 4 : 3];
  const int64_t k = vol ? 3 : 2;
  const Tensor base = vol ? tl::empty({N, D, H, W, k + 1}, dtype, device) : tl::empty({N, H, W, k + 1}, dtype, device);
  tl::copy_(tl::select(base, -1, 0), axis_coordinates(dtype, device, W, align_corners));
  tl::copy_(tl::select(base, -1, 1), tl::unsqueeze(axis_coordinates(dtype, device, H, align_corners), -1));
  if (vol)
    tl::copy_(tl::select(base, -1, 2),
              tl::unsqueeze(tl::unsqueeze(axis_coordinates(dtype, device, D, align_corners), -1), -1));
  tl::fill_(tl::select(base, -1, k), 1);
  return base;
}

int64_t points(IntArrayRef size) {
  int64_t p = 1;
  for (size_t d = 2; d < size.size(); ++d) p *= size[d];
  return p;
}

}  // namespace

Tensor affine_grid_generator_kernel(const Tensor& theta, IntArrayRef size, bool align_corners) {
  check_size(size);
  const int64_t k = static_cast<int64_t>(size.size()) - 2;
  const Tensor base = base_grid(theta.scalar_type(), theta.device(), size, align_corners);
  const Tensor grid = tl::bmm(tl::view(base, {size[0], points(size), k + 1}), tl::transpose(theta, 1, 2));
  DimVector shape{size[0]};
  for (size_t d = 2; d < size.size(); ++d) shape.push_back(size[d]);
  shape.push_back(k);
  return tl::view(grid, shape);
}

Tensor affine_grid_generator_backward_composite(const Tensor& grad_grid, IntArrayRef size, bool align_corners) {
  check_size(size);
  const int64_t k = static_cast<int64_t>(size.size()) - 2;
  const Tensor base = base_grid(grad_grid.scalar_type(), grad_grid.device(), size, align_corners);
  const Tensor g = tl::bmm(tl::transpose(tl::view(base, {size[0], points(size), k + 1}), 1, 2),
                           tl::reshape(grad_grid, {size[0], points(size), k}));
  return tl::transpose(g, 1, 2);
}

}  // namespace tl::native
