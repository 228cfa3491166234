// multinomial and poisson: samplers whose draws follow PyTorch's CPU kernels step by step (the same
// generator calls in the same order, the same arithmetic), so a seed gives PyTorch's numbers.
//  * multinomial without replacement (or a single sample) is the "exponential race": q ~ Exp(1) drawn
//    like empty_like(self).exponential_(), then argmax / top-k of self / q along the last dim;
//  * multinomial with replacement draws one float64 uniform per sample and binary-searches the row's
//    normalised cumulative sum (float accumulation for float16/bfloat16, as PyTorch);
//  * poisson runs PyTorch's sampler (transformed rejection from rate 10, multiplication below) on
//    float64 uniforms, element by element in row-major order.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Distributions.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/argmax.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/div.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/exponential.h"
#include "generated/ops/multinomial.h"
#include "generated/ops/poisson.h"
#include "generated/ops/topk.h"
#include "generated/ops/to.h"

namespace tl::native {
namespace {

constexpr int64_t kMaxCategories = int64_t(1) << 24;  // indices must stay exact in float32

// Without replacement (or one sample): PyTorch's checks, then the race q = self / Exp(1).
void multinomial_race(const Tensor& self, int64_t n_sample, std::optional<Generator> generator, Tensor& out) {
  auto [lo, hi] = tl::aminmax(self);  // an empty row raises aminmax's error, as in PyTorch
  const double min_p = tensor_item(lo).to_double(), max_p = tensor_item(hi).to_double();
  TL_CHECK(max_p < std::numeric_limits<double>::infinity() && min_p >= 0,
           "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
  // With every weight >= 0, a row sums to 0 exactly when its largest weight is 0.
  const Tensor row_max = tl::amax(self, {-1}, false);
  TL_CHECK(tensor_item(tl::amin(row_max, {}, false)).to_double() > 0,
           "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
  Tensor q = tl::empty_like(self);  // self's layout: the draws follow its memory order
  tl::exponential_(q, 1.0, generator);
  tl::div_out(q, self, q);
  if (n_sample == 1) {
    tl::argmax_out(out, q, -1, true);
  } else {
    Tensor values = tl::empty_like(out, self.dtype());
    tl::topk_out(values, out, q, n_sample);
  }
}

// cum[j] /= sum for every j, as one vector loop (IEEE division: the values are those of a scalar
// loop; divided one by one, a million-category row spends as long here as on its cumulative sum).
template <typename A>
TL_TARGET_CLONES void divide_all(A* cum, int64_t n, A sum) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) cum[j] /= sum;
}

// With replacement: per row, the normalised cumulative sum in acc_t, then one uniform per sample.
template <typename scalar_t, typename acc_t>
void multinomial_with_replacement(const Tensor& self, int64_t n_sample, CPUGenerator& g, int64_t* result) {
  const int64_t n_categories = self.size(-1);
  const int64_t n_dist = self.dim() > 1 ? self.size(0) : 1;
  const int64_t stride0 = self.dim() > 1 ? self.stride(0) : 0;
  const int64_t stride1 = self.stride(-1);
  const scalar_t* p = self.data_ptr<scalar_t>();
  // A tensor rather than a std::vector: large blocks come from the allocator's huge pages, which
  // saves most of the first-touch cost of a million-category row.
  const Tensor cum_buf = empty_tensor({n_categories}, std::is_same_v<acc_t, double> ? ScalarType::Float64
                                                                                     : ScalarType::Float32);
  acc_t* cum = cum_buf.data_ptr<acc_t>();
  for (int64_t i = 0; i < n_dist; ++i) {
    acc_t sum = 0;
    for (int64_t j = 0; j < n_categories; ++j) {
      const acc_t v = static_cast<acc_t>(p[i * stride0 + j * stride1]);
      if (__builtin_expect(!(v >= 0 && v <= std::numeric_limits<acc_t>::max()), 0)) {  // one test per entry
        TL_CHECK(v >= 0, "multinomial: invalid multinomial distribution (encountering probability entry < 0)");
        throw RuntimeError(
            "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      }
      sum += v;
      cum[j] = sum;
    }
    TL_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    divide_all(cum, n_categories, sum);
    cum[n_categories - 1] = 1;  // the last bucket ends at 1 whatever the rounding
    for (int64_t s = 0; s < n_sample; ++s) {
      const double u = dist::uniform_real<double>(g, 0.0, 1.0);
      int64_t left = 0, right = n_categories;
      while (right > left) {
        const int64_t mid = left + (right - left) / 2;
        if (cum[mid] < u) left = mid + 1;
        else right = mid;
      }
      result[i * n_sample + s] = left;
    }
  }
}

// PyTorch's Poisson sampler (after NumPy's): transformed rejection (Hoermann 1993) from rate 10,
// products of uniforms below it.
int64_t sample_poisson(double lambda, CPUGenerator& g) {
  TL_CHECK(lambda >= 0, "poisson: invalid Poisson rate, expected rate to be non-negative");
  auto uniform = [&] { return dist::uniform_real<double>(g, 0.0, 1.0); };
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double U = uniform() - 0.5;
      const double V = uniform();
      const double us = 0.5 - std::fabs(U);
      // x86's conversion of NaN or out-of-range values (an infinite rate) gives INT64_MIN; spelled
      // out, since the C++ conversion would be undefined.
      const double kf = std::floor((2 * a / us + b) * U + lambda + 0.43);
      const int64_t k = (kf >= -9.2233720368547758e18 && kf < 9.2233720368547758e18)
                            ? static_cast<int64_t>(kf) : std::numeric_limits<int64_t>::min();
      if (us >= 0.07 && V <= vr) return k;
      if (k < 0 || (us < 0.013 && V > us)) continue;
      if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + static_cast<double>(k) * loglam - std::lgamma(static_cast<double>(k) + 1)) {
        return k;
      }
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= uniform();
    if (prod > enlam) ++x;
    else return x;
  }
}

}  // namespace

void multinomial_kernel(const Tensor& self, int64_t num_samples, bool replacement, std::optional<Generator> generator,
                        Tensor& out) {
  TL_CHECK(!out.defined() || out.device().type == self.device().type,
           "multinomial: multinomial arguments must have the same device");
  TL_CHECK(self.dim() > 0 && self.dim() <= 2, "multinomial: prob_dist must be 1 or 2 dim");
  TL_CHECK(is_floating_type(self.dtype()), "multinomial: multinomial only supports floating-point dtypes for input, got: ",
           legacy_type_name(self.dtype()));
  TL_CHECK(!out.defined() || out.dtype() == ScalarType::Int64, "multinomial: multinomial expects Long tensor out, got: ",
           legacy_type_name(out.dtype()));
  TL_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  TL_CHECK(replacement || num_samples <= n_categories,
           "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TL_CHECK(n_categories <= kMaxCategories, "multinomial: number of categories cannot exceed 2^24");
  DimVector shape;
  if (self.dim() == 2) shape.push_back(self.size(0));
  shape.push_back(num_samples);
  prepare_output(out, {"multinomial", shape, ScalarType::Int64, self.device(), OutDtype::Exact});
  if (out.numel() == 0 || self.is_meta()) return;
  autograd::NoGradGuard no_grad;  // the ops below compute values only
  if (!replacement || num_samples == 1) {
    multinomial_race(self, num_samples, generator, out);
    return;
  }
  Tensor buf = output_buffer(out, ScalarType::Int64, self);
  CPUGenerator& g = generator_or_default(generator);
  {
    auto guard = g.lock();
    TL_DISPATCH_FLOAT(self.dtype(), "multinomial", [&] {
      using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double,
                                       std::conditional_t<std::is_same_v<scalar_t, float>, float, float>>;
      multinomial_with_replacement<scalar_t, acc_t>(self, num_samples, g, buf.data_ptr<int64_t>());
    });
  }
  commit_output(out, buf);
}

Tensor poisson_kernel(const Tensor& self, std::optional<Generator> generator) {
  TL_CHECK_AS(NotImplementedError, is_floating_type(self.dtype()), "poisson: \"poisson_cpu\" not implemented for '",
              legacy_type_name(self.dtype()), "'");
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (self.is_meta() || self.numel() == 0) return out;
  const Tensor rates = tl::contiguous(tl::to(self, ScalarType::Float64));
  const double* lambda = rates.data_ptr<double>();
  const int64_t n = self.numel();
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_FLOAT(self.dtype(), "poisson", [&] {
    scalar_t* y = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<scalar_t>(sample_poisson(lambda[i], g));
  });
  return out;
}

}  // namespace tl::native
