// The `.vec` overloads of the upsample ops, which F.interpolate calls: composites, as in PyTorch, that
// take either the output size or the scale factors (the size is then floor(input size * factor), and
// the factors are passed on as the scales) and call the op itself (so its gradient is the op's).
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "generated/ops/_upsample_bicubic2d_aa.h"
#include "generated/ops/_upsample_bilinear2d_aa.h"
#include "generated/ops/_upsample_nearest_exact1d.h"
#include "generated/ops/_upsample_nearest_exact2d.h"
#include "generated/ops/_upsample_nearest_exact3d.h"
#include "generated/ops/upsample_bicubic2d.h"
#include "generated/ops/upsample_bilinear2d.h"
#include "generated/ops/upsample_linear1d.h"
#include "generated/ops/upsample_nearest1d.h"
#include "generated/ops/upsample_nearest2d.h"
#include "generated/ops/upsample_nearest3d.h"
#include "generated/ops/upsample_trilinear3d.h"

namespace tl::native {
namespace {

using Scales = std::vector<std::optional<double>>;

DimVector vec_output_size(const char* op, const Tensor& input, OptionalIntArrayRef output_size,
                          std::optional<ArrayRef<double>> scale_factors, int64_t k) {
  TL_CHECK(output_size.has_value() != scale_factors.has_value(), op,
           ": Must specify exactly one of output_size and scale_factors");
  if (output_size) return DimVector(*output_size);
  TL_CHECK(static_cast<int64_t>(scale_factors->size()) == k, op, ": It is expected output_size equals to ", k,
           ", but got size ", scale_factors->size());
  TL_CHECK(input.dim() == k + 2, op, ": It is expected input_size equals to ", k + 2, ", but got size ", input.dim());
  DimVector size;
  for (int64_t j = 0; j < k; ++j)
    size.push_back(static_cast<int64_t>(static_cast<double>(input.sizes()[2 + j]) * (*scale_factors)[j]));
  return size;
}

Scales vec_scales(std::optional<ArrayRef<double>> scale_factors, int64_t k) {
  Scales s(static_cast<size_t>(k));
  if (scale_factors && static_cast<int64_t>(scale_factors->size()) == k)
    for (int64_t j = 0; j < k; ++j) s[j] = (*scale_factors)[j];
  return s;
}

}  // namespace

Tensor upsample_nearest1d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                        std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 1);
  const DimVector size = vec_output_size("upsample_nearest1d", input, output_size, scale_factors, 1);
  return tl::upsample_nearest1d(input, size, s[0]);
}

Tensor upsample_nearest2d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                        std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("upsample_nearest2d", input, output_size, scale_factors, 2);
  return tl::upsample_nearest2d(input, size, s[0], s[1]);
}

Tensor upsample_nearest3d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                        std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 3);
  const DimVector size = vec_output_size("upsample_nearest3d", input, output_size, scale_factors, 3);
  return tl::upsample_nearest3d(input, size, s[0], s[1], s[2]);
}

Tensor _upsample_nearest_exact1d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                               std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 1);
  const DimVector size = vec_output_size("_upsample_nearest_exact1d", input, output_size, scale_factors, 1);
  return tl::_upsample_nearest_exact1d(input, size, s[0]);
}

Tensor _upsample_nearest_exact2d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                               std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("_upsample_nearest_exact2d", input, output_size, scale_factors, 2);
  return tl::_upsample_nearest_exact2d(input, size, s[0], s[1]);
}

Tensor _upsample_nearest_exact3d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size,
                                               std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 3);
  const DimVector size = vec_output_size("_upsample_nearest_exact3d", input, output_size, scale_factors, 3);
  return tl::_upsample_nearest_exact3d(input, size, s[0], s[1], s[2]);
}

Tensor upsample_linear1d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                       std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 1);
  const DimVector size = vec_output_size("upsample_linear1d", input, output_size, scale_factors, 1);
  return tl::upsample_linear1d(input, size, align_corners, s[0]);
}

Tensor upsample_bilinear2d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                         std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("upsample_bilinear2d", input, output_size, scale_factors, 2);
  return tl::upsample_bilinear2d(input, size, align_corners, s[0], s[1]);
}

Tensor upsample_bicubic2d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                        std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("upsample_bicubic2d", input, output_size, scale_factors, 2);
  return tl::upsample_bicubic2d(input, size, align_corners, s[0], s[1]);
}

Tensor upsample_trilinear3d_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                          std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 3);
  const DimVector size = vec_output_size("upsample_trilinear3d", input, output_size, scale_factors, 3);
  return tl::upsample_trilinear3d(input, size, align_corners, s[0], s[1], s[2]);
}

Tensor _upsample_bilinear2d_aa_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                             std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("_upsample_bilinear2d_aa", input, output_size, scale_factors, 2);
  return tl::_upsample_bilinear2d_aa(input, size, align_corners, s[0], s[1]);
}

Tensor _upsample_bicubic2d_aa_vec_composite(const Tensor& input, OptionalIntArrayRef output_size, bool align_corners,
                                            std::optional<ArrayRef<double>> scale_factors) {
  const Scales s = vec_scales(scale_factors, 2);
  const DimVector size = vec_output_size("_upsample_bicubic2d_aa", input, output_size, scale_factors, 2);
  return tl::_upsample_bicubic2d_aa(input, size, align_corners, s[0], s[1]);
}

}  // namespace tl::native
