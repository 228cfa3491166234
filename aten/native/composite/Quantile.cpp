// quantile and nanquantile: composites of sort, gather and lerp, as in PyTorch, so their gradients
// (to self, and to a tensor q through the interpolation weights) come from those ops.
//
// The slices along `dim` (or the flattened tensor) are sorted; q in [0, 1] becomes a fractional rank
// in a slice, q * (n - 1), where n counts the non-NaN values for nanquantile (a rank of 0 for an
// all-NaN slice gives NaN); for quantile a slice holding NaN gets the last rank, which holds NaN. The
// result interpolates between the values at the ranks below and above as `interpolation` says.
// The quantiles are the result's first dim when q is 1-D.
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/DimEngine.h"
#include "aten/native/Resize.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/any.h"
#include "generated/ops/ceil.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/expand.h"
#include "generated/ops/floor.h"
#include "generated/ops/full_like.h"
#include "generated/ops/gather.h"
#include "generated/ops/isnan.h"
#include "generated/ops/lerp.h"
#include "generated/ops/logical_not.h"
#include "generated/ops/lt.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/mul.h"
#include "generated/ops/nanquantile.h"
#include "generated/ops/quantile.h"
#include "generated/ops/reshape.h"
#include "generated/ops/round.h"
#include "generated/ops/sort.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

namespace {

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

Interpolation parse_interpolation(std::string_view s) {
  if (s == "linear") return Interpolation::Linear;
  if (s == "lower") return Interpolation::Lower;
  if (s == "higher") return Interpolation::Higher;
  if (s == "midpoint") return Interpolation::Midpoint;
  TL_CHECK(s == "nearest", "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
           s);
  return Interpolation::Nearest;
}

void check_scalar_q(double q) {
  TL_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
}

// PyTorch's checks, in its order; returns the result's shape. `out` is checked when given.
DimVector checked_shape(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        const Tensor* out) {
  TL_CHECK(self.numel() > 0, "quantile() input tensor must be non-empty");
  TL_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  TL_CHECK(self.dtype() == ScalarType::Float32 || self.dtype() == ScalarType::Float64,
           "quantile() input tensor must be either float or double dtype");
  TL_CHECK(self.dtype() == q.dtype(), "quantile() q tensor must be same dtype as the input tensor");
  TL_CHECK(!out || self.dtype() == out->dtype(), "quantile() out tensor must be same dtype as the input tensor");
  TL_CHECK(self.device() == q.device(), "quantile() q tensor must be on the same device as the input tensor");
  TL_CHECK(!out || self.device() == out->device(),
           "quantile() out tensor must be on the same device as the input tensor");
  const int64_t d = maybe_wrap_dim(dim.value_or(0), self.dim(), "quantile");
  DimVector shape;
  if (dim && self.dim() > 0) {
    shape = DimVector(self.sizes());
    if (keepdim) shape[d] = 1;
    else shape.erase(d);
  } else if (keepdim) {
    shape = DimVector(std::vector<int64_t>(static_cast<size_t>(self.dim()), 1));
  }
  if (q.dim() > 0) shape.insert(0, q.numel());
  return shape;
}

void check_q_values(const Tensor& q) {
  if (!q.is_cpu()) return;  // as PyTorch: checked on the CPU only
  const Tensor v = tl::contiguous(tl::_to_copy(q, ScalarType::Float64));
  const double* p = v.data_ptr<double>();
  for (int64_t i = 0; i < v.numel(); ++i)
    TL_CHECK(p[i] >= 0 && p[i] <= 1, "quantile() q values must be in the range [0, 1]");
}

Tensor quantile_compute(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation, bool ignore_nan, const Tensor* out) {
  const Interpolation mode = parse_interpolation(interpolation);
  const DimVector shape = checked_shape(self, q, dim, keepdim, out);
  check_q_values(q);

  // Sorted slices, the reduced dim last, viewed as (result shape without q's dim..., n).
  Tensor sorted;
  const int64_t d = maybe_wrap_dim(dim.value_or(0), self.dim(), "quantile");
  if (!dim) sorted = std::get<0>(tl::sort(tl::reshape(self, {-1})));
  else if (d == self.dim() - 1) sorted = std::get<0>(tl::sort(self));
  else sorted = std::get<0>(tl::sort(tl::transpose(tl::unsqueeze(self, -1), d, -1)));
  const int64_t n = sorted.dim() == 0 ? 1 : sorted.sizes()[sorted.dim() - 1];
  DimVector view_shape(shape);
  if (q.dim() > 0) view_shape.erase(0);
  view_shape.push_back(n);
  sorted = tl::reshape(sorted, view_shape);
  TL_CHECK(n <= (int64_t{1} << 24), "quantile() input tensor is too large");

  // Fractional ranks, shape (..., number of q's): q varies along the last dim.
  const Tensor q1 = tl::reshape(q, {-1});
  DimVector ranks_shape(view_shape);
  ranks_shape.back() = q1.numel();
  Tensor ranks;
  if (ignore_nan) {
    const Tensor valid = tl::sum(tl::logical_not(tl::isnan(sorted)), IntArrayRef{-1}, true);
    ranks = tl::mul(q1, tl::sub(valid, Scalar(1)));
    ranks = tl::masked_fill(ranks, tl::lt(ranks, Scalar(0)), Scalar(0));
  } else {
    const Tensor any_nan = tl::expand(tl::any(tl::isnan(sorted), -1, true), ranks_shape);
    ranks = tl::masked_fill(tl::expand(tl::mul(q1, Scalar(n - 1)), ranks_shape), any_nan, Scalar(n - 1));
  }
  if (mode == Interpolation::Lower) ranks = tl::floor(ranks);
  else if (mode == Interpolation::Higher) ranks = tl::ceil(ranks);
  else if (mode == Interpolation::Nearest) ranks = tl::round(ranks);

  const Tensor below = tl::_to_copy(ranks, ScalarType::Int64);
  Tensor values = tl::gather(sorted, -1, below);
  if (mode == Interpolation::Linear || mode == Interpolation::Midpoint) {
    const Tensor weights = mode == Interpolation::Midpoint ? tl::full_like(ranks, Scalar(0.5)) : tl::sub(ranks, below);
    const Tensor above = tl::_to_copy(tl::ceil(ranks), ScalarType::Int64);
    values = tl::lerp(values, tl::gather(sorted, -1, above), weights);
  }
  if (q.dim() == 0) values = tl::squeeze(values, int64_t{-1});
  else values = tl::squeeze(tl::transpose(tl::unsqueeze(values, 0), 0, -1), int64_t{-1});
  return tl::contiguous(tl::reshape(values, shape));
}

const Tensor& quantile_into(const Tensor& out, const Tensor& self, const Tensor& q, std::optional<int64_t> dim,
                            bool keepdim, std::string_view interpolation, bool ignore_nan) {
  const Tensor result = quantile_compute(self, q, dim, keepdim, interpolation, ignore_nan, &out);
  resize_output(out, result.sizes(), "quantile");
  return tl::copy_(out, result);
}

Tensor q_tensor(double q, const Tensor& self) {
  check_scalar_q(q);
  return scalar_to_tensor(Scalar(q), self.dtype(), self.device());
}

}  // namespace

Tensor quantile_composite(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                          std::string_view interpolation) {
  return quantile_compute(self, q, dim, keepdim, interpolation, false, nullptr);
}

const Tensor& quantile_out_composite(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                                     std::string_view interpolation, const Tensor& out) {
  return quantile_into(out, self, q, dim, keepdim, interpolation, false);
}

Tensor quantile_scalar_composite(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                                 std::string_view interpolation) {
  return quantile_compute(self, q_tensor(q, self), dim, keepdim, interpolation, false, nullptr);
}

const Tensor& quantile_scalar_out_composite(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                                            std::string_view interpolation, const Tensor& out) {
  return quantile_into(out, self, q_tensor(q, self), dim, keepdim, interpolation, false);
}

Tensor nanquantile_composite(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                             std::string_view interpolation) {
  return quantile_compute(self, q, dim, keepdim, interpolation, true, nullptr);
}

const Tensor& nanquantile_out_composite(const Tensor& self, const Tensor& q, std::optional<int64_t> dim,
                                        bool keepdim, std::string_view interpolation, const Tensor& out) {
  return quantile_into(out, self, q, dim, keepdim, interpolation, true);
}

Tensor nanquantile_scalar_composite(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                                    std::string_view interpolation) {
  return quantile_compute(self, q_tensor(q, self), dim, keepdim, interpolation, true, nullptr);
}

const Tensor& nanquantile_scalar_out_composite(const Tensor& self, double q, std::optional<int64_t> dim,
                                               bool keepdim, std::string_view interpolation, const Tensor& out) {
  return quantile_into(out, self, q_tensor(q, self), dim, keepdim, interpolation, true);
}

}  // namespace tl::native
