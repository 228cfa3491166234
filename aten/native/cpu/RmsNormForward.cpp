// rms_norm_forward_fused (RmsNormForward.h) and the `_fused_rms_norm` kernel: rows of N contiguous
// elements in parallel; per row the sum of squares with kLanes accumulators (NormalizationLoops.h), then
// the scaled row while it is in cache.
#include "aten/native/cpu/RmsNormForward.h"

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "generated/ops/_fused_rms_norm.h"
#include "generated/ops/add.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/to.h"

namespace tl::native {
namespace {

template <typename T>
TL_TARGET_CLONES void rms_norm_row(const T* x, const opmath_t<T>* w, int64_t n, opmath_t<T> eps, T* y,
                                   opmath_t<T>* rstd_out) {
  using acc_t = opmath_t<T>;
  using norm::ld;
  const acc_t ss = norm::lane_sum<acc_t>(n, [&](int64_t i) { return ld(x, i) * ld(x, i); });
  const acc_t ms = ss / static_cast<acc_t>(n) + eps;
  const acc_t rstd = acc_t(1) / std::sqrt(ms);
  if (rstd_out) *rstd_out = rstd;
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

int64_t check_rms_norm_inputs(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(nd >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ", normalized_shape);
  TL_CHECK(!weight || !weight->defined() || weight->sizes() == normalized_shape, "Expected weight to be of same "
           "shape as normalized_shape, but got weight of shape ", weight ? weight->sizes() : IntArrayRef(),
           " and normalized_shape = ", normalized_shape);
  TL_CHECK_VALUE(input.dim() >= nd, "Input tensor must have at least ", nd, " dimensions, but got ", input.dim());
  bool match = true;
  for (int64_t i = 0; i < nd; ++i) match = match && input.sizes()[input.dim() - nd + i] == normalized_shape[i];
  if (!match) {
    std::string expected;
    for (int64_t i = 0; i < nd; ++i) expected += (i ? ", " : "") + std::to_string(normalized_shape[i]);
    TL_ERROR("Given normalized_shape=", normalized_shape, ", expected input with shape [*", expected,
             "], but got input of size", input.sizes());
  }
  // complex64/complex128 run the composite's ops (PyTorch's dispatch takes them; its fused kernel does not).
  const ScalarType st = input.dtype();
  TL_CHECK_AS(NotImplementedError, is_floating_type(st) || st == ScalarType::Complex64 || st == ScalarType::Complex128,
              "\"rms_norm\" not implemented for '",
              legacy_type_name(input.dtype()), "'");
  return nd;
}

double rms_norm_eps(ScalarType acc, std::optional<double> eps) {
  return acc == ScalarType::Float64 ? eps.value_or(DBL_EPSILON)
                                    : static_cast<double>(static_cast<float>(eps.value_or(FLT_EPSILON)));
}

Tensor rms_norm_forward_fused(const Tensor& input, int64_t nd, const Tensor& weight, double eps, Tensor* rstd) {
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
    acc_t* rp = rstd ? rstd->data_ptr<acc_t>() : nullptr;
    const acc_t e = static_cast<acc_t>(eps);
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / N), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) rms_norm_row<scalar_t>(xp + r * N, wp, N, e, yp + r * N, rp ? rp + r : nullptr);
    });
  });
  return y;
}

std::tuple<Tensor, Tensor> fused_rms_norm_kernel(const Tensor& input, IntArrayRef normalized_shape,
                                                 const std::optional<Tensor>& weight, std::optional<double> eps) {
  const int64_t nd = check_rms_norm_inputs(input, normalized_shape, weight);
  const ScalarType acc = opmath_type(input.dtype());
  const double e = rms_norm_eps(acc, eps);
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().end());
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) stat_shape[static_cast<size_t>(i)] = 1;
  const bool wdef = weight && weight->defined();
  if (wdef && weight->dtype() != input.dtype() && weight->dtype() != acc) {
    // A weight of another dtype promotes the result as the composite's multiplication does: its ops.
    const Tensor up = to(input, acc);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < nd; ++i) dims.push_back(input.dim() - i - 1);
    const Tensor r = rsqrt(add(mean(pow(up, 2), IntArrayRef(dims), /*keepdim=*/true), e));
    return {to(contiguous(mul(mul(up, r), *weight)), input.dtype()), r};
  }
  Tensor rstd = empty(stat_shape, acc, input.device());
  if (input.is_meta()) return {empty(input.sizes(), input.dtype(), input.device()), rstd};
  Tensor y = rms_norm_forward_fused(input, nd, wdef ? *weight : Tensor(), e, &rstd);
  if (input.numel() == 0 && rstd.numel() > 0) {
    // Rows of no elements: their mean square is 0 / 0, so rstd is NaN, as PyTorch's.
    TL_DISPATCH_FLOAT(acc, "_fused_rms_norm", [&] {
      std::fill_n(rstd.data_ptr<scalar_t>(), rstd.numel(), std::numeric_limits<scalar_t>::quiet_NaN());
    });
  }
  return {y, rstd};
}

}  // namespace tl::native
