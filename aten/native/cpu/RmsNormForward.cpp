// rms_norm_forward_fused (RmsNormForward.h): rows of N contiguous elements in parallel; per row the sum
// of squares with kLanes accumulators (NormalizationLoops.h), then the scaled row while it is in cache.
#include "aten/native/cpu/RmsNormForward.h"

#include <cmath>

#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/to.h"

namespace tl::native {
namespace {

template <typename T>
TL_TARGET_CLONES void rms_norm_row(const T* x, const opmath_t<T>* w, int64_t n, opmath_t<T> eps, T* y) {
  using acc_t = opmath_t<T>;
  using norm::ld;
  const acc_t ss = norm::lane_sum<acc_t>(n, [&](int64_t i) { return ld(x, i) * ld(x, i); });
  const acc_t ms = ss / static_cast<acc_t>(n) + eps;
  const acc_t rstd = acc_t(1) / std::sqrt(ms);
  if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const acc_t v = ld(x, i) * rstd;  // rounded first, as the composite's two multiplications
      y[i] = static_cast<T>(v * w[i]);
    }
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(ld(x, i) * rstd);
  }
}

}  // namespace

Tensor rms_norm_forward_fused(const Tensor& input, int64_t nd, const Tensor& weight, double eps) {
  Tensor y = empty(input.sizes(), input.dtype(), input.device());
  if (input.numel() == 0) return y;
  int64_t N = 1;
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) N *= input.sizes()[i];
  const int64_t M = input.numel() / N;
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input);
  const Tensor w = weight.defined() ? contiguous(to(weight, acc)) : Tensor();
  TL_DISPATCH_FLOAT(input.dtype(), "rms_norm", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const acc_t* wp = w.defined() ? w.data_ptr<acc_t>() : nullptr;
    scalar_t* yp = y.data_ptr<scalar_t>();
    const acc_t e = static_cast<acc_t>(eps);
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / N), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) rms_norm_row<scalar_t>(xp + r * N, wp, N, e, yp + r * N);
    });
  });
  return y;
}

}  // namespace tl::native
