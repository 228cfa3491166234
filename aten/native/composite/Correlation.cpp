// cov and corrcoef, composites as in PyTorch (autograd comes from the ops they call).
//
// cov: the rows of `self` are variables, the columns observations. With weights w (fweights times
// aweights) the mean is sum(x * w) / sum(w) and the normalization sum(w) - correction (times
// sum(w * aweights) / sum(w) when aweights are given); a normalization <= 0 divides by zero, as
// in PyTorch (which also warns). One deliberate difference: for a single observation with exactly
// one kind of weights PyTorch zeroes the caller's input in place (`in.zero_()`); here the result is
// the same zeros but the input is left alone.
#include <optional>

#include "aten/core/Exception.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/clip.h"
#include "generated/ops/complex.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/corrcoef.h"
#include "generated/ops/cov.h"
#include "generated/ops/div.h"
#include "generated/ops/imag.h"
#include "generated/ops/ge.h"
#include "generated/ops/le.h"
#include "generated/ops/min.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/real.h"
#include "generated/ops/reshape.h"
#include "generated/ops/slice.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {
namespace {

bool is_true(const Tensor& t) { return tensor_item(t).to_bool(); }

// The checks PyTorch makes of each weight vector (`kind` is "fweights" or "aweights").
void check_weights(const Tensor& w, const char* kind, bool integral, int64_t observations) {
  TL_CHECK(w.dim() <= 1, "cov(): expected ", kind, " to have one or fewer dimensions but got ", kind, " with ",
           w.dim(), " dimensions");
  if (integral)
    TL_CHECK(is_integral_type(w.dtype(), false), "cov(): expected fweights to have integral dtype but got fweights "
             "with ", legacy_type_name(w.dtype()), " dtype");
  else
    TL_CHECK(is_floating_type(w.dtype()), "cov(): expected aweights to have floating point dtype but got aweights "
             "with ", legacy_type_name(w.dtype()), " dtype");
  TL_CHECK(w.numel() == observations, "cov(): expected ", kind, " to have the same numel as there are observations "
           "in the input but got ", w.numel(), " != ", observations);
  TL_CHECK(observations == 0 || is_true(tl::ge(tl::min(w), Scalar(0))), "cov(): ", kind, " cannot be negative");
}

}  // namespace

Tensor cov_composite(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
                     const std::optional<Tensor>& aweights) {
  TL_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  TL_CHECK(self.dtype() != ScalarType::Bool, "cov(): bool dtype is not supported for input");
  Tensor in = self.dim() < 2 ? tl::view(self, {1, -1}) : self;  // (variables, observations)
  const int64_t observations = in.sizes()[1];

  Tensor w;  // fweights * aweights
  if (fweights) {
    check_weights(*fweights, "fweights", true, observations);
    w = *fweights;
  }
  if (aweights) {
    check_weights(*aweights, "aweights", false, observations);
    w = w.defined() ? tl::mul(w, *aweights) : *aweights;
  }
  const Tensor w_sum = w.defined() ? tl::sum(w) : scalar_to_tensor(Scalar(observations), ScalarType::Int64);
  TL_CHECK(!w.defined() || is_true(tl::ne(w_sum, Scalar(0))), "cov(): weights sum to zero, can't be normalized");
  const int64_t observations_dim[1] = {1};
  const Tensor avg = tl::div(tl::sum(w.defined() ? tl::mul(in, w) : in, IntArrayRef(observations_dim, 1)), w_sum);

  Tensor norm_factor;
  if (!w.defined()) {
    // Wraps for corrections near the int64 limits, as PyTorch's arithmetic does (no signed overflow).
    const auto dof = static_cast<int64_t>(static_cast<uint64_t>(observations) - static_cast<uint64_t>(correction));
    norm_factor = scalar_to_tensor(Scalar(dof), ScalarType::Int64);
  } else if (correction == 0) {
    norm_factor = w_sum;
  } else if (!aweights) {
    norm_factor = tl::sub(w_sum, Scalar(correction));
  } else if (!fweights && observations == 1 && correction == 1) {
    norm_factor = scalar_to_tensor(Scalar(int64_t(0)), ScalarType::Int64);  // PyTorch's guard against rounding
  } else {
    norm_factor = tl::sub(w_sum, tl::div(tl::mul(tl::sum(tl::mul(w, *aweights)), Scalar(correction)), w_sum));
  }
  if (is_true(tl::le(norm_factor, Scalar(0)))) norm_factor = tl::zeros_like(norm_factor);

  if (observations == 1 && fweights.has_value() != aweights.has_value()) {
    // The weighted mean of one observation is the observation: the deviations are exactly zero.
    in = tl::zeros_like(in, is_integral_type(in.dtype(), false) ? std::optional<ScalarType>(ScalarType::Float32)
                                                                  : std::nullopt);
  } else {
    in = tl::sub(in, tl::unsqueeze(avg, 1));
  }
  // The deviations times their conjugate transpose (complex variables: a Hermitian matrix, as PyTorch's).
  Tensor rhs = tl::t(w.defined() ? tl::mul(in, w) : in);
  if (is_complex_type(rhs.scalar_type())) rhs = tl::conj_physical(rhs);
  const Tensor c = tl::mm(in, rhs);
  return tl::squeeze(tl::div(c, norm_factor));
}

Tensor corrcoef_composite(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  Tensor c = tl::cov(self);
  if (c.dim() == 0) return tl::div(c, c);  // nan for a variance of 0, nan or inf; 1 otherwise
  // The diagonal as a strided view of the flattened (contiguous) matrix.
  const int64_t n = c.sizes()[0];
  const bool complex = is_complex_type(c.scalar_type());
  const Tensor diagonal = tl::slice(tl::reshape(c, {-1}), 0, 0, std::nullopt, n + 1);
  const Tensor stddev = tl::sqrt(complex ? tl::real(diagonal) : diagonal);  // a Hermitian matrix's is real
  c = tl::div(c, tl::view(stddev, {-1, 1}));
  c = tl::div(c, tl::view(stddev, {1, -1}));
  // Rounding may leave |c| slightly above 1, as NumPy clips (complex: each part, as PyTorch).
  if (complex)
    return tl::complex(tl::clip(tl::real(c), Scalar(-1), Scalar(1)), tl::clip(tl::imag(c), Scalar(-1), Scalar(1)));
  return tl::clip(c, Scalar(-1), Scalar(1));
}

}  // namespace tl::native
