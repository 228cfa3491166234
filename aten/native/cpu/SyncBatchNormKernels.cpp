// The per-replica pieces of synchronized batch normalization (SyncBatchNorm): batch_norm_stats,
// batch_norm_gather_stats(_with_counts), batch_norm_elemt, batch_norm_backward_reduce and
// batch_norm_backward_elemt. PyTorch has these on CUDA only; torchlite runs SyncBatchNorm on CPU, so
// here they are CPU kernels with the formulas of PyTorch's CUDA ones (aten/src/ATen/native/cuda/
// Normalization.cuh): a replica computes its statistics, the replicas' (mean, invstd, count) rows are
// merged in order (Chan's parallel variance), and the backward sums are all-reduced between
// `batch_norm_backward_reduce` and `batch_norm_backward_elemt`.
//
// Every kernel reads the input as a contiguous float64 [N, C, S] array and computes in float64 (the
// statistics are then rounded once to their dtype): these ops run once per layer per step, the
// conversion is cheap next to the communication, and one code path serves every floating dtype.
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/Resize.h"
#include "generated/ops/batch_norm_backward_elemt.h"
#include "generated/ops/batch_norm_backward_reduce.h"
#include "generated/ops/batch_norm_elemt.h"
#include "generated/ops/batch_norm_gather_stats.h"
#include "generated/ops/batch_norm_gather_stats_with_counts.h"
#include "generated/ops/batch_norm_stats.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/full.h"
#include "generated/ops/reshape.h"
#include "generated/ops/to.h"

namespace tl::native {
namespace {

struct Dims {
  int64_t N, C, S;
};

// The [N, C, S] view of an input of rank >= 2, after PyTorch's common checks.
Dims sync_bn_dims(const Tensor& input, const char* op) {
  TL_CHECK(input.dim() >= 2, op, ": expected an input with at least 2 dims (batch, channel, ...), but got ",
           input.dim(), " dims");
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()), op, ": not implemented for '",
              legacy_type_name(input.dtype()), "'");
  Dims d{input.sizes()[0], input.sizes()[1], 1};
  for (int64_t i = 2; i < input.dim(); ++i) d.S *= input.sizes()[i];
  return d;
}

// float32 for float16/bfloat16, else the dtype itself: the dtype of PyTorch's saved statistics.
ScalarType stat_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}

// A contiguous float64 copy (or the tensor itself when it already is one).
Tensor as_f64(const Tensor& t) { return contiguous(to(t, ScalarType::Float64)); }

// A per-channel float64 vector from a tensor of C elements, checked by name.
Tensor channel_f64(const Tensor& t, int64_t C, const char* op, const char* name) {
  TL_CHECK(t.numel() == C, op, ": expected ", name, " to have ", C, " elements (one per channel), but got ",
           t.numel());
  TL_CHECK_AS(NotImplementedError, is_floating_type(t.dtype()), op, ": expected a floating ", name,
              ", but got '", legacy_type_name(t.dtype()), "'");
  return as_f64(t);
}

const Tensor* opt(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }

// A float64 tensor's values written into a new tensor of `dtype` and `shape`.
Tensor from_f64(const Tensor& values, ScalarType dtype, IntArrayRef shape) {
  return reshape(to(values, dtype), shape);
}

// The per-channel reduction over (n, s) of f(n * C * S + c * S + s, c), parallel across channels.
template <typename F>
void per_channel(const Dims& d, double* out, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, d.N * d.S));
  parallel_for(0, d.C, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      double acc = 0;
      for (int64_t n = 0; n < d.N; ++n) {
        const int64_t base = (n * d.C + c) * d.S;
        for (int64_t s = 0; s < d.S; ++s) acc += f(base + s, c);
      }
      out[c] = acc;
    }
  });
}

// Writes out[i] = f(i, c) for every element of the [N, C, S] layout.
template <typename F>
void per_element(const Dims& d, double* out, const F& f) {
  parallel_for(0, d.N * d.C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, d.S)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t nc = lo; nc < hi; ++nc) {
                   const int64_t c = nc % d.C;
                   for (int64_t s = 0; s < d.S; ++s) out[nc * d.S + s] = f(nc * d.S + s, c);
                 }
               });
}

// The merge of the replicas' rows (batch_norm_reduce_statistics_kernel): each row's biased variance
// recovered from its invstd and eps, combined in row order; the running statistics updated in place.
std::tuple<Tensor, Tensor> gather_stats(const char* op, const Tensor& input, const Tensor& mean,
                                        const Tensor& invstd, const std::optional<Tensor>& running_mean,
                                        const std::optional<Tensor>& running_var, double momentum, double eps,
                                        const std::vector<double>& counts) {
  TL_CHECK(input.dim() >= 2, op, ": expected an input with at least 2 dims (batch, channel, ...), but got ",
           input.dim(), " dims");
  TL_CHECK(mean.dim() == 2 && invstd.dim() == 2, op, ": expected mean and invstd of shape [world_size, ",
           "channels], but got ", mean.sizes(), " and ", invstd.sizes());
  TL_CHECK(mean.sizes() == invstd.sizes(), op, ": mean and invstd must have the same shape, but got ",
           mean.sizes(), " and ", invstd.sizes());
  TL_CHECK_AS(NotImplementedError, is_floating_type(mean.dtype()) && is_floating_type(invstd.dtype()), op,
              ": expected floating mean and invstd, but got '", legacy_type_name(mean.dtype()), "' and '",
              legacy_type_name(invstd.dtype()), "'");
  const int64_t W = mean.sizes()[0], C = mean.sizes()[1];
  TL_CHECK(static_cast<int64_t>(counts.size()) == W, op, ": expected one count per row of mean (", W,
           "), but got ", counts.size());
  const Tensor* rm = opt(running_mean);
  const Tensor* rv = opt(running_var);
  if (rm) TL_CHECK(rm->numel() == C, op, ": running_mean should contain ", C, " elements not ", rm->numel());
  if (rv) TL_CHECK(rv->numel() == C, op, ": running_var should contain ", C, " elements not ", rv->numel());
  const Tensor m = as_f64(mean), v = as_f64(invstd);
  const double* mp = m.data_ptr<double>();
  const double* vp = v.data_ptr<double>();
  Tensor out_mean = empty({C}, ScalarType::Float64, input.device());
  Tensor out_invstd = empty({C}, ScalarType::Float64, input.device());
  Tensor new_rm = rm ? as_f64(*rm) : Tensor(), new_rv = rv ? as_f64(*rv) : Tensor();
  for (int64_t c = 0; c < C; ++c) {
    double avg = 0, var_n = 0, n = 0;
    for (int64_t j = 0; j < W; ++j) {
      const double count = counts[j];
      const double mj = mp[j * C + c];
      double sd = 1.0 / vp[j * C + c];
      const double vj = (sd * sd - eps) * count;
      const double factor = 1.0 / (n + count);
      var_n += vj + (avg - mj) * (avg - mj) * n * count * factor;
      avg = n * factor * avg + count * factor * mj;
      n += count;
    }
    out_mean.data_ptr<double>()[c] = avg;
    out_invstd.data_ptr<double>()[c] = 1.0 / std::sqrt(var_n / n + eps);
    if (rm) new_rm.data_ptr<double>()[c] = (1 - momentum) * new_rm.data_ptr<double>()[c] + momentum * avg;
    if (rv) new_rv.data_ptr<double>()[c] = (1 - momentum) * new_rv.data_ptr<double>()[c] + momentum * (var_n / (n - 1));
  }
  if (rm) copy_kernel(*rm, from_f64(new_rm, rm->dtype(), rm->sizes()), false);
  if (rv) copy_kernel(*rv, from_f64(new_rv, rv->dtype(), rv->sizes()), false);
  return {to(out_mean, mean.dtype()), to(out_invstd, mean.dtype())};
}

}  // namespace

std::tuple<Tensor, Tensor> batch_norm_stats_kernel(const Tensor& input, double eps) {
  const Dims d = sync_bn_dims(input, "batch_norm_stats");
  const ScalarType sd = stat_dtype(input.dtype());
  const Tensor x = as_f64(input);
  const double* xp = x.data_ptr<double>();
  const double n = static_cast<double>(d.N * d.S);
  Tensor mean = empty({d.C}, ScalarType::Float64, input.device());
  Tensor invstd = empty({d.C}, ScalarType::Float64, input.device());
  double* mp = mean.data_ptr<double>();
  per_channel(d, mp, [&](int64_t i, int64_t) { return xp[i]; });
  for (int64_t c = 0; c < d.C; ++c) mp[c] /= n;
  std::vector<double> m2(d.C);
  per_channel(d, m2.data(), [&](int64_t i, int64_t c) { return (xp[i] - mp[c]) * (xp[i] - mp[c]); });
  double* ip = invstd.data_ptr<double>();
  // PyTorch's InvStd: 0 for a zero variance without eps (an empty channel gives NaN statistics).
  for (int64_t c = 0; c < d.C; ++c) {
    const double var = m2[c] / n;
    ip[c] = var == 0 && eps == 0 ? 0.0 : 1.0 / std::sqrt(var + eps);
  }
  return {to(mean, sd), to(invstd, sd)};
}

std::tuple<Tensor, Tensor> batch_norm_gather_stats_with_counts_kernel(
    const Tensor& input, const Tensor& mean, const Tensor& invstd, const std::optional<Tensor>& running_mean,
    const std::optional<Tensor>& running_var, double momentum, double eps, const Tensor& counts) {
  const char* op = "batch_norm_gather_stats_with_counts";
  TL_CHECK_AS(NotImplementedError, counts.dtype() != ScalarType::Bool, op, ": expected numeric counts, but got '",
              legacy_type_name(counts.dtype()), "'");
  const Tensor cf = as_f64(counts);
  const double* cp = cf.data_ptr<double>();
  return gather_stats(op, input, mean, invstd, running_mean, running_var, momentum, eps,
                      std::vector<double>(cp, cp + cf.numel()));
}

std::tuple<Tensor, Tensor> batch_norm_gather_stats_kernel(const Tensor& input, const Tensor& mean,
                                                          const Tensor& invstd,
                                                          const std::optional<Tensor>& running_mean,
                                                          const std::optional<Tensor>& running_var, double momentum,
                                                          double eps, int64_t count) {
  const int64_t W = mean.dim() > 0 ? mean.sizes()[0] : 0;
  return gather_stats("batch_norm_gather_stats", input, mean, invstd, running_mean, running_var, momentum, eps,
                      std::vector<double>(W, static_cast<double>(count)));
}

void batch_norm_elemt_kernel(const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& invstd, double eps,
                             Tensor& out) {
  (void)eps;  // the statistics already hold it, as in PyTorch
  const char* op = "batch_norm_elemt";
  const Dims d = sync_bn_dims(input, op);
  const Tensor m = channel_f64(mean, d.C, op, "mean"), v = channel_f64(invstd, d.C, op, "invstd");
  const Tensor w = opt(weight) ? channel_f64(*weight, d.C, op, "weight") : Tensor();
  const Tensor b = opt(bias) ? channel_f64(*bias, d.C, op, "bias") : Tensor();
  const Tensor x = as_f64(input);
  Tensor y = empty({d.N * d.C * d.S}, ScalarType::Float64, input.device());
  const double *xp = x.data_ptr<double>(), *mp = m.data_ptr<double>(), *vp = v.data_ptr<double>();
  const double* wp = w.defined() ? w.data_ptr<double>() : nullptr;
  const double* bp = b.defined() ? b.data_ptr<double>() : nullptr;
  per_element(d, y.data_ptr<double>(), [&](int64_t i, int64_t c) {
    return (wp ? wp[c] : 1.0) * (xp[i] - mp[c]) * vp[c] + (bp ? bp[c] : 0.0);
  });
  const Tensor result = from_f64(y, input.dtype(), input.sizes());
  if (!out.defined()) {
    out = result;
    return;
  }
  TL_CHECK(out.dtype() == input.dtype(), op, ": expected out of dtype ", legacy_type_name(input.dtype()),
           ", but got ", legacy_type_name(out.dtype()));
  resize_output(out, input.sizes(), op);
  copy_kernel(out, result, false);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_backward_reduce_kernel(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& weight, bool input_g, bool weight_g, bool bias_g) {
  const char* op = "batch_norm_backward_reduce";
  const Dims d = sync_bn_dims(input, op);
  TL_CHECK(grad_out.sizes() == input.sizes(), op, ": expected grad_out of the input's shape ", input.sizes(),
           ", but got ", grad_out.sizes());
  const Tensor m = channel_f64(mean, d.C, op, "mean"), v = channel_f64(invstd, d.C, op, "invstd");
  if (opt(weight)) channel_f64(*weight, d.C, op, "weight");
  const Tensor x = as_f64(input), g = as_f64(grad_out);
  const double *xp = x.data_ptr<double>(), *gp = g.data_ptr<double>(), *mp = m.data_ptr<double>();
  std::vector<double> sum_dy(d.C), sum_dy_xmu(d.C);
  per_channel(d, sum_dy.data(), [&](int64_t i, int64_t) { return gp[i]; });
  per_channel(d, sum_dy_xmu.data(), [&](int64_t i, int64_t c) { return gp[i] * (xp[i] - mp[c]); });
  const ScalarType grad_dtype = opt(weight) ? weight->dtype() : input.dtype();
  auto channel_tensor = [&](ScalarType dtype, auto value) {
    Tensor r = empty({d.C}, ScalarType::Float64, input.device());
    for (int64_t c = 0; c < d.C; ++c) r.data_ptr<double>()[c] = value(c);
    return to(r, dtype);
  };
  Tensor r_sum_dy, r_sum_dy_xmu, grad_weight, grad_bias;
  if (input_g) {
    r_sum_dy = channel_tensor(mean.dtype(), [&](int64_t c) { return sum_dy[c]; });
    r_sum_dy_xmu = channel_tensor(mean.dtype(), [&](int64_t c) { return sum_dy_xmu[c]; });
  }
  if (weight_g) grad_weight = channel_tensor(grad_dtype, [&](int64_t c) { return sum_dy_xmu[c] * v.data_ptr<double>()[c]; });
  if (bias_g) grad_bias = channel_tensor(grad_dtype, [&](int64_t c) { return sum_dy[c]; });
  return {r_sum_dy, r_sum_dy_xmu, grad_weight, grad_bias};
}

Tensor batch_norm_backward_elemt_kernel(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                        const Tensor& invstd, const std::optional<Tensor>& weight,
                                        const Tensor& sum_dy, const Tensor& sum_dy_xmu, const Tensor& count) {
  const char* op = "batch_norm_backward_elemt";
  const Dims d = sync_bn_dims(input, op);
  TL_CHECK(grad_out.sizes() == input.sizes(), op, ": expected grad_out of the input's shape ", input.sizes(),
           ", but got ", grad_out.sizes());
  const Tensor m = channel_f64(mean, d.C, op, "mean"), v = channel_f64(invstd, d.C, op, "invstd");
  const Tensor w = opt(weight) ? channel_f64(*weight, d.C, op, "weight") : Tensor();
  const Tensor sdy = channel_f64(sum_dy, d.C, op, "sum_dy"), sdx = channel_f64(sum_dy_xmu, d.C, op, "sum_dy_xmu");
  TL_CHECK_AS(NotImplementedError, count.dtype() != ScalarType::Bool, op,
              ": expected a numeric count tensor (the replicas' element counts), but got '",
              legacy_type_name(count.dtype()), "'");
  // The replicas' total element count: the mean of the all-reduced sums divides by it.
  const Tensor cf = as_f64(count);
  double total = 0;
  for (int64_t j = 0; j < cf.numel(); ++j) total += cf.data_ptr<double>()[j];
  const double norm = 1.0 / total;
  const Tensor x = as_f64(input), g = as_f64(grad_out);
  const double *xp = x.data_ptr<double>(), *gp = g.data_ptr<double>(), *mp = m.data_ptr<double>();
  const double *vp = v.data_ptr<double>(), *sp = sdy.data_ptr<double>(), *sxp = sdx.data_ptr<double>();
  const double* wp = w.defined() ? w.data_ptr<double>() : nullptr;
  Tensor gi = empty({d.N * d.C * d.S}, ScalarType::Float64, input.device());
  per_element(d, gi.data_ptr<double>(), [&](int64_t i, int64_t c) {
    const double m_dy = sp[c] * norm;
    const double factor_1 = vp[c] * vp[c] * sxp[c] * norm;
    const double factor_2 = (wp ? wp[c] : 1.0) * vp[c];
    return (gp[i] - m_dy - (xp[i] - mp[c]) * factor_1) * factor_2;
  });
  return from_f64(gi, input.dtype(), input.sizes());
}

}  // namespace tl::native
