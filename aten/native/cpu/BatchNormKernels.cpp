// Batch normalization: native_batch_norm and native_batch_norm_backward.
//
// The input is viewed as [N, C, S] (S = the product of the spatial dims) and every statistic is a
// per-channel sum over (n, s), in opmath. Two layouts, so the loops always run over contiguous memory:
// S == 1 (a 2-d input) sums rows into per-channel accumulators (vectorized across channels, each
// channel's sum in row order); S > 1 sums each contiguous plane of a channel with lane accumulators.
// The elementwise passes are `a * p[c] + b * q[c] + r[c]` with per-channel coefficients.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/AffineRunOut.h"
#include "aten/native/cpu/BatchNormRowsAvx2.h"
#include "aten/native/cpu/BatchNormRowsAvx512.h"
#include "aten/native/cpu/ColumnStats.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/StreamStore.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/native_batch_norm.h"
#include "generated/ops/native_batch_norm_backward.h"
#include "generated/ops/reshape.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

using norm::affine_run;
using norm::lane_sum;
using norm::ld;

// The sums over (n, s) of channel c of the [N, C, S] layout, each plane with lane accumulators.
template <typename T, bool Two, typename F1, typename F2>
TL_TARGET_CLONES void plane_sums(int64_t N, int64_t C, int64_t S, int64_t c, opmath_t<T>* out1, opmath_t<T>* out2,
                                 const F1& f1, const F2& f2) {
  using acc_t = opmath_t<T>;
  acc_t s1 = 0, s2 = 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t base = (n * C + c) * S;
    s1 += lane_sum<acc_t>(S, [&](int64_t i) { return f1(base + i, c); });
    if constexpr (Two) s2 += lane_sum<acc_t>(S, [&](int64_t i) { return f2(base + i, c); });
  }
  out1[c] = s1;
  if constexpr (Two) out2[c] = s2;
}

// Adds sum(dy) and sum(dy * (x - m)) over P planes of S elements, `stride` apart, to s1 and s2 (plane by plane, in
// order). One loop reads the P planes together: 2P read streams in flight, where a plane (32x64x56x56: 12.5 KB, three
// pages) is too short for the hardware prefetchers to run far ahead of one stream (the channel's sums from memory,
// one thread: two lane_sum loops per plane 4.6-4.9 ms, one fused loop per plane 3.7, four planes 3.0).
template <int64_t P, typename T>
TL_ALWAYS_INLINE void planes_grad_sums(const T* dy, const T* x, int64_t stride, int64_t S, opmath_t<T> m,
                                       opmath_t<T>& s1, opmath_t<T>& s2) {
  using acc_t = opmath_t<T>;
  constexpr int64_t L = norm::kLanes;
  acc_t a1[P][L] = {}, a2[P][L] = {};
  int64_t i = 0;
  for (; i + L <= S; i += L)
    for (int64_t p = 0; p < P; ++p)
      for (int64_t j = 0; j < L; ++j) {
        const acc_t d = ld(dy + p * stride, i + j);
        a1[p][j] += d;
        a2[p][j] += d * (ld(x + p * stride, i + j) - m);
      }
  for (int64_t p = 0; p < P; ++p) {
    acc_t t1 = 0, t2 = 0;
    for (int64_t k = i; k < S; ++k) {
      const acc_t d = ld(dy + p * stride, k);
      t1 += d;
      t2 += d * (ld(x + p * stride, k) - m);
    }
    for (int64_t w = L / 2; w >= 1; w /= 2)
      for (int64_t j = 0; j < w; ++j) {
        a1[p][j] += a1[p][j + w];
        a2[p][j] += a2[p][j + w];
      }
    s1 += a1[p][0] + t1;
    s2 += a2[p][0] + t2;
  }
}

// sum(dy) and sum(dy * (x - m)) over channel c of the [N, C, S] layout (S > 1): the backward's two sums, four
// planes at a time. The order depends on the shape only, so both backward paths below get the same values.
template <typename T>
TL_TARGET_CLONES void channel_grad_sums(const T* dy, const T* x, int64_t N, int64_t C, int64_t S, int64_t c,
                                        opmath_t<T> m, opmath_t<T>* sum_dy, opmath_t<T>* sum_dot) {
  opmath_t<T> s1 = 0, s2 = 0;
  int64_t n = 0;
  for (; n + 4 <= N; n += 4) planes_grad_sums<4, T>(dy + (n * C + c) * S, x + (n * C + c) * S, C * S, S, m, s1, s2);
  for (; n < N; ++n) planes_grad_sums<1, T>(dy + (n * C + c) * S, x + (n * C + c) * S, C * S, S, m, s1, s2);
  *sum_dy = s1;
  *sum_dot = s2;
}

// out1[c] = sum over (n, s) of f1(idx, c), out2[c] likewise of f2 (unused unless Two).
template <typename T, bool Two, typename F1, typename F2>
void channel_sums(int64_t N, int64_t C, int64_t S, opmath_t<T>* out1, opmath_t<T>* out2, const F1& f1, const F2& f2) {
  if (S == 1) {
    colstat::column_sums<T, Two>(N, C, out1, out2, f1, f2);
    return;
  }
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) plane_sums<T, Two>(N, C, S, c, out1, out2, f1, f2);
  });
}

// One row of the 2-d layout: out[c] = a[c] * p[c] + (b ? b[c] * q[c] : 0) + r[c].
template <typename T>
TL_TARGET_CLONES void affine_row(const T* a, const T* b, const opmath_t<T>* p, const opmath_t<T>* q,
                                 const opmath_t<T>* r, int64_t C, T* out) {
  if (b) {
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) out[c] = static_cast<T>(ld(a, c) * p[c] + ld(b, c) * q[c] + r[c]);
  } else {
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) out[c] = static_cast<T>(ld(a, c) * p[c] + r[c]);
  }
}

// One row of the 2-d layout: out[c] = (x[c] - mean[c]) * scale[c] + bias[c] (PyTorch's form for 2-d inputs: a
// constant channel gives exactly bias).
template <typename T>
TL_TARGET_CLONES void normalize_row(const T* x, const opmath_t<T>* mean, const opmath_t<T>* scale,
                                    const opmath_t<T>* bias, int64_t C, T* out) {
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) out[c] = static_cast<T>((ld(x, c) - mean[c]) * scale[c] + bias[c]);
}

// normalize_row, streamed (StreamStore.h) or not: float32 rows by BatchNormRowsAvx512.cpp where the CPU has
// AVX-512, BatchNormRowsAvx2.cpp where it has AVX2; otherwise computed in pieces into a buffer that stream_copy
// writes out.
template <typename T>
void normalize_row_out(const T* x, const opmath_t<T>* mean, const opmath_t<T>* scale, const opmath_t<T>* bias,
                       int64_t C, T* out, bool stream) {
  if constexpr (std::is_same_v<T, float>) {
    if (C > 0 && batch_norm_rows_avx512()) {
      batch_norm_row_f32_avx512(x, mean, scale, bias, C, out, stream);
      return;
    }
    if (C > 0 && batch_norm_rows_avx2()) {
      batch_norm_row_f32_avx2(x, mean, scale, bias, C, out, stream);
      return;
    }
  }
  if (!stream) {
    normalize_row<T>(x, mean, scale, bias, C, out);
    return;
  }
  T buf[kStreamPiece];
  for (int64_t c0 = 0; c0 < C; c0 += kStreamPiece) {
    const int64_t w = std::min(kStreamPiece, C - c0);
    normalize_row<T>(x + c0, mean + c0, scale + c0, bias + c0, w, buf);
    stream_copy(out + c0, buf, w * static_cast<int64_t>(sizeof(T)));
  }
}

// affine_row, streamed (StreamStore.h) or not: float32 rows by BatchNormRowsAvx512.cpp where the CPU has
// AVX-512, BatchNormRowsAvx2.cpp where it has AVX2; otherwise computed in pieces into a buffer that stream_copy
// writes out.
template <typename T>
void affine_row_out(const T* a, const T* b, const opmath_t<T>* p, const opmath_t<T>* q, const opmath_t<T>* r,
                    int64_t C, T* out, bool stream) {
  if constexpr (std::is_same_v<T, float>) {
    if (C > 0 && batch_norm_rows_avx512()) {
      batch_norm_affine_row_f32_avx512(a, b, p, q, r, C, out, stream);
      return;
    }
    if (C > 0 && batch_norm_rows_avx2()) {
      batch_norm_affine_row_f32_avx2(a, b, p, q, r, C, out, stream);
      return;
    }
  }
  if (!stream) {
    affine_row<T>(a, b, p, q, r, C, out);
    return;
  }
  T buf[kStreamPiece];
  for (int64_t c0 = 0; c0 < C; c0 += kStreamPiece) {
    const int64_t w = std::min(kStreamPiece, C - c0);
    affine_row<T>(a + c0, b ? b + c0 : nullptr, p + c0, q + c0, r + c0, w, buf);
    stream_copy(out + c0, buf, w * static_cast<int64_t>(sizeof(T)));
  }
}

// out = a * p[c] + (b ? b * q[c] : 0) + r[c], element by element over the [N, C, S] layout.
template <typename T>
void channel_affine(int64_t N, int64_t C, int64_t S, const T* a, const T* b, const opmath_t<T>* p,
                    const opmath_t<T>* q, const opmath_t<T>* r, T* out) {
  if (S == 1) {
    // out is streamed when the inputs and out together overflow the cache.
    const bool stream = stream_output((b ? 3 : 2) * N * C * static_cast<int64_t>(sizeof(T)));
    parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C)), [&](int64_t lo, int64_t hi) {
      // Last rows first: the sums pass before this one read each thread's rows in ascending order.
      const int64_t blk = std::max<int64_t>(1, (256 << 10) / std::max<int64_t>(1, C * int64_t(sizeof(T))));
      for (int64_t top = hi; top > lo; top -= blk)
        for (int64_t n = std::max(lo, top - blk); n < top; ++n) {
          affine_row_out<T>(a + n * C, b ? b + n * C : nullptr, p, q, r, C, out + n * C, stream);
        }
      if (stream) stream_fence();
    });
    return;
  }
  const bool stream = stream_output((b ? 3 : 2) * N * C * S * static_cast<int64_t>(sizeof(T)));
  parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t lo, int64_t hi) {
    for (int64_t nc = lo; nc < hi; ++nc) {
      const int64_t c = nc % C;
      affine_run_out<T>(a + nc * S, b ? b + nc * S : nullptr, p[c], b ? q[c] : opmath_t<T>(0), r[c], S, out + nc * S,
                        stream);
    }
    if (stream) stream_fence();
  });
}

struct BatchNormDims {
  int64_t N, C, S;
};

BatchNormDims batch_norm_dims(const Tensor& input) {
  TL_CHECK(input.dim() > 0, "batch_norm: expected an input with a channel dim 1, but got a 0-d input");
  maybe_wrap_dim(1, input.dim(), "batch_norm");
  BatchNormDims d{input.sizes()[0], input.sizes()[1], 1};
  for (int64_t i = 2; i < input.dim(); ++i) d.S *= input.sizes()[i];
  return d;
}

void check_channels(const std::optional<Tensor>& t, const char* name, int64_t C) {
  if (t && t->defined())
    TL_CHECK(t->numel() == C, name, " should contain ", C, " elements not ", t->numel());
}

const Tensor* opt(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }

// An opmath contiguous copy of an optional per-channel tensor, or `fill` repeated C times.
Tensor channel_param(const std::optional<Tensor>& t, ScalarType acc, int64_t C, double fill, Device device) {
  if (t && t->defined()) return contiguous(to(*t, acc));
  Tensor r = empty({C}, acc, device);
  TL_DISPATCH_FLOAT(acc, "batch_norm", [&] {
    scalar_t* p = r.data_ptr<scalar_t>();
    for (int64_t c = 0; c < C; ++c) p[c] = static_cast<scalar_t>(fill);
  });
  return r;
}

// 1 / sqrt(var + eps), 0 for a zero variance without eps (PyTorch's rule).
template <typename acc_t>
acc_t inv_std(acc_t var, double eps) {
  // In double, then rounded once (as PyTorch, whose eps is a double).
  return var == 0 && eps == 0 ? acc_t(0) : static_cast<acc_t>(1.0 / std::sqrt(static_cast<double>(var) + eps));
}

// out[c] = inv_std(m2[c] / n, eps) for every channel, vectorized (the square roots and divisions in double are
// correctly rounded, so the same values as one by one).
template <typename acc_t>
TL_TARGET_CLONES void inv_stds(const acc_t* m2, acc_t n, double eps, int64_t C, acc_t* out) {
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) {
    const acc_t var = m2[c] / n;
    out[c] = var == 0 && eps == 0 ? acc_t(0) : static_cast<acc_t>(1.0 / std::sqrt(static_cast<double>(var) + eps));
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_kernel(const Tensor& input, const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias,
                                                             const std::optional<Tensor>& running_mean,
                                                             const std::optional<Tensor>& running_var, bool training,
                                                             double momentum, double eps) {
  const BatchNormDims d = batch_norm_dims(input);
  const int64_t N = d.N, C = d.C, S = d.S;
  check_channels(weight, "weight", C);
  check_channels(bias, "bias", C);
  check_channels(running_mean, "running_mean", C);
  check_channels(running_var, "running_var", C);
  TL_CHECK(!training || input.is_meta() || input.numel() > 0,
           "input tensor must have at least one element, but got input_sizes = ", input.sizes());
  if (!training) {
    TL_CHECK(opt(running_mean), "running_mean must be defined in evaluation mode");
    TL_CHECK(opt(running_var), "running_var must be defined in evaluation mode");
  }
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()), "\"batch_norm\" not implemented for '",
              legacy_type_name(input.dtype()), "'");
  const ScalarType param_dtype = norm_param_dtype(input, {opt(weight), opt(bias), opt(running_mean), opt(running_var)});
  Tensor y = empty(input.sizes(), input.dtype(), input.device());
  Tensor save_mean = empty({training ? C : 0}, param_dtype, input.device());
  Tensor save_invstd = empty({training ? C : 0}, param_dtype, input.device());
  if (input.is_meta()) return {y, save_mean, save_invstd};
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input);
  const Tensor w = channel_param(weight, acc, C, 1.0, input.device());
  const Tensor b = channel_param(bias, acc, C, 0.0, input.device());
  Tensor mean = empty({C}, acc, input.device()), invstd = empty({C}, acc, input.device());
  TL_DISPATCH_FLOAT(input.dtype(), "batch_norm", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    acc_t* mp = mean.data_ptr<acc_t>();
    acc_t* sp = invstd.data_ptr<acc_t>();
    if (training) {
      const acc_t n = static_cast<acc_t>(N * S);
      std::vector<acc_t> var_sum(C);
      if (S == 1) {
        // The 2-d layout: mean and M2 per channel in one pass over memory (ColumnStats.h).
        colstat::column_moments<scalar_t>(xp, N, C, mp, var_sum.data());
      } else {
        channel_sums<scalar_t, false>(N, C, S, mp, nullptr, [&](int64_t i, int64_t) { return ld(xp, i); },
                                      [](int64_t, int64_t) { return acc_t(0); });
        for (int64_t c = 0; c < C; ++c) mp[c] /= n;
        // The corrected two-pass variance (NormalizationLoops.h's run_moments, per channel).
        std::vector<acc_t> dev_sum(C);
        channel_sums<scalar_t, true>(N, C, S, dev_sum.data(), var_sum.data(),
                                     [&](int64_t i, int64_t c) { return ld(xp, i) - mp[c]; },
                                     [&](int64_t i, int64_t c) {
                                       const acc_t dv = ld(xp, i) - mp[c];
                                       return dv * dv;
                                     });
        for (int64_t c = 0; c < C; ++c) {
          mp[c] += dev_sum[c] / n;
          var_sum[c] -= dev_sum[c] * dev_sum[c] / n;
        }
      }
      inv_stds<acc_t>(var_sum.data(), n, eps, C, sp);
      // Running statistics: momentum-weighted, with the unbiased variance (as PyTorch, n - 1 may be 0).
      if (opt(running_mean) || opt(running_var)) {
        Tensor new_mean = empty({C}, acc, input.device()), new_var = empty({C}, acc, input.device());
        const Tensor rm = opt(running_mean) ? contiguous(to(*running_mean, acc)) : Tensor();
        const Tensor rv = opt(running_var) ? contiguous(to(*running_var, acc)) : Tensor();
        const acc_t m = static_cast<acc_t>(momentum);
        for (int64_t c = 0; c < C; ++c) {
          if (rm.defined()) new_mean.data_ptr<acc_t>()[c] = m * mp[c] + (1 - m) * rm.data_ptr<acc_t>()[c];
          if (rv.defined())
            new_var.data_ptr<acc_t>()[c] = m * (var_sum[c] / (n - 1)) + (1 - m) * rv.data_ptr<acc_t>()[c];
        }
        if (rm.defined()) copy_kernel(*running_mean, reshape(new_mean, running_mean->sizes()), false);
        if (rv.defined()) copy_kernel(*running_var, reshape(new_var, running_var->sizes()), false);
      }
    } else {
      const Tensor rm = contiguous(to(*running_mean, acc)), rv = contiguous(to(*running_var, acc));
      for (int64_t c = 0; c < C; ++c) {
        mp[c] = rm.data_ptr<acc_t>()[c];
        sp[c] = inv_std<acc_t>(rv.data_ptr<acc_t>()[c], eps);
      }
    }
    // y = x * scale + shift, scale = invstd * w, shift = b - mean * scale (2-d: (x - mean) * scale + b).
    std::vector<acc_t> scale(C), shift(C);
    for (int64_t c = 0; c < C; ++c) {
      scale[c] = sp[c] * w.data_ptr<acc_t>()[c];
      shift[c] = b.data_ptr<acc_t>()[c] - mp[c] * scale[c];
    }
    scalar_t* yp = y.data_ptr<scalar_t>();
    if (S == 1) {
      const acc_t* bp = b.data_ptr<acc_t>();
      // y is written around the cache when x and y together overflow it (StreamStore.h).
      const bool stream = stream_output(2 * N * C * static_cast<int64_t>(sizeof(scalar_t)));
      parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C)), [&](int64_t lo, int64_t hi) {
        // Last rows first: the statistics pass read each thread's rows in ascending order, so its last
        // rows are still in the cache (a 16 MB input is largely in L3).
        const int64_t blk = std::max<int64_t>(1, (256 << 10) / std::max<int64_t>(1, C * int64_t(sizeof(scalar_t))));
        for (int64_t top = hi; top > lo; top -= blk)
          for (int64_t n = std::max(lo, top - blk); n < top; ++n) {
            normalize_row_out<scalar_t>(xp + n * C, mp, scale.data(), bp, C, yp + n * C, stream);
          }
        if (stream) stream_fence();
      });
    } else if (N * S > 0) {
      channel_affine<scalar_t>(N, C, S, xp, nullptr, scale.data(), nullptr, shift.data(), yp);
    }
  });
  if (training) {
    copy_stats(save_mean, mean);
    copy_stats(save_invstd, invstd);
  }
  return {y, save_mean, save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_kernel(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()) || input.numel() == 0,
              "\"batch_norm_backward_cpu\" not implemented for '",
              legacy_type_name(input.dtype()), "'");
  TL_CHECK_INDEX(input.dim() > 0, "Dimension specified as 1 but tensor has no dimensions");  // PyTorch's
  const BatchNormDims d = batch_norm_dims(input);
  const int64_t N = d.N, C = d.C, S = d.S;
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_batch_norm_backward: grad_out of shape ", grad_out.sizes(),
           " does not match input of shape ", input.sizes());
  check_channels(weight, "weight", C);
  if (train) {
    TL_CHECK(opt(save_mean) && opt(save_invstd), "native_batch_norm_backward: save_mean and save_invstd must be "
             "defined in training mode");
    check_channels(save_mean, "save_mean", C);
    check_channels(save_invstd, "save_invstd", C);
  } else {
    TL_CHECK(opt(running_mean) && opt(running_var), "native_batch_norm_backward: running_mean and running_var must "
             "be defined in evaluation mode");
    check_channels(running_mean, "running_mean", C);
    check_channels(running_var, "running_var", C);
  }
  const ScalarType param_dtype = opt(weight) ? weight->dtype() : input.dtype();
  Tensor dx, dw, db;
  if (output_mask[0]) dx = empty(input.sizes(), input.dtype(), input.device());
  if (output_mask[1]) dw = empty({C}, param_dtype, input.device());
  if (output_mask[2]) db = empty({C}, param_dtype, input.device());
  if (input.is_meta()) return {dx, dw, db};
  if (input.numel() == 0) {  // nothing summed: zero parameter gradients
    if (dw.defined()) dw = zeros({C}, param_dtype, input.device());
    if (db.defined()) db = zeros({C}, param_dtype, input.device());
    return {dx, dw, db};
  }
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input), dy = contiguous(to(grad_out, input.dtype()));
  const Tensor w = channel_param(weight, acc, C, 1.0, input.device());
  const Tensor mean = contiguous(to(train ? *save_mean : *running_mean, acc));
  Tensor invstd = train ? contiguous(to(*save_invstd, acc)) : empty({C}, acc, input.device());
  Tensor sum_dy = empty({C}, acc, input.device()), dot = empty({C}, acc, input.device());
  TL_DISPATCH_FLOAT(input.dtype(), "batch_norm_backward_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* dyp = dy.data_ptr<scalar_t>();
    const acc_t* mp = mean.data_ptr<acc_t>();
    acc_t* sp = invstd.data_ptr<acc_t>();
    const acc_t* wp = w.data_ptr<acc_t>();
    if (!train) {
      const Tensor rv = contiguous(to(*running_var, acc));
      for (int64_t c = 0; c < C; ++c) sp[c] = inv_std<acc_t>(rv.data_ptr<acc_t>()[c], eps);
    }
    acc_t* sdy = sum_dy.data_ptr<acc_t>();
    acc_t* sdot = dot.data_ptr<acc_t>();
    const auto f1 = [&](int64_t i, int64_t) { return ld(dyp, i); };
    const auto f2 = [&](int64_t i, int64_t c) { return ld(dyp, i) * (ld(xp, i) - mp[c]); };
    std::vector<acc_t> p(C), q(C), r(C);
    const acc_t n = static_cast<acc_t>(N * S);
    // dx = p * dy + q * x + r per channel; training: dx = w * invstd * (dy - mean(dy) - xhat * invstd *
    // mean(dy * (x - mean))).
    const auto coefficients = [&](int64_t c) {
      p[c] = wp[c] * sp[c];
      q[c] = train ? -wp[c] * sp[c] * sp[c] * sp[c] * sdot[c] / n : acc_t(0);
      r[c] = train ? -wp[c] * sp[c] * sdy[c] / n - q[c] * mp[c] : acc_t(0);
    };
    scalar_t* dxp = dx.defined() ? dx.data_ptr<scalar_t>() : nullptr;
    if (dxp && S > 1 && N * S > 0 && C >= 2 * get_num_threads()) {
      // (N, C, H, W): channel by channel, the sums then dx, so the second pass reads the channel's dy and x from
      // cache (32x64x56x56: 800 KB a channel) instead of memory: two reads and a write of memory instead of four
      // reads and a write (the backward was 1.0-1.3x PyTorch's time, which works per channel the same way). dx is
      // streamed when it and its inputs overflow the cache (StreamStore.h). The same functions and order per
      // channel as the two whole passes below, so the same results.
      const bool stream = stream_output((train ? 3 : 2) * N * C * S * static_cast<int64_t>(sizeof(scalar_t)));
      parallel_for(0, C, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          channel_grad_sums<scalar_t>(dyp, xp, N, C, S, c, mp[c], sdy + c, sdot + c);
          coefficients(c);
          for (int64_t k = 0; k < N; ++k) {
            const int64_t nc = k * C + c;
            affine_run_out<scalar_t>(dyp + nc * S, train ? xp + nc * S : nullptr, p[c], train ? q[c] : acc_t(0),
                                     r[c], S, dxp + nc * S, stream);
          }
        }
        if (stream) stream_fence();
      });
    } else {
      // sum(dy) and sum(dy * (x - mean)) per channel, in one pass; then dx in another.
      if (S > 1) {
        parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t lo, int64_t hi) {
          for (int64_t c = lo; c < hi; ++c) channel_grad_sums<scalar_t>(dyp, xp, N, C, S, c, mp[c], sdy + c, sdot + c);
        });
      } else {
        channel_sums<scalar_t, true>(N, C, S, sdy, sdot, f1, f2);
      }
      if (dxp && N * S > 0) {
        for (int64_t c = 0; c < C; ++c) coefficients(c);
        channel_affine<scalar_t>(N, C, S, dyp, train ? xp : nullptr, p.data(), q.data(), r.data(), dxp);
      }
    }
    for (int64_t c = 0; c < C; ++c) sdot[c] *= sp[c];
  });
  if (dw.defined()) copy_stats(dw, dot);
  if (db.defined()) copy_stats(db, sum_dy);
  return {dx, dw, db};
}

}  // namespace tl::native
