// trapezoid / trapz / cumulative_trapezoid: the trapezoidal rule along a dim, as PyTorch's composites
// (aten/native/Integration.cpp's semantics): with sample points `x` the spacings are x's neighbour
// differences, taken before broadcasting against y's (NumPy's rule: a 1-D x lies along `dim`, a
// lower-rank x gets leading 1s); with a number `dx` the sum is written as sum(y) - (y0 + yn)/2, which
// is the operation order PyTorch rounds with. Autograd comes from the ops used.
#include <optional>

#include "aten/core/Exception.h"
#include "generated/ops/add.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/cumulative_trapezoid.h"
#include "generated/ops/div.h"
#include "generated/ops/mul.h"
#include "generated/ops/select.h"
#include "generated/ops/slice.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/trapezoid.h"
#include "generated/ops/trapz.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

// y's shape without `dim` (the result of integrating zero samples), in y's dtype: NumPy's 0.
Tensor zeros_without(const Tensor& y, int64_t dim) {
  DimVector sizes(y.sizes());
  sizes.erase(static_cast<size_t>(dim));
  return zeros(sizes, y.scalar_type(), y.device());
}

// x's neighbour differences along `dim`, shaped to broadcast against y's.
Tensor spacings(const Tensor& y, const Tensor& x, int64_t dim, const char* op) {
  Tensor xv = x;
  if (x.dim() == 1) {
    TL_CHECK(x.size(0) == y.size(dim), op, ": There must be one `x` value for each sample point");
    DimVector shape(static_cast<size_t>(y.dim()), 1);
    shape[static_cast<size_t>(dim)] = x.size(0);
    xv = view(x, shape);
  } else if (x.dim() < y.dim()) {
    DimVector shape(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t s : x.sizes()) shape.push_back(s);
    xv = view(x, shape);
  }
  return sub(slice(xv, dim, 1, std::nullopt), slice(xv, dim, 0, -1));
}

// (y[i] + y[i+1]) along dim: the pairs each trapezoid adds.
Tensor pair_sums(const Tensor& y, int64_t dim) { return add(slice(y, dim, 0, -1), slice(y, dim, 1, std::nullopt)); }

// A 0-d y has no dim to integrate along (PyTorch raises IndexError too).
int64_t sample_dim(const Tensor& y, int64_t dim, const char* op) {
  TL_CHECK_INDEX(y.dim() > 0, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  return maybe_wrap_dim(dim, y.dim(), op);
}

double real_dx(const Scalar& dx, const char* op) {
  TL_CHECK(!dx.is_complex() && !dx.is_bool(), op, ": Currently, we only support dx as a real number.");
  return dx.to_double();
}

}  // namespace

Tensor trapezoid_x_composite(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = sample_dim(y, dim, "trapezoid");
  if (y.size(dim) == 0) return zeros_without(y, dim);
  TL_CHECK(y.scalar_type() != ScalarType::Bool && x.scalar_type() != ScalarType::Bool,
           "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  return div(sum(mul(pair_sums(y, dim), spacings(y, x, dim, "trapezoid")), IntArrayRef{dim}), Scalar(2.0));
}

Tensor trapezoid_dx_composite(const Tensor& y, const Scalar& dx, int64_t dim) {
  dim = sample_dim(y, dim, "trapezoid");
  if (y.size(dim) == 0) return zeros_without(y, dim);
  TL_CHECK(y.scalar_type() != ScalarType::Bool, "trapezoid: received a bool input for `y`, but bool is not supported");
  const double h = real_dx(dx, "trapezoid");
  const Tensor ends = mul(add(select(y, dim, 0), select(y, dim, -1)), Scalar(0.5));
  return mul(sub(sum(y, IntArrayRef{dim}), ends), Scalar(h));
}

Tensor trapz_x_composite(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid_x_composite(y, x, dim); }

Tensor trapz_dx_composite(const Tensor& y, double dx, int64_t dim) {
  return trapezoid_dx_composite(y, Scalar(dx), dim);
}

Tensor cumulative_trapezoid_x_composite(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = sample_dim(y, dim, "cumulative_trapezoid");
  TL_CHECK(y.scalar_type() != ScalarType::Bool && x.scalar_type() != ScalarType::Bool,
           "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  return div(cumsum(mul(pair_sums(y, dim), spacings(y, x, dim, "cumulative_trapezoid")), dim), Scalar(2.0));
}

Tensor cumulative_trapezoid_dx_composite(const Tensor& y, const Scalar& dx, int64_t dim) {
  TL_CHECK(y.scalar_type() != ScalarType::Bool,
           "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  const double h = real_dx(dx, "cumulative_trapezoid");
  dim = sample_dim(y, dim, "cumulative_trapezoid");
  return cumsum(mul(pair_sums(y, dim), Scalar(h / 2.0)), dim);
}

}  // namespace tl::native
