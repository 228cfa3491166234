#include "aten/autograd/FunctionsManualNorm.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "generated/ops/_to_copy.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/gt.h"
#include "generated/ops/isnan.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"
#include "generated/ops/real.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/sgn.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"

namespace tl::autograd::generated {

namespace {

// `t` with the reduced dims of a keepdim=False reduction put back as size-1 dims. An empty `dim`
// (a full reduction) leaves `t` as it is: its 0-d value broadcasts.
Tensor unsqueeze_reduced(const Tensor& t, IntArrayRef dim, int64_t ndim) {
  std::vector<int64_t> dims;
  for (int64_t d : dim) dims.push_back(maybe_wrap_dim(d, ndim));
  std::sort(dims.begin(), dims.end());
  Tensor r = t;
  for (int64_t d : dims) r = tl::unsqueeze(r, d);
  return r;
}

}  // namespace

Tensor norm_backward(Tensor grad, const Tensor& self_in, const std::optional<Scalar>& p_opt, Tensor norm,
                     IntArrayRef dim, bool keepdim) {
  const double p = p_opt ? p_opt->to_double() : 2.0;
  if (p == 0.0) return Tensor();
  // A complex input keeps its complex type (of grad's precision): its gradient is complex.
  const ScalarType want = is_complex_type(self_in.dtype()) ? to_complex_type(grad.dtype()) : grad.dtype();
  const Tensor self = self_in.dtype() == want ? self_in : tl::_to_copy(self_in, want);
  if (!keepdim && self.dim() != 0) {
    grad = unsqueeze_reduced(grad, dim, self.dim());
    norm = unsqueeze_reduced(norm, dim, self.dim());
  }
  const Tensor zero_norm = tl::eq(norm, Scalar(0));
  if (p == 1.0) return tl::mul(tl::sgn(self), grad);
  if (p == 2.0) return tl::mul(grad, tl::where(zero_norm, Scalar(0), tl::div(self, norm)));  // (complex too)
  if (std::isinf(p)) {
    // The extrema (and NaNs) share the gradient evenly.
    const Tensor self_abs = tl::abs(self);
    const Tensor mask = tl::logical_or(tl::eq(self_abs, norm), tl::isnan(self_abs));
    const Tensor count = tl::sum(mask, dim, /*keepdim=*/true);
    return tl::mul(tl::sgn(self), tl::mul(tl::div(grad, count), mask));
  }
  if (p < 1.0) {
    const Tensor scaled =
        tl::mul(tl::sgn(self), tl::masked_fill(tl::pow(tl::abs(self), Scalar(p - 1)), tl::eq(self, Scalar(0)), Scalar(0)));
    return tl::mul(tl::mul(scaled, grad), tl::pow(norm, Scalar(1 - p)));
  }
  const Tensor scale = tl::masked_fill(tl::div(grad, tl::pow(norm, Scalar(p - 1))), zero_norm, Scalar(0));
  if (p < 2.0) return tl::mul(tl::mul(tl::sgn(self), tl::pow(tl::abs(self), Scalar(p - 1))), scale);
  return tl::mul(tl::mul(self, tl::pow(tl::abs(self), Scalar(p - 2))), scale);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm) {
  return norm_backward(grad, self, p, norm, {}, true);
}

Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& norm,
                                   OptionalIntArrayRef dim, bool keepdim) {
  return norm_backward(grad, self, ord, norm, dim ? *dim : IntArrayRef(), keepdim);
}

Tensor renorm_backward(const Tensor& grad, const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  const int64_t n = self.dim();
  const int64_t d = maybe_wrap_dim(dim, n);
  std::vector<int64_t> reduce_dims(static_cast<size_t>(n));
  std::iota(reduce_dims.begin(), reduce_dims.end(), 0);
  reduce_dims.erase(reduce_dims.begin() + d);
  const ScalarType acc = is_reduced_float(self.dtype()) ? ScalarType::Float32 : ScalarType::Float64;
  // Complex (PyTorch's): the norm's gradient is fed the real part of sum(conj(self) * grad).
  const bool complex = is_complex_type(self.dtype());
  const Tensor norm = tl::linalg_vector_norm(self, p, IntArrayRef(reduce_dims), true,
                                             complex ? to_complex_type(acc) : acc);
  const Tensor grad_output = complex ? tl::sum(tl::real(tl::mul(tl::conj_physical(self), grad)), IntArrayRef(reduce_dims), true, acc)
                                     : tl::sum(tl::mul(self, grad), IntArrayRef(reduce_dims), true, acc);
  const Tensor nb = norm_backward(grad_output, self, p, norm, reduce_dims, true);
  const Tensor invnorm = tl::reciprocal(tl::add(norm, Scalar(1e-7)));
  const Tensor grad_norm = tl::mul(tl::mul(invnorm, maxnorm), tl::sub(grad, tl::mul(invnorm, nb)));
  return tl::where(tl::gt(norm, maxnorm), tl::_to_copy(grad_norm, grad.dtype()), grad);
}

}  // namespace tl::autograd::generated
