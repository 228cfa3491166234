// Layer normalization: native_layer_norm and native_layer_norm_backward, one fused pass per row.
//
// The input is viewed as M rows of N = prod(normalized_shape) contiguous elements. Statistics and
// arithmetic run in opmath (float for float16/bfloat16/float32, double for float64); the weight and
// bias are read through an opmath copy, so mixed inputs (float16/bfloat16 data, float32 parameters,
// as PyTorch's CPU "mixed type") need no extra instantiation. Each row's loops keep kLanes
// independent accumulators, so they vectorize without reassociating float sums behind the
// compiler's back.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/native_layer_norm.h"
#include "generated/ops/native_layer_norm_backward.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

using norm::lane_sum;
using norm::ld;

// One row: mean, rstd = 1/sqrt(var + eps) (biased variance, from the deviations: run_moments),
// and y = (x - mean) * rstd * w + b. w/b are null when absent.
template <typename T>
TL_TARGET_CLONES void layer_norm_row(const T* x, T* y, const opmath_t<T>* w, const opmath_t<T>* b, int64_t n,
                                     double eps, opmath_t<T>* mean_out, opmath_t<T>* rstd_out) {
  using acc_t = opmath_t<T>;
  if (n == 0) {  // PyTorch: mean 0, rstd NaN (0 / 0 variance)
    *mean_out = 0;
    *rstd_out = std::numeric_limits<acc_t>::quiet_NaN();
    return;
  }
  acc_t mean, m2;
  norm::run_moments(x, n, &mean, &m2);
  const acc_t var = m2 / static_cast<acc_t>(n);
  // In double, then rounded once (as PyTorch, whose eps is a double).
  const acc_t rstd = static_cast<acc_t>(1.0 / std::sqrt(static_cast<double>(std::max(var, acc_t(0))) + eps));
  *mean_out = mean;
  *rstd_out = rstd;
  if (w && b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((ld(x, i) - mean) * rstd * w[i] + b[i]);
  } else if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((ld(x, i) - mean) * rstd * w[i]);
  } else if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((ld(x, i) - mean) * rstd + b[i]);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((ld(x, i) - mean) * rstd);
  }
}

// One row of the input gradient: with g = dy * w and xhat = (x - mean) * rstd,
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), written as rstd * g + c1 * x + c0 so the
// row is read twice (two sums, one write).
template <typename T>
TL_TARGET_CLONES void layer_norm_backward_row(const T* dy, const T* x, const opmath_t<T>* w, opmath_t<T> mean,
                                              opmath_t<T> rstd, int64_t n, T* dx) {
  using acc_t = opmath_t<T>;
  acc_t sum_g, sum_gx;
  if (w) {
    sum_g = lane_sum<acc_t>(n, [&](int64_t i) { return ld(dy, i) * w[i]; });
    sum_gx = lane_sum<acc_t>(n, [&](int64_t i) { return ld(dy, i) * w[i] * ld(x, i); });
  } else {
    sum_g = lane_sum<acc_t>(n, [&](int64_t i) { return ld(dy, i); });
    sum_gx = lane_sum<acc_t>(n, [&](int64_t i) { return ld(dy, i) * ld(x, i); });
  }
  const acc_t inv_n = acc_t(1) / static_cast<acc_t>(n);
  const acc_t s = rstd * (sum_gx - mean * sum_g);  // sum(g * xhat)
  const acc_t c1 = -rstd * rstd * s * inv_n;
  const acc_t c0 = -rstd * sum_g * inv_n - c1 * mean;
  if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = static_cast<T>(rstd * ld(dy, i) * w[i] + c1 * ld(x, i) + c0);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = static_cast<T>(rstd * ld(dy, i) + c1 * ld(x, i) + c0);
  }
}

// Column sums of one block of rows into dw += dy * xhat, db += dy (either may be null).
template <typename T>
TL_TARGET_CLONES void layer_norm_param_grad_rows(const T* dy, const T* x, const opmath_t<T>* mean,
                                                 const opmath_t<T>* rstd, int64_t rows, int64_t n, opmath_t<T>* dw,
                                                 opmath_t<T>* db) {
  using acc_t = opmath_t<T>;
  for (int64_t r = 0; r < rows; ++r) {
    const T* dyr = dy + r * n;
    const T* xr = x + r * n;
    const acc_t m = mean[r], s = rstd[r];
    if (dw) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) dw[i] += ld(dyr, i) * ((ld(xr, i) - m) * s);
    }
    if (db) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) db[i] += ld(dyr, i);
    }
  }
}

// An opmath, contiguous copy of an optional parameter (null data when absent).
Tensor opmath_copy(const std::optional<Tensor>& t, ScalarType acc) {
  if (!t || !t->defined()) return Tensor();
  return contiguous(to(*t, acc));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_kernel(const Tensor& input, IntArrayRef normalized_shape,
                                                             const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias, double eps) {
  const LayerNormDims d = check_layer_norm_inputs(input, normalized_shape, weight, bias);
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()), "\"LayerNormKernelImpl\" not implemented for '",
              legacy_type_name(input.dtype()), "'");
  const ScalarType param_dtype = norm_param_dtype(input, {weight && weight->defined() ? &*weight : nullptr,
                                                           bias && bias->defined() ? &*bias : nullptr});
  Tensor y = empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = empty(d.stat_shape, param_dtype, input.device());
  Tensor rstd = empty(d.stat_shape, param_dtype, input.device());
  if (input.is_meta() || d.M == 0) return {y, mean, rstd};
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input);
  const Tensor w = opmath_copy(weight, acc), b = opmath_copy(bias, acc);
  Tensor mean_acc = empty({d.M}, acc, input.device()), rstd_acc = empty({d.M}, acc, input.device());
  TL_DISPATCH_FLOAT(input.dtype(), "LayerNormKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* yp = y.data_ptr<scalar_t>();
    const acc_t* wp = w.defined() ? w.data_ptr<acc_t>() : nullptr;
    const acc_t* bp = b.defined() ? b.data_ptr<acc_t>() : nullptr;
    acc_t* mp = mean_acc.data_ptr<acc_t>();
    acc_t* rp = rstd_acc.data_ptr<acc_t>();
    const int64_t N = d.N;
    parallel_for(0, d.M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * N)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) layer_norm_row<scalar_t>(xp + r * N, yp + r * N, wp, bp, N, eps, mp + r, rp + r);
    });
  });
  copy_stats(mean, mean_acc);
  copy_stats(rstd, rstd_acc);
  return {y, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_kernel(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> output_mask) {
  const LayerNormDims d = check_layer_norm_inputs(input, normalized_shape, weight, bias);
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out of shape ", grad_out.sizes(),
           " does not match input of shape ", input.sizes());
  TL_CHECK(mean.numel() == d.M && rstd.numel() == d.M, "native_layer_norm_backward: expected mean and rstd with ",
           d.M, " elements, but got ", mean.numel(), " and ", rstd.numel());
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()) || d.M == 0, "\"LayerNormBackwardKernelImpl\" not "
              "implemented for '", legacy_type_name(input.dtype()), "'");
  const bool has_w = weight && weight->defined(), has_b = bias && bias->defined();
  Tensor dx, dw, db;
  if (output_mask[0]) dx = empty(input.sizes(), input.dtype(), input.device());
  // The parameter gradients of an empty batch are zeros (PyTorch's zeros_like).
  auto param_grad = [&](const std::optional<Tensor>& p) {
    return d.M > 0 ? empty(p->sizes(), p->dtype(), p->device()) : zeros(p->sizes(), p->dtype(), p->device());
  };
  if (output_mask[1] && has_w) dw = param_grad(weight);
  if (output_mask[2] && (has_b || has_w)) db = param_grad(has_b ? bias : weight);
  if (input.is_meta() || d.M == 0 || (!dx.defined() && !dw.defined() && !db.defined())) return {dx, dw, db};
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input), dy = contiguous(to(grad_out, input.dtype()));
  const Tensor w = has_w ? opmath_copy(weight, acc) : Tensor();
  const Tensor m = contiguous(to(mean, acc)), s = contiguous(to(rstd, acc));
  // Parameter gradients: each block of rows sums into its own opmath buffer, then the blocks add up.
  const int64_t N = d.N, M = d.M;
  const int64_t nblocks = (dw.defined() || db.defined()) ? std::min<int64_t>(get_num_threads(), std::max<int64_t>(1, M * N / kGrainSize)) : 0;
  const int64_t rows_per_block = nblocks ? (M + nblocks - 1) / nblocks : 0;
  Tensor dw_acc = dw.defined() ? zeros({std::max<int64_t>(nblocks, 1), N}, acc, input.device()) : Tensor();
  Tensor db_acc = db.defined() ? zeros({std::max<int64_t>(nblocks, 1), N}, acc, input.device()) : Tensor();
  TL_DISPATCH_FLOAT(input.dtype(), "LayerNormBackwardKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* dyp = dy.data_ptr<scalar_t>();
    const acc_t* wp = w.defined() ? w.data_ptr<acc_t>() : nullptr;
    const acc_t* mp = m.data_ptr<acc_t>();
    const acc_t* sp = s.data_ptr<acc_t>();
    scalar_t* dxp = dx.defined() ? dx.data_ptr<scalar_t>() : nullptr;
    if (dxp && nblocks == 0) {
      parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * N)), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r)
          layer_norm_backward_row<scalar_t>(dyp + r * N, xp + r * N, wp, mp[r], sp[r], N, dxp + r * N);
      });
    }
    if (nblocks > 0) {
      acc_t* dwp = dw_acc.defined() ? dw_acc.data_ptr<acc_t>() : nullptr;
      acc_t* dbp = db_acc.defined() ? db_acc.data_ptr<acc_t>() : nullptr;
      // One pass over dy and x: each row's input gradient and its share of the parameter gradients,
      // while the row is in cache.
      parallel_for(0, nblocks, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t blk = lo; blk < hi; ++blk) {
          const int64_t r0 = blk * rows_per_block, r1 = std::min(M, r0 + rows_per_block);
          for (int64_t r = r0; r < r1; ++r) {
            if (dxp) layer_norm_backward_row<scalar_t>(dyp + r * N, xp + r * N, wp, mp[r], sp[r], N, dxp + r * N);
            layer_norm_param_grad_rows<scalar_t>(dyp + r * N, xp + r * N, mp + r, sp + r, 1, N,
                                                 dwp ? dwp + blk * N : nullptr, dbp ? dbp + blk * N : nullptr);
          }
        }
      });
      for (int64_t blk = 1; blk < nblocks; ++blk) {
        for (int64_t i = 0; i < N; ++i) {
          if (dwp) dwp[i] += dwp[blk * N + i];
          if (dbp) dbp[i] += dbp[blk * N + i];
        }
      }
    }
  });
  if (dw.defined()) copy_stats(dw, dw_acc);
  if (db.defined()) copy_stats(db, db_acc);
  return {dx, dw, db};
}

}  // namespace tl::native
