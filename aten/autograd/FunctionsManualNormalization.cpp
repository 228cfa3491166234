#include "aten/autograd/FunctionsManualNormalization.h"

#include <tuple>
#include <vector>

#include "aten/autograd/GradMode.h"

#include "generated/ops/add.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/div.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/native_group_norm_backward.h"
#include "generated/ops/neg.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {
namespace {

Tensor accumulate(const Tensor& acc, const Tensor& term) { return acc.defined() ? add(acc, term) : term; }

Tensor sum_over(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : sum(t, IntArrayRef(dims), /*keepdim=*/true);
}

Tensor view_or_undefined(const Tensor& t, IntArrayRef shape) { return t.defined() ? reshape(t, shape) : Tensor(); }

std::vector<int64_t> all_dims_but(int64_t ndim, int64_t keep) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < ndim; ++i)
    if (i != keep) dims.push_back(i);
  return dims;
}

// The affine normalizations (layer, batch in training) share one structure: with
// statistics over `norm_dims`, xhat = (x - mean) * rstd, g = gO * w and the projection
// P(v) = v - mean(v) - xhat * mean(v * xhat) (symmetric), the backward op computes
//   dx = rstd * P(g),   dw = sum_param(gO * xhat),   db = sum_param(gO).
// Differentiating <ggI, dx> + <ggW, dw> + <ggB, db>, using d rstd / dx = -rstd^2 xhat / n and
// d xhat / dx = rstd * P:
//   d/dgO = w * rstd * P(ggI) + ggW * xhat + ggB
//   d/dw  = sum_param(gO * rstd * P(ggI))
//   d/dx  = rstd * P(ggW * gO)
//           - rstd^2 * (xhat * (mean(ggI g) - mean(ggI) mean(g) - mean(ggI xhat) mean(g xhat))
//                       + P(ggI * mean(g xhat) + g * mean(ggI xhat)))
// No identity of consistent statistics is used, so this holds for whatever mean/rstd are given.
// Every tensor is already viewed so that w, ggW, ggB, mean and rstd broadcast against x; gW comes
// back summed over param_dims with keepdim.
std::tuple<Tensor, Tensor, Tensor> affine_norm_double_backward(const Tensor& x, const Tensor& w, const Tensor& ggI,
                                                               const Tensor& ggW, const Tensor& ggB, const Tensor& gO,
                                                               const Tensor& mean, const Tensor& rstd,
                                                               const std::vector<int64_t>& norm_dims,
                                                               const std::vector<int64_t>& param_dims,
                                                               std::array<bool, 3> mask) {
  auto mean_n = [&](const Tensor& v) { return tl::mean(v, IntArrayRef(norm_dims), /*keepdim=*/true); };
  const Tensor xhat = mul(sub(x, mean), rstd);
  auto P = [&](const Tensor& v) { return sub(sub(v, mean_n(v)), mul(xhat, mean_n(mul(v, xhat)))); };
  const Tensor g = w.defined() ? mul(gO, w) : gO;
  Tensor gI, gW, gGO;
  if (mask[0]) {
    if (ggW.defined()) gI = mul(rstd, P(mul(ggW, gO)));
    if (ggI.defined()) {
      const Tensor a2 = mean_n(mul(ggI, xhat)), b2 = mean_n(mul(g, xhat));
      const Tensor c = sub(sub(mean_n(mul(ggI, g)), mul(mean_n(ggI), mean_n(g))), mul(a2, b2));
      const Tensor t = mul(mul(rstd, rstd), add(mul(xhat, c), P(add(mul(ggI, b2), mul(g, a2)))));
      gI = gI.defined() ? sub(gI, t) : neg(t);
    }
    gI = gI.defined() ? add(zeros_like(x), gI) : zeros_like(x);
  }
  const Tensor p_ggI = ggI.defined() ? mul(rstd, P(ggI)) : Tensor();
  if (mask[1] && w.defined()) gW = p_ggI.defined() ? sum_over(mul(gO, p_ggI), param_dims) : zeros_like(w);
  if (mask[2]) {
    if (p_ggI.defined()) gGO = w.defined() ? mul(p_ggI, w) : p_ggI;
    if (ggW.defined()) gGO = accumulate(gGO, mul(ggW, xhat));
    if (ggB.defined()) gGO = accumulate(gGO, ggB);
    gGO = gGO.defined() ? add(zeros_like(gO), gGO) : zeros_like(gO);
  }
  return {gI, gW, gGO};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& gO, const Tensor& mean, const Tensor& rstd,
                                                              IntArrayRef normalized_shape,
                                                              std::array<bool, 3> grad_input_mask) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> norm_dims, lead_dims;
  for (int64_t i = 0; i < input.dim(); ++i) (i < axis ? lead_dims : norm_dims).push_back(i);
  const Tensor w = weight && weight->defined() ? *weight : Tensor();
  auto [gI, gW, gGO] = affine_norm_double_backward(input, w, ggI, ggW, ggB, gO, mean, rstd, norm_dims, lead_dims,
                                                   grad_input_mask);
  return {gI, view_or_undefined(gW, normalized_shape), gGO};
}

std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(
    const Tensor& input, const std::optional<Tensor>& weight, const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
    const Tensor& gO, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool train,
    double eps, const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    std::array<bool, 3> grad_input_mask) {
  // Per-channel tensors viewed as [1, C, 1, ...].
  std::vector<int64_t> vs(input.dim(), 1);
  vs[1] = input.sizes()[1];
  const std::vector<int64_t> dims = all_dims_but(input.dim(), 1);
  const Tensor w = weight && weight->defined() ? reshape(*weight, vs) : Tensor();
  const Tensor ggW_b = view_or_undefined(ggW, vs), ggB_b = view_or_undefined(ggB, vs);
  const IntArrayRef channels(&vs[1], 1);
  if (train) {
    auto [gI, gW, gGO] = affine_norm_double_backward(input, w, ggI, ggW_b, ggB_b, gO, reshape(*save_mean, vs),
                                                     reshape(*save_invstd, vs), dims, dims, grad_input_mask);
    return {gI, view_or_undefined(gW, channels), gGO};
  }
  // Evaluation: the statistics are constants, so dx = gO * w * r, dw = sum(gO * xhat), db = sum(gO)
  // are linear in gO and x.
  const Tensor r = rsqrt(add(reshape(*running_var, vs), eps));
  const Tensor xhat = mul(sub(input, reshape(*running_mean, vs)), r);
  Tensor gI, gW, gGO;
  if (grad_input_mask[0])
    gI = ggW_b.defined() ? add(zeros_like(input), mul(mul(ggW_b, gO), r)) : zeros_like(input);
  if (grad_input_mask[1] && w.defined())
    gW = ggI.defined() ? reshape(sum(mul(mul(ggI, gO), r), IntArrayRef(dims), false), channels) : zeros_like(*weight);
  if (grad_input_mask[2]) {
    if (ggI.defined()) gGO = w.defined() ? mul(mul(ggI, w), r) : mul(ggI, r);
    if (ggW_b.defined()) gGO = accumulate(gGO, mul(ggW_b, xhat));
    if (ggB_b.defined()) gGO = accumulate(gGO, ggB_b);
    gGO = gGO.defined() ? add(zeros_like(gO), gGO) : zeros_like(gO);
  }
  return {gI, gW, gGO};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward_with_stats(const Tensor& grad, const Tensor& grad_mean,
                                                                  const Tensor& grad_rstd, const Tensor& input,
                                                                  const Tensor& mean, const Tensor& rstd,
                                                                  const std::optional<Tensor>& weight, int64_t N,
                                                                  int64_t C, int64_t HxW, int64_t group,
                                                                  std::array<bool, 3> grad_input_mask) {
  Tensor gI, gW, gB;
  if (grad.defined() && GradMode::is_enabled()) {
    // [N, G, C/G, HxW]: dx = rstd * P(dy * w) (affine_norm_double_backward's notation), dw, db summed.
    const std::vector<int64_t> xs{N, group, C / group, HxW}, ps{1, group, C / group, 1}, ss{N, group, 1, 1};
    const std::vector<int64_t> norm_dims{2, 3}, param_dims{0, 3};
    const Tensor x = reshape(input, xs), dy = reshape(grad, xs), r = reshape(rstd, ss);
    const Tensor xhat = mul(sub(x, reshape(mean, ss)), r);
    const Tensor g = weight && weight->defined() ? mul(dy, reshape(*weight, ps)) : dy;
    auto mean_n = [&](const Tensor& v) { return tl::mean(v, IntArrayRef(norm_dims), /*keepdim=*/true); };
    const int64_t c_only[1] = {C};
    if (grad_input_mask[0])
      gI = reshape(mul(r, sub(sub(g, mean_n(g)), mul(xhat, mean_n(mul(g, xhat))))), input.sizes());
    if (grad_input_mask[1] && weight && weight->defined())
      gW = reshape(sum(mul(dy, xhat), IntArrayRef(param_dims), false), IntArrayRef(c_only, 1));
    if (grad_input_mask[2]) gB = reshape(sum(dy, IntArrayRef(param_dims), false), IntArrayRef(c_only, 1));
  } else if (grad.defined()) {
    std::tie(gI, gW, gB) = native_group_norm_backward(contiguous(grad), input, mean, rstd, weight, N, C, HxW, group,
                                                      grad_input_mask);
  }
  if (grad_input_mask[0] && (grad_mean.defined() || grad_rstd.defined())) {
    const std::vector<int64_t> xs{N, group, C / group * HxW}, ss{N, group, 1};
    const double n = static_cast<double>(C / group * HxW);
    const Tensor x = reshape(input, xs);
    Tensor extra = zeros_like(x);
    if (grad_mean.defined()) extra = add(extra, div(reshape(grad_mean, ss), n));
    if (grad_rstd.defined()) {
      const Tensor r = reshape(rstd, ss);
      extra = sub(extra, div(mul(mul(reshape(grad_rstd, ss), mul(mul(r, r), r)), sub(x, reshape(mean, ss))), n));
    }
    extra = reshape(extra, input.sizes());
    gI = gI.defined() ? add(gI, extra) : extra;
  }
  return {gI, gW, gB};
}

}  // namespace tl::autograd::generated
