// Layer normalization: native_layer_norm and native_layer_norm_backward, one fused pass per row.
//
// The input is viewed as M rows of N = prod(normalized_shape) contiguous elements. Statistics and
// arithmetic run in opmath (float for float16/bfloat16/float32, double for float64); the weight and
// bias are read through an opmath copy, so mixed inputs (float16/bfloat16 data, float32 parameters,
// as PyTorch's CPU "mixed type") need no extra instantiation. Each row's loops keep kLanes
// independent accumulators, so they vectorize without reassociating float sums behind the
// compiler's back.
// GCC (12) left the float16 / bfloat16 rows scalar under the default -ftrapping-math: the conversions in Half.h /
// BFloat16 branch around float arithmetic (Half's subnormals, the rounding add), which may not become selects when
// the arithmetic could trap ("control flow in loop"). No code here reads the floating-point exception flags, and the
// values are the same bit for bit (tests/test_layer_norm_avx2.py's digest; figures in docs/kernels/normalization.md).
#pragma GCC optimize("no-trapping-math")
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/LayerNormRowsAvx2.h"
#include "aten/native/cpu/LayerNormRowsAvx512.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/StreamStore.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/native_layer_norm.h"
#include "generated/ops/native_layer_norm_backward.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

// Element loads and stores through Vectorize.h's branch-free 16-bit conversions (bit for bit Half.h's), so the
// loops over float16 / bfloat16 rows vectorize; other types convert as static_cast does.
template <typename T>
TL_ALWAYS_INLINE opmath_t<T> ld(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, Half>) return vec::half_to_float(p[i].x);
  else if constexpr (std::is_same_v<T, BFloat16>) return vec::bfloat16_to_float(p[i].x);
  else return static_cast<opmath_t<T>>(p[i]);
}

template <typename T>
TL_ALWAYS_INLINE T round_to(opmath_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) return Half(vec::float_to_half(v), Half::from_bits_t{});
  else if constexpr (std::is_same_v<T, BFloat16>) return BFloat16(vec::float_to_bfloat16(v), BFloat16::from_bits_t{});
  else return static_cast<T>(v);
}

// y = (x - mean) * rstd * w + b over n elements; w/b are null when absent. x is of y's type or, for the 16-bit
// types, their opmath float (layer_norm_row's converted row).
template <typename In, typename T>
TL_ALWAYS_INLINE void layer_norm_apply(const In* x, T* y, const opmath_t<T>* w, const opmath_t<T>* b, int64_t n,
                                       opmath_t<T> mean, opmath_t<T> rstd) {
  if (w && b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = round_to<T>((ld(x, i) - mean) * rstd * w[i] + b[i]);
  } else if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = round_to<T>((ld(x, i) - mean) * rstd * w[i]);
  } else if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = round_to<T>((ld(x, i) - mean) * rstd + b[i]);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = round_to<T>((ld(x, i) - mean) * rstd);
  }
}

// One row: mean, rstd = 1/sqrt(var + eps) (biased variance, from the deviations: run_moments),
// and y = (x - mean) * rstd * w + b. w/b are null when absent. With `stream`, y is computed in pieces
// into a buffer that is streamed around the cache (StreamStore.h).
template <typename T>
TL_TARGET_CLONES void layer_norm_row(const T* x, T* y, const opmath_t<T>* w, const opmath_t<T>* b, int64_t n,
                                     double eps, opmath_t<T>* mean_out, opmath_t<T>* rstd_out, bool stream) {
  using acc_t = opmath_t<T>;
  if (n == 0) {  // PyTorch: mean 0, rstd NaN (0 / 0 variance)
    *mean_out = 0;
    *rstd_out = std::numeric_limits<acc_t>::quiet_NaN();
    return;
  }
  // float16 / bfloat16 rows up to kWideRow elements are converted to float once, into L1: the sums and the
  // output pass then read floats (vectorized), where the conversions' branches (Half.h) kept the loops over the
  // 16-bit row scalar. The same float values either way, so the same results.
  constexpr bool narrow = sizeof(T) == 2;
  constexpr int64_t kWideRow = narrow ? 4096 : 1;
  acc_t xw[kWideRow];
  const bool wide = narrow && n <= kWideRow;
  if (wide) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) xw[i] = ld(x, i);
  }
  acc_t mean, m2;
  if (wide) norm::run_moments(static_cast<const acc_t*>(xw), n, &mean, &m2);
  else norm::run_moments(x, n, &mean, &m2);
  const acc_t var = m2 / static_cast<acc_t>(n);
  // In double, then rounded once (as PyTorch, whose eps is a double).
  const acc_t rstd = static_cast<acc_t>(1.0 / std::sqrt(static_cast<double>(std::max(var, acc_t(0))) + eps));
  *mean_out = mean;
  *rstd_out = rstd;
  if (!stream) {
    if (wide) layer_norm_apply(static_cast<const acc_t*>(xw), y, w, b, n, mean, rstd);
    else layer_norm_apply(x, y, w, b, n, mean, rstd);
    return;
  }
  T buf[kStreamPiece];
  for (int64_t k0 = 0; k0 < n; k0 += kStreamPiece) {
    const int64_t len = std::min(kStreamPiece, n - k0);
    if (wide) layer_norm_apply(static_cast<const acc_t*>(xw) + k0, buf, w ? w + k0 : nullptr, b ? b + k0 : nullptr,
                               len, mean, rstd);
    else layer_norm_apply(x + k0, buf, w ? w + k0 : nullptr, b ? b + k0 : nullptr, len, mean, rstd);
    stream_copy(y + k0, buf, len * static_cast<int64_t>(sizeof(T)));
  }
}

// Rows [lo, hi) of the forward.
template <typename T>
void layer_norm_rows(const T* x, T* y, const opmath_t<T>* w, const opmath_t<T>* b, int64_t n, double eps,
                     opmath_t<T>* mean, opmath_t<T>* rstd, int64_t lo, int64_t hi, bool stream) {
  for (int64_t r = lo; r < hi; ++r) layer_norm_row<T>(x + r * n, y + r * n, w, b, n, eps, mean + r, rstd + r, stream);
}

void layer_norm_rows(const float* x, float* y, const float* w, const float* b, int64_t n, double eps, float* mean,
                     float* rstd, int64_t lo, int64_t hi, bool stream) {
  if (n > 0 && layer_norm_rows_avx512()) {
    for (int64_t r = lo; r < hi; ++r)
      layer_norm_row_f32_avx512(x + r * n, y + r * n, w, b, n, eps, mean + r, rstd + r, stream);
  } else if (n > 0 && layer_norm_rows_avx2()) {
    layer_norm_rows_f32_avx2(x + lo * n, y + lo * n, w, b, n, eps, mean + lo, rstd + lo, hi - lo, stream);
  } else {
    layer_norm_rows<float>(x, y, w, b, n, eps, mean, rstd, lo, hi, stream);
  }
}

// One row of the backward, with g = dy * w and xhat = (x - mean) * rstd:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), written as rstd * g + c1 * x + c0.
// Pass 1 reads dy and x once for the two row sums (kLanes accumulators) and, with Params, adds the row's
// share of the parameter gradients (dw += dy * xhat, db += dy) into the caller's buffers while the row is
// in cache; pass 2 reads the row again from L1/L2 and writes dx, streamed around the cache with `stream`
// (StreamStore.h). dx may be null (parameter gradients only).
template <typename T, bool Params>
TL_TARGET_CLONES void layer_norm_backward_row(const T* dy, const T* x, const opmath_t<T>* w, opmath_t<T> mean,
                                              opmath_t<T> rstd, int64_t n, T* dx, opmath_t<T>* dw,
                                              opmath_t<T>* db, bool stream) {
  using acc_t = opmath_t<T>;
  using norm::kLanes;
  acc_t a1[kLanes] = {}, a2[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (int64_t j = 0; j < kLanes; ++j) {
      const acc_t d = ld(dy, i + j), xh = (ld(x, i + j) - mean) * rstd, g = d * w[i + j];
      a1[j] += g;
      a2[j] += g * xh;
      if constexpr (Params) {
        dw[i + j] += d * xh;
        db[i + j] += d;
      }
    }
  }
  acc_t t1 = 0, t2 = 0;
  for (; i < n; ++i) {
    const acc_t d = ld(dy, i), xh = (ld(x, i) - mean) * rstd, g = d * w[i];
    t1 += g;
    t2 += g * xh;
    if constexpr (Params) {
      dw[i] += d * xh;
      db[i] += d;
    }
  }
  if (!dx) return;
  for (int64_t k = kLanes / 2; k >= 1; k /= 2)
    for (int64_t j = 0; j < k; ++j) a1[j] += a1[j + k], a2[j] += a2[j + k];
  const acc_t sum_g = a1[0] + t1, sum_gxhat = a2[0] + t2;
  const acc_t inv_n = acc_t(1) / static_cast<acc_t>(n);
  const acc_t c1 = -rstd * rstd * sum_gxhat * inv_n;
  const acc_t c0 = -rstd * sum_g * inv_n - c1 * mean;
  if (!stream) {
#pragma omp simd
    for (int64_t k = 0; k < n; ++k) dx[k] = round_to<T>(rstd * ld(dy, k) * w[k] + c1 * ld(x, k) + c0);
    return;
  }
  T buf[kStreamPiece];
  for (int64_t k0 = 0; k0 < n; k0 += kStreamPiece) {
    const int64_t len = std::min(kStreamPiece, n - k0);
#pragma omp simd
    for (int64_t k = 0; k < len; ++k)
      buf[k] = round_to<T>(rstd * ld(dy, k0 + k) * w[k0 + k] + c1 * ld(x, k0 + k) + c0);
    stream_copy(dx + k0, buf, len * static_cast<int64_t>(sizeof(T)));
  }
}

// Which float32 backward row runs: the AVX-512 one, the AVX2 one, or the generic loops.
enum class RowIsa { kGeneric, kAvx2, kAvx512 };

// The ISA-specific float32 backward rows [0, rows) of a block (LayerNormRowsAvx512.h / LayerNormRowsAvx2.h); false
// (nothing done) for other dtypes.
template <typename T>
bool backward_rows_isa(RowIsa, const T*, const T*, const opmath_t<T>*, const opmath_t<T>*, const opmath_t<T>*, int64_t,
                       int64_t, T*, opmath_t<T>*, opmath_t<T>*, bool) {
  return false;
}

bool backward_rows_isa(RowIsa isa, const float* dy, const float* x, const float* w, const float* mean,
                       const float* rstd, int64_t n, int64_t rows, float* dx, float* dw, float* db, bool stream) {
  if (isa == RowIsa::kAvx2) {
    layer_norm_backward_rows_f32_avx2(dy, x, w, mean, rstd, n, rows, dx, dw, db, stream);
    return true;
  }
  for (int64_t r = 0; r < rows; ++r)
    layer_norm_backward_row_f32_avx512(dy + r * n, x + r * n, w, mean[r], rstd[r], n, dx ? dx + r * n : nullptr, dw,
                                       db, stream);
  return true;
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
    // y is streamed when x and y together overflow the cache.
    const bool stream = stream_output(2 * d.M * N * static_cast<int64_t>(sizeof(scalar_t)));
    parallel_for(0, d.M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * N)), [&](int64_t lo, int64_t hi) {
      layer_norm_rows(xp, yp, wp, bp, N, eps, mp, rp, lo, hi, stream);
      if (stream) stream_fence();
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
  const int64_t N = d.N, M = d.M;
  // A missing weight reads as ones (one extra load from L1 instead of a second set of loops).
  Tensor w = has_w ? opmath_copy(weight, acc) : empty({N}, acc, input.device());
  if (!has_w) {
    TL_DISPATCH_FLOAT(acc, "LayerNormBackwardKernelImpl", [&] { std::fill_n(w.data_ptr<scalar_t>(), N, scalar_t(1)); });
  }
  const Tensor m = contiguous(to(mean, acc)), s = contiguous(to(rstd, acc));
  // Parameter gradients: each block of rows (one per thread) sums into its own opmath buffers, then the
  // blocks add up. Both buffers are filled even when only one gradient is wanted (L1 traffic only).
  const bool params = dw.defined() || db.defined();
  const int64_t nblocks = std::min<int64_t>(get_num_threads(), std::max<int64_t>(1, M * N / kGrainSize));
  const int64_t rows_per_block = (M + nblocks - 1) / nblocks;
  Tensor dw_acc = params ? zeros({nblocks, N}, acc, input.device()) : Tensor();
  Tensor db_acc = params ? zeros({nblocks, N}, acc, input.device()) : Tensor();
  TL_DISPATCH_FLOAT(input.dtype(), "LayerNormBackwardKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* dyp = dy.data_ptr<scalar_t>();
    const acc_t* wp = w.data_ptr<acc_t>();
    const acc_t* mp = m.data_ptr<acc_t>();
    const acc_t* sp = s.data_ptr<acc_t>();
    scalar_t* dxp = dx.defined() ? dx.data_ptr<scalar_t>() : nullptr;
    acc_t* dwp = params ? dw_acc.data_ptr<acc_t>() : nullptr;
    acc_t* dbp = params ? db_acc.data_ptr<acc_t>() : nullptr;
    // dx is streamed when dy, x and dx together overflow the cache.
    const bool stream = dxp && stream_output(3 * M * N * static_cast<int64_t>(sizeof(scalar_t)));
    const RowIsa isa = !std::is_same_v<scalar_t, float> ? RowIsa::kGeneric
                       : layer_norm_rows_avx512()         ? RowIsa::kAvx512
                       : layer_norm_rows_avx2()           ? RowIsa::kAvx2
                                                          : RowIsa::kGeneric;
    parallel_for(0, nblocks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = lo; blk < hi; ++blk) {
        const int64_t r0 = blk * rows_per_block, r1 = std::min(M, r0 + rows_per_block);
        if (r1 > r0 && isa != RowIsa::kGeneric &&
            backward_rows_isa(isa, dyp + r0 * N, xp + r0 * N, wp, mp + r0, sp + r0, N, r1 - r0,
                              dxp ? dxp + r0 * N : nullptr, params ? dwp + blk * N : nullptr,
                              params ? dbp + blk * N : nullptr, stream))
          continue;
        for (int64_t r = r0; r < r1; ++r) {
          scalar_t* dxr = dxp ? dxp + r * N : nullptr;
          if (params)
            layer_norm_backward_row<scalar_t, true>(dyp + r * N, xp + r * N, wp, mp[r], sp[r], N, dxr,
                                                    dwp + blk * N, dbp + blk * N, stream);
          else
            layer_norm_backward_row<scalar_t, false>(dyp + r * N, xp + r * N, wp, mp[r], sp[r], N, dxr, nullptr,
                                                     nullptr, stream);
        }
      }
      if (stream) stream_fence();
    });
    for (int64_t blk = 1; blk < (params ? nblocks : 0); ++blk) {
      for (int64_t i = 0; i < N; ++i) {
        dwp[i] += dwp[blk * N + i];
        dbp[i] += dbp[blk * N + i];
      }
    }
  });
  if (dw.defined()) copy_stats(dw, dw_acc);  // block 0's row: the first N elements
  if (db.defined()) copy_stats(db, db_acc);
  return {dx, dw, db};
}

}  // namespace tl::native
