// pdist: the p-norm distances between all pairs of rows of a 2-D tensor, forward and backward.
//
// Pair k of rows i < j sits at k = i (2n - i - 1) / 2 + (j - i - 1) (the distance matrix's upper
// triangle row by row). The norm is chosen once per call as PyTorch's: p = 0 counts the differing
// elements, 1 sums |d|, 2 is sqrt(sum d^2), inf the largest |d|, other p (sum |d|^p)^(1/p). The
// backward adds grad * d dist / d diff to row i and subtracts it from row j. The forward splits the
// pairs between threads; the backward splits the rows, each thread summing every pair of its rows, so
// no two threads write one element.
#include <algorithm>
#include <cmath>
#include <type_traits>
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

// One pair's distance. The sum runs in kLanes partial sums (a vectorizable loop; PyTorch's vectorized
// kernel also sums lane by lane), combined at the end.
constexpr int kLanes = 8;

template <Norm N, typename T>
T distance(const T* a, const T* b, int64_t m, T p) {
  T acc[kLanes] = {};
  int64_t k = 0;
  auto step = [p](T& s, T d) {
    if constexpr (N == Norm::Zero) s += std::min(std::ceil(d), T(1));  // a NaN difference counts as NaN
    if constexpr (N == Norm::One) s += d;
    if constexpr (N == Norm::Two) s += d * d;
    if constexpr (N == Norm::Inf) s = (d > s || std::isnan(d)) ? d : s;  // NaN propagates, as PyTorch's
    if constexpr (N == Norm::General) s += std::pow(d, p);
  };
  for (; k + kLanes <= m; k += kLanes)
    for (int l = 0; l < kLanes; ++l) step(acc[l], std::abs(a[k + l] - b[k + l]));
  for (; k < m; ++k) step(acc[0], std::abs(a[k] - b[k]));
  T total = acc[0];
  for (int l = 1; l < kLanes; ++l) {
    if constexpr (N == Norm::Inf) total = (acc[l] > total || std::isnan(acc[l])) ? acc[l] : total;
    else total += acc[l];
  }
  if constexpr (N == Norm::Two) return std::sqrt(total);
  if constexpr (N == Norm::General) return std::pow(total, T(1) / p);
  return total;
}

template <typename T>
T distance(const T* a, const T* b, int64_t m, Norm norm, T p) {
  switch (norm) {
    case Norm::Zero: return distance<Norm::Zero>(a, b, m, p);
    case Norm::One: return distance<Norm::One>(a, b, m, p);
    case Norm::Two: return distance<Norm::Two>(a, b, m, p);
    case Norm::Inf: return distance<Norm::Inf>(a, b, m, p);
    case Norm::General: return distance<Norm::General>(a, b, m, p);
  }
  return 0;
}

// d dist / d diff for one element (PyTorch's conventions where it is undefined: 0 at dist 0).
template <Norm N, typename T>
T distance_grad(T diff, T dist, T p) {
  const T sign = diff > 0 ? T(1) : diff < 0 ? T(-1) : T(0);
  if constexpr (N == Norm::Zero) return 0;
  if constexpr (N == Norm::One) return sign;
  if constexpr (N == Norm::Two) return dist == 0 ? T(0) : diff / dist;
  if constexpr (N == Norm::Inf) return std::abs(diff) == dist ? sign : T(0);
  if constexpr (N == Norm::General) {
    if (p < 2) {
      return (dist == 0 || (diff == 0 && p < 1)) ? T(0)
                                                  : sign * std::pow(std::abs(diff), p - 1) / std::pow(dist, p - 1);
    }
    return dist == 0 ? T(0) : diff * std::pow(std::abs(diff), p - 2) / std::pow(dist, p - 1);
  }
  return 0;
}

// Calls fn(std::integral_constant<Norm, N>{}) for the runtime norm.
template <typename F>
void with_norm(Norm norm, F&& fn) {
  switch (norm) {
    case Norm::Zero: return fn(std::integral_constant<Norm, Norm::Zero>{});
    case Norm::One: return fn(std::integral_constant<Norm, Norm::One>{});
    case Norm::Two: return fn(std::integral_constant<Norm, Norm::Two>{});
    case Norm::Inf: return fn(std::integral_constant<Norm, Norm::Inf>{});
    case Norm::General: return fn(std::integral_constant<Norm, Norm::General>{});
  }
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
    // Split by pairs (rows have n - i - 1 each): find the first pair's rows, then walk on.
    const int64_t pairs = n * (n - 1) / 2;
    parallel_for(0, pairs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, m)), [&](int64_t b, int64_t e) {
      int64_t i = 0;
      while (pair_index(i + 1, n) <= b) ++i;
      int64_t j = i + 1 + (b - pair_index(i, n));
      for (int64_t k = b; k < e; ++k) {
        o[k] = distance<scalar_t>(x + i * m, x + j * m, m, norm, ps);
        if (++j == n) {
          ++i;
          j = i + 1;
        }
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
    // Each thread owns a block of rows and sums every pair a row is in (the pair's gradient is computed
    // for both of its rows, with the difference's sign flipped for the second): no two threads write
    // one element, and rows are read contiguously.
    with_norm(norm, [&](auto norm_tag) {
      constexpr Norm N = decltype(norm_tag)::value;
      parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * m)), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          scalar_t* __restrict__ ri = r + i * m;
          const scalar_t* __restrict__ xi = x + i * m;
          std::fill(ri, ri + m, scalar_t(0));
          for (int64_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const int64_t k = i < j ? pair_index(i, n) + j - i - 1 : pair_index(j, n) + i - j - 1;
            const scalar_t g = gp[k], dist = dp[k];
            const scalar_t* __restrict__ xj = x + j * m;
            if constexpr (N == Norm::One) {  // the common norms in branch-free loops the compiler vectorizes
              for (int64_t c = 0; c < m; ++c) {
                const scalar_t d = xi[c] - xj[c];
                // sign(d) * g without a branch (random signs mispredict): 0 for a zero difference, NaN
                // for a NaN one, as PyTorch's
                const scalar_t sign = std::copysign(scalar_t(1), d) * static_cast<scalar_t>((d > 0) | (d < 0));
                ri[c] += g * (sign + (d != d ? d : scalar_t(0)));
              }
            } else if constexpr (N == Norm::Two) {
              const scalar_t scale = dist == 0 ? scalar_t(0) : g / dist;
              for (int64_t c = 0; c < m; ++c) ri[c] += scale * (xi[c] - xj[c]);
            } else {
              for (int64_t c = 0; c < m; ++c) ri[c] += g * distance_grad<N, scalar_t>(xi[c] - xj[c], dist, ps);
            }
          }
        }
      });
    });
  };
  TL_DISPATCH_SWITCH(self.scalar_type(), "_pdist_backward", TL_DISPATCH_CASE(Float32, float, [&] { run(float{}); })
                                                                TL_DISPATCH_CASE(Float64, double, [&] { run(double{}); }));
  return result;
}

}  // namespace tl::native
