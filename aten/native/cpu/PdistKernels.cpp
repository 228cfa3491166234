// pdist: the p-norm distances between all pairs of rows of a 2-D tensor, forward and backward.
//
// Pair k of rows i < j sits at k = i (2n - i - 1) / 2 + (j - i - 1) (the distance matrix's upper
// triangle row by row). The norm is chosen once per call as PyTorch's: p = 0 counts the differing
// elements, 1 sums |d|, 2 is sqrt(sum d^2), inf the largest |d|, other p (sum |d|^p)^(1/p). The
// backward adds grad * d dist / d diff to row i and subtracts it from row j; rows are processed in
// parallel by their first index for the forward and per column block for the backward, so no two
// threads write one element.
#include <algorithm>
#include <cmath>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_pdist_backward.h"
#include "generated/ops/_pdist_forward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/pdist.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

enum class Norm { Zero, One, Two, Inf, General };

Norm norm_of(double p) {
  if (p == 0) return Norm::Zero;
  if (p == 1) return Norm::One;
  if (p == 2) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return Norm::General;
}

template <typename T>
T distance(const T* a, const T* b, int64_t m, Norm norm, T p) {
  T acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const T d = std::abs(a[k] - b[k]);
    switch (norm) {
      case Norm::Zero: acc += std::min(std::ceil(d), T(1)); break;  // a NaN difference counts as NaN
      case Norm::One: acc += d; break;
      case Norm::Two: acc += d * d; break;
      case Norm::Inf: acc = (d > acc || std::isnan(d)) ? d : acc; break;  // NaN propagates, as PyTorch's
      case Norm::General: acc += std::pow(d, p); break;
    }
  }
  if (norm == Norm::Two) return std::sqrt(acc);
  if (norm == Norm::General) return std::pow(acc, T(1) / p);
  return acc;
}

// d dist / d diff for one element (PyTorch's conventions where it is undefined: 0 at dist 0).
template <typename T>
T distance_grad(T diff, T dist, Norm norm, T p) {
  const T sign = diff > 0 ? T(1) : diff < 0 ? T(-1) : T(0);
  switch (norm) {
    case Norm::Zero: return 0;
    case Norm::One: return sign;
    case Norm::Two: return dist == 0 ? T(0) : diff / dist;
    case Norm::Inf: return std::abs(diff) == dist ? sign : T(0);
    case Norm::General:
      if (p < 2) {
        return (dist == 0 || (diff == 0 && p < 1)) ? T(0)
                                                    : sign * std::pow(std::abs(diff), p - 1) / std::pow(dist, p - 1);
      }
      return dist == 0 ? T(0) : diff * std::pow(std::abs(diff), p - 2) / std::pow(dist, p - 1);
  }
  return 0;
}

inline int64_t pair_index(int64_t i, int64_t n) { return i * (2 * n - i - 1) / 2; }

void check_input(const Tensor& self, double p) {
  TL_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  TL_CHECK(is_floating_type(self.scalar_type()), "pdist only supports floating-point dtypes");
  TL_CHECK(p >= 0, "pdist only supports non-negative p values");
}

}  // namespace

Tensor pdist_composite(const Tensor& input, double p) {
  check_input(input, p);
  return tl::_pdist_forward(tl::contiguous(input), p);
}

Tensor _pdist_forward_kernel(const Tensor& self, double p) {
  TL_CHECK(self.is_contiguous(), "_pdist_forward requires contiguous input");
  TL_CHECK_INDEX(self.dim() >= 1, "_pdist_forward: dimension specified as 0 but tensor has no dimensions");
  const int64_t n = self.sizes()[0];
  if (n <= 1) return tl::empty({0}, self.scalar_type(), self.device());
  TL_CHECK_INDEX(self.dim() >= 2, "_pdist_forward: Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  const int64_t m = self.sizes()[1];
  Tensor out = m == 0 ? tl::zeros({n * (n - 1) / 2}, self.scalar_type(), self.device())
                      : tl::empty({n * (n - 1) / 2}, self.scalar_type(), self.device());
  if (m == 0 || self.is_meta()) return out;  // no dtype check on meta, as PyTorch's meta function
  TL_CHECK(self.dim() == 2, "_pdist_forward: pdist only supports 2D tensors, got: ", self.dim(), "D");
  TL_CHECK(p >= 0, "_pdist_forward: pdist only supports non-negative p values");
  auto run = [&](auto tag) {
    using scalar_t = decltype(tag);
    if (self.is_meta()) return;
    const scalar_t* x = self.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    const scalar_t ps = static_cast<scalar_t>(p);
    const Norm norm = norm_of(ps);  // p in the dtype picks the norm (1e308 is inf in float32), as PyTorch's
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * m)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        scalar_t* row = o + pair_index(i, n);
        for (int64_t j = i + 1; j < n; ++j) row[j - i - 1] = distance<scalar_t>(x + i * m, x + j * m, m, norm, ps);
      }
    });
  };
  TL_DISPATCH_SWITCH(self.scalar_type(), "pdist", TL_DISPATCH_CASE(Float32, float, [&] { run(float{}); })
                                                      TL_DISPATCH_CASE(Float64, double, [&] { run(double{}); }));
  return out;
}

Tensor _pdist_backward_kernel(const Tensor& grad_output, const Tensor& self, double p, const Tensor& pdist) {
  TL_CHECK(self.is_contiguous(), "_pdist_backward requires self to be contiguous");
  TL_CHECK(pdist.is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  // PyTorch reads grad and pdist without checking their sizes (past their end when too short); torchlite
  // checks them first.
  TL_CHECK(self.dim() == 2, "_pdist_backward: expected a 2-D self, but got ", self.dim(), "D");
  const int64_t n = self.sizes()[0], m = self.sizes()[1], pairs = n * (n - 1) / 2;
  TL_CHECK(grad_output.dim() == 1 && grad_output.numel() == pairs && pdist.dim() == 1 && pdist.numel() == pairs,
           "_pdist_backward: expected grad and pdist of ", pairs, " elements (n (n - 1) / 2 for n = ", n,
           "), but got sizes ", grad_output.sizes(), " and ", pdist.sizes());
  if (p == 0 || grad_output.numel() == 0 || self.numel() == 0)
    return tl::zeros(self.sizes(), self.scalar_type(), self.device());
  Tensor result = tl::empty(self.sizes(), self.scalar_type(), self.device());
  if (self.is_meta()) return result;
  for (const Tensor* t : {&grad_output, &pdist})
    TL_CHECK(t->scalar_type() == self.scalar_type(), "_pdist_backward: expected scalar type ",
             legacy_type_name(self.scalar_type()), " but found ", legacy_type_name(t->scalar_type()));
  auto run = [&](auto tag) {
    using scalar_t = decltype(tag);
    if (self.is_meta()) return;
    const Tensor g = tl::contiguous(grad_output);
    const scalar_t* x = self.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* dp = pdist.data_ptr<scalar_t>();
    scalar_t* r = result.data_ptr<scalar_t>();
    const scalar_t ps = static_cast<scalar_t>(p);
    const Norm norm = norm_of(ps);  // p in the dtype picks the norm (1e308 is inf in float32), as PyTorch's
    // Columns are independent: each thread owns a block of them for every row.
    parallel_for(0, m, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pairs)), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        for (int64_t i = 0; i < n; ++i) r[i * m + c] = 0;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t base = pair_index(i, n);
          for (int64_t j = i + 1; j < n; ++j) {
            const int64_t k = base + j - i - 1;
            const scalar_t v = gp[k] * distance_grad<scalar_t>(x[i * m + c] - x[j * m + c], dp[k], norm, ps);
            r[i * m + c] += v;
            r[j * m + c] -= v;
          }
        }
      }
    });
  };
  TL_DISPATCH_SWITCH(self.scalar_type(), "_pdist_backward", TL_DISPATCH_CASE(Float32, float, [&] { run(float{}); })
                                                                TL_DISPATCH_CASE(Float64, double, [&] { run(double{}); }));
  return result;
}

}  // namespace tl::native
