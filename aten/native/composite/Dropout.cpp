// dropout, feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place forms, composed as
// PyTorch's CPU path: a noise tensor drawn with bernoulli_(1 - p) (PyTorch's stream, docs/random.md),
// then input * noise (+ b for the alpha forms), so the gradient comes from mul (and add). Feature
// dropout draws one noise value per (sample, channel), broadcast over the other dims. native_dropout
// is the fused kernel PyTorch's GPU path uses; the CPU composite is kept for PyTorch's numbers.
#include <cmath>
#include <vector>

#include "aten/core/Exception.h"
#include "generated/ops/add.h"
#include "generated/ops/alpha_dropout.h"
#include "generated/ops/bernoulli.h"
#include "generated/ops/div.h"
#include "generated/ops/dropout.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/feature_alpha_dropout.h"
#include "generated/ops/feature_dropout.h"
#include "generated/ops/mul.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

// SELU's alpha * scale: alpha dropout keeps SELU's mean and variance.
constexpr double kSeluAlpha = 1.7580993408473766;

Tensor feature_noise(const Tensor& input) {
  TL_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  std::vector<int64_t> sizes(input.dim(), 1);
  sizes[0] = input.sizes()[0];
  sizes[1] = input.sizes()[1];
  return empty(sizes, input.dtype(), input.device());
}

// The result, or (inplace) input written with it.
Tensor dropout_impl(const Tensor& input, double p, bool train, bool feature, bool alpha, bool inplace) {
  TL_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || input.numel() == 0) return input;  // input itself, as PyTorch
  if (p == 1) {
    const Tensor zero = zeros({}, input.dtype(), input.device());
    return inplace ? mul_(input, zero) : mul(input, zero);  // nan stays nan, -x gives -0
  }
  Tensor noise = feature ? feature_noise(input) : empty_like(input);
  bernoulli_(noise, 1 - p);
  if (!alpha) {
    div_(noise, 1 - p);
    return inplace ? mul_(input, noise) : mul(input, noise);
  }
  // Dropped elements become SELU's saturation value, then an affine map restores mean and variance.
  const double a = 1. / std::sqrt((kSeluAlpha * kSeluAlpha * p + 1) * (1 - p));
  const Tensor b = add(mul(add(noise, -1), kSeluAlpha * a), kSeluAlpha * a * p);
  mul_(noise, a);
  return inplace ? add_(mul_(input, noise), b) : add_(mul(input, noise), b);
}

}  // namespace

Tensor dropout_composite(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, false, false, false);
}
const Tensor& dropout__composite(const Tensor& self, double p, bool train) {
  dropout_impl(self, p, train, false, false, true);
  return self;
}
Tensor feature_dropout_composite(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, false, false);
}
const Tensor& feature_dropout__composite(const Tensor& self, double p, bool train) {
  dropout_impl(self, p, train, true, false, true);
  return self;
}
Tensor alpha_dropout_composite(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, false, true, false);
}
const Tensor& alpha_dropout__composite(const Tensor& self, double p, bool train) {
  dropout_impl(self, p, train, false, true, true);
  return self;
}
Tensor feature_alpha_dropout_composite(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, true, false);
}
const Tensor& feature_alpha_dropout__composite(const Tensor& self, double p, bool train) {
  dropout_impl(self, p, train, true, true, true);
  return self;
}

}  // namespace tl::native
