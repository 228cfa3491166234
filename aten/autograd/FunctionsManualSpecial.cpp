#include "aten/autograd/FunctionsManualSpecial.h"

#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/digamma.h"
#include "generated/ops/eq.h"
#include "generated/ops/polygamma.h"
#include "generated/ops/div.h"
#include "generated/ops/full_like.h"
#include "generated/ops/gt.h"
#include "generated/ops/i0.h"
#include "generated/ops/lt.h"
#include "generated/ops/le.h"
#include "generated/ops/mul.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sign.h"
#include "generated/ops/special_i0e.h"
#include "generated/ops/special_xlog1py.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/xlogy.h"
#include "generated/ops/zeros_like.h"
#include "generated/ops/where.h"

namespace tl::autograd::generated {
namespace {

double dtype_epsilon(ScalarType t) {
  switch (t) {
    case ScalarType::Float16: return 0.0009765625;
    case ScalarType::BFloat16: return 0.0078125;
    case ScalarType::Float32: return 1.1920928955078125e-07;
    default: return 2.220446049250313e-16;
  }
}

// where(|x| > eps, value(safe_x), 1/2) with safe_x = x there and eps elsewhere, so that the
// branch not taken never divides by 0 (its gradient would be nan through `where`).
template <typename F>
Tensor away_from_zero(const Tensor& grad, const Tensor& self, const F& value) {
  const double eps = dtype_epsilon(self.dtype());
  const Tensor not_tiny = gt(abs(self), eps);
  const Tensor safe = where(not_tiny, self, full_like(self, eps));
  return mul(grad, where(not_tiny, value(safe), full_like(self, 0.5)));
}

}  // namespace

Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  const bool clamped = eps && *eps >= 0.0;
  const double lo = clamped ? *eps : 0.0;
  const double hi = clamped ? 1.0 - *eps : 1.0;
  const Tensor value = div(grad, mul(self, rsub(self, 1)));
  const Tensor outside = full_like(value, clamped ? 0.0 : std::numeric_limits<double>::quiet_NaN());
  return where(lt(self, lo), outside, where(gt(self, hi), outside, value));
}

Tensor i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  return away_from_zero(grad, self, [&](const Tensor& x) { return sub(i0(x), mul(result, reciprocal(x))); });
}

Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  return away_from_zero(grad, self, [&](const Tensor& x) {
    return sub(special_i0e(x), mul(result, add(sign(x), reciprocal(x))));
  });
}

Tensor xlogy_self_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool log1p) {
  const Tensor value = log1p ? special_xlog1py(grad, other) : xlogy(grad, other);
  const Tensor mask = mul(eq(self, 0), le(other, log1p ? -1.0 : 0.0));  // bool * bool: and
  return where(mask, zeros_like(value), value);
}

Tensor xlogy_self_backward(const Tensor& grad, const Tensor& self, const Scalar& other) {
  const Tensor value = xlogy(grad, other);
  if (other.to_double() > 0.0 || std::isnan(other.to_double())) return value;
  return where(eq(self, 0), zeros_like(value), value);
}

Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p) {
  const Tensor offsets = arange(-0.5 * static_cast<double>(p - 1), 0.25, 0.5, self.dtype(), self.device());
  const Tensor sum_digamma = sum(digamma(add(unsqueeze(self, -1), offsets)), IntArrayRef{-1}, false, std::nullopt);
  return mul(grad, sum_digamma);
}

Tensor not_implemented_backward(const char* name) {
  throw NotImplementedError(str("the derivative for '", name, "' is not implemented."));
}

Tensor polygamma_backward(const Tensor& grad, int64_t n, const Tensor& self) {
  // PyTorch computes n + 1 in int64 and so wraps to a negative order; here it is an error of its own.
  TL_CHECK(n < std::numeric_limits<int64_t>::max(),
           "polygamma: the derivative of polygamma(n, x) needs order n + 1, which overflows int64 for n = ", n);
  return tl::mul(grad, tl::polygamma(n + 1, self));
}

}  // namespace tl::autograd::generated
