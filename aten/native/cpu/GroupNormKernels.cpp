// Group normalization: native_group_norm and native_group_norm_backward.
//
// The input is [N, C, HxW] contiguous; group g of sample n is the contiguous run of D * HxW elements
// (D = C / group channels), so its statistics are one run's moments, and every (n, c) plane is then
// one affine run with per-plane coefficients. Computed in opmath (NormalizationLoops.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/AffineRunOut.h"
#include "aten/native/cpu/BatchNormRowsAvx2.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/StreamStore.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/native_group_norm.h"
#include "generated/ops/native_group_norm_backward.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

using norm::affine_run;
using norm::run_moments;
using norm::run_sums;

const Tensor* opt(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }

void check_group_norm_inputs(const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW, int64_t group) {
  TL_CHECK(group > 0, "Expected num groups to be greater than 0, got ", group);
  TL_CHECK(C % group == 0, "Expected number of channels in input to be divisible by num_groups, but got input of "
           "shape ", input.sizes(), " and num_groups=", group);
  // N * C * HxW in checked arithmetic: the caller's N, C, HxW may be anything (an overflowing product
  // is no match either).
  int64_t NC = 0, NCHW = 0;
  const bool overflow = __builtin_mul_overflow(N, C, &NC) || __builtin_mul_overflow(NC, HxW, &NCHW);
  TL_CHECK(!overflow && input.numel() == NCHW && N >= 0 && C >= 0 && HxW >= 0,
           "Expected X.numel() == N * C * HxW to be true, but got false.");

  for (const auto& [p, name] : {std::pair{opt(weight), "weight"}, std::pair{opt(bias), "bias"}})
    TL_CHECK(!p || (p->dim() == 1 && p->numel() == C), "Expected ", name, " to be a vector of size equal to the "
             "number of channels in input, but got ", name, " of shape ", p->sizes(), " and input of shape ",
             input.sizes());
}

Tensor opmath_param(const std::optional<Tensor>& t, ScalarType acc) {
  return opt(t) ? contiguous(to(*t, acc)) : Tensor();
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_group_norm_kernel(const Tensor& input, const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                             int64_t HxW, int64_t group, double eps) {
  check_group_norm_inputs(input, weight, bias, N, C, HxW, group);
  // As PyTorch's kernel, which reads X as [N, C, HxW] memory: group_norm passes a contiguous input.
  TL_CHECK(input.is_contiguous(), "Expected X.is_contiguous(memory_format) to be true, but got false.");
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()), "\"GroupNormKernelImpl\" not implemented for '",
              legacy_type_name(input.dtype()), "'");
  const ScalarType param_dtype = norm_param_dtype(input, {opt(weight), opt(bias)});
  Tensor y = empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = empty({N, group}, param_dtype, input.device());
  Tensor rstd = empty({N, group}, param_dtype, input.device());
  if (input.is_meta() || N * group == 0) return {y, mean, rstd};
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input), w = opmath_param(weight, acc), b = opmath_param(bias, acc);
  Tensor mean_acc = empty({N * group}, acc, input.device()), rstd_acc = empty({N * group}, acc, input.device());
  const int64_t D = C / group, run = D * HxW;
  // Input and output together past the last-level cache: the output is streamed.
  const bool stream = stream_output(2 * x.numel() * static_cast<int64_t>(element_size(input.dtype())));
  TL_DISPATCH_FLOAT(input.dtype(), "GroupNormKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* yp = y.data_ptr<scalar_t>();
    const acc_t* wp = w.defined() ? w.data_ptr<acc_t>() : nullptr;
    const acc_t* bp = b.defined() ? b.data_ptr<acc_t>() : nullptr;
    acc_t* mp = mean_acc.data_ptr<acc_t>();
    acc_t* rp = rstd_acc.data_ptr<acc_t>();
    parallel_for(0, N * group, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * run)), [&](int64_t lo, int64_t hi) {
      for (int64_t ng = lo; ng < hi; ++ng) {
        acc_t m = 0, m2 = 0;
        if (run > 0) run_moments<scalar_t>(xp + ng * run, run, &m, &m2);
        const acc_t var = run > 0 ? m2 / static_cast<acc_t>(run) : std::numeric_limits<acc_t>::quiet_NaN();
        const acc_t r = static_cast<acc_t>(1.0 / std::sqrt(static_cast<double>(std::max(var, acc_t(0))) + eps));
        mp[ng] = m;
        rp[ng] = run > 0 ? r : std::numeric_limits<acc_t>::quiet_NaN();
        const int64_t g = ng % group;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = g * D + d;
          const acc_t scale = r * (wp ? wp[c] : acc_t(1));
          const acc_t shift = (bp ? bp[c] : acc_t(0)) - m * scale;
          const int64_t off = ng * run + d * HxW;
          affine_run_out<scalar_t>(xp + off, nullptr, scale, acc_t(0), shift, HxW, yp + off, stream);
        }
      }
      if (stream) stream_fence();
    });
  });
  copy_stats(mean, mean_acc);
  copy_stats(rstd, rstd_acc);
  return {y, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_kernel(const Tensor& grad_out, const Tensor& input,
                                                                      const Tensor& mean, const Tensor& rstd,
                                                                      const std::optional<Tensor>& weight, int64_t N,
                                                                      int64_t C, int64_t HxW, int64_t group,
                                                                      std::array<bool, 3> output_mask) {
  check_group_norm_inputs(input, weight, std::nullopt, N, C, HxW, group);
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_group_norm_backward: grad_out of shape ", grad_out.sizes(),
           " does not match input of shape ", input.sizes());
  TL_CHECK(mean.numel() == N * group && rstd.numel() == N * group, "native_group_norm_backward: expected mean and "
           "rstd with ", N * group, " elements, but got ", mean.numel(), " and ", rstd.numel());
  TL_CHECK_AS(NotImplementedError, is_floating_type(input.dtype()), "\"GroupNormBackwardKernelImpl\" not implemented "
              "for '", legacy_type_name(input.dtype()), "'");
  const ScalarType param_dtype = opt(weight) ? weight->dtype() : input.dtype();
  Tensor dx, dw, db;
  if (output_mask[0]) dx = empty(input.sizes(), input.dtype(), input.device());
  if (output_mask[1] && opt(weight)) dw = empty({C}, param_dtype, input.device());
  if (output_mask[2]) db = empty({C}, param_dtype, input.device());
  if (input.is_meta()) return {dx, dw, db};
  if (N * C * HxW == 0) {  // nothing summed: zero parameter gradients
    if (dw.defined()) dw = zeros({C}, param_dtype, input.device());
    if (db.defined()) db = zeros({C}, param_dtype, input.device());
    return {dx, dw, db};
  }
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input), dy = contiguous(to(grad_out, input.dtype()));
  const Tensor w = opmath_param(weight, acc);
  const Tensor m = contiguous(to(mean, acc)), s = contiguous(to(rstd, acc));
  // Per (n, c) plane: sum(dy) and sum(dy * x).
  Tensor sum_dy = empty({N * C}, acc, input.device()), sum_dyx = empty({N * C}, acc, input.device());
  Tensor dw_acc = empty({C}, acc, input.device()), db_acc = empty({C}, acc, input.device());
  const int64_t D = C / group;
  TL_DISPATCH_FLOAT(input.dtype(), "GroupNormBackwardKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* dyp = dy.data_ptr<scalar_t>();
    const acc_t* wp = w.defined() ? w.data_ptr<acc_t>() : nullptr;
    const acc_t* mp = m.data_ptr<acc_t>();
    const acc_t* sp = s.data_ptr<acc_t>();
    acc_t* sdy = sum_dy.data_ptr<acc_t>();
    acc_t* sdyx = sum_dyx.data_ptr<acc_t>();
    scalar_t* dxp = dx.defined() ? dx.data_ptr<scalar_t>() : nullptr;
    const acc_t inv_n = acc_t(1) / static_cast<acc_t>(D * HxW);
    // One sweep per group: its planes' sums, then (dx wanted) its dx from the same 2 * D * HxW elements, still
    // in L2, instead of a second read of dy and x from memory. dx is streamed when dy, x and dx overflow the cache.
    const bool stream = dxp && stream_output(3 * x.numel() * static_cast<int64_t>(sizeof(scalar_t)));
    parallel_for(0, N * group, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 2 * D * HxW)), [&](int64_t lo, int64_t hi) {
      for (int64_t ng = lo; ng < hi; ++ng) {
        const int64_t n = ng / group, g = ng % group;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t nc = n * C + g * D + d;
          run_sums<scalar_t>(dyp + nc * HxW, xp + nc * HxW, HxW, sdy + nc, sdyx + nc);
        }
        if (!dxp) continue;
        // With gi = dy * w: sum(gi) and sum(gi * x) over the group, then
        // dx = rstd * gi + c1 * x + c0 (as layer norm's row).
        acc_t sum_g = 0, sum_gx = 0;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = g * D + d;
          const acc_t wc = wp ? wp[c] : acc_t(1);
          sum_g += wc * sdy[n * C + c];
          sum_gx += wc * sdyx[n * C + c];
        }
        const acc_t mu = mp[ng], r = sp[ng];
        const acc_t sgx = r * (sum_gx - mu * sum_g);  // sum(gi * xhat)
        const acc_t c1 = -r * r * sgx * inv_n;
        const acc_t c0 = -r * sum_g * inv_n - c1 * mu;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = g * D + d, off = (n * C + c) * HxW;
          affine_run_out<scalar_t>(dyp + off, xp + off, r * (wp ? wp[c] : acc_t(1)), c1, c0, HxW, dxp + off, stream);
        }
      }
      if (stream) stream_fence();
    });
    acc_t* dwp = dw_acc.data_ptr<acc_t>();
    acc_t* dbp = db_acc.data_ptr<acc_t>();
    for (int64_t c = 0; c < C; ++c) {
      acc_t sw = 0, sb = 0;
      for (int64_t n = 0; n < N; ++n) {
        const int64_t ng = n * group + c / D;
        sw += (sdyx[n * C + c] - sdy[n * C + c] * mp[ng]) * sp[ng];
        sb += sdy[n * C + c];
      }
      dwp[c] = sw;
      dbp[c] = sb;
    }
  });
  if (dw.defined()) copy_stats(dw, dw_acc);
  if (db.defined()) copy_stats(db, db_acc);
  return {dx, dw, db};
}

}  // namespace tl::native
