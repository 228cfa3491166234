// `_fused_rms_norm_differentiable_backward`: the gradients of `_fused_rms_norm` written with ops, so that
// a backward with create_graph (and the gradient of its rstd output) can be differentiated again. rstd
// is recomputed from the input (the saved one has no history). With r = rsqrt(mean(x^2) + eps) and
// gw = g * w: dx = r * gw - x * r^3 * mean(gw * x) - grad_rstd * r^3 * x / N, dw = sum(g * (x * r)) over
// the leading dims. The fused kernel (RmsNormBackward.cpp) computes the same without history.
#include <array>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/RmsNormForward.h"
#include "generated/ops/_fused_rms_norm_differentiable_backward.h"
#include "generated/ops/add.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"

namespace tl::native {

std::tuple<Tensor, Tensor> fused_rms_norm_differentiable_backward_composite(
    const std::optional<Tensor>& grad_out, const std::optional<Tensor>& grad_rstd, const Tensor& input,
    IntArrayRef normalized_shape, const std::optional<Tensor>& weight, std::optional<double> eps,
    std::array<bool, 2> output_mask) {
  const int64_t nd = check_rms_norm_inputs(input, normalized_shape, weight);
  const bool has_g = grad_out && grad_out->defined(), has_gr = grad_rstd && grad_rstd->defined();
  const bool has_w = weight && weight->defined();
  if (!has_g && !has_gr) return {};
  const ScalarType acc = opmath_type(input.dtype());
  std::vector<int64_t> dims, lead;
  for (int64_t i = 0; i < input.dim(); ++i) (i < input.dim() - nd ? lead : dims).push_back(i);
  int64_t N = 1;
  for (int64_t d : dims) N *= input.sizes()[d];
  const Tensor xf = to(input, acc);
  const Tensor r = rsqrt(add(mean(pow(xf, 2), IntArrayRef(dims), /*keepdim=*/true), rms_norm_eps(acc, eps)));
  const Tensor r3 = pow(r, 3);
  Tensor dx, dw;
  if (has_g) {
    const Tensor gf = to(*grad_out, acc);
    const Tensor gw = has_w ? mul(gf, *weight) : gf;
    if (output_mask[0]) dx = sub(mul(gw, r), mul(xf, mul(r3, mean(mul(gw, xf), IntArrayRef(dims), true))));
    if (output_mask[1] && has_w) {
      const Tensor t = mul(gf, mul(xf, r));
      dw = to(lead.empty() ? t : sum(t, IntArrayRef(lead)), weight->dtype());
    }
  }
  // Only rstd's gradient: none for the weight (it does not reach rstd), undefined as PyTorch leaves it.
  if (has_gr && output_mask[0]) {
    const Tensor t = mul(mul(to(*grad_rstd, acc), r3), xf);
    dx = dx.defined() ? sub(dx, t, 1.0 / static_cast<double>(N)) : mul(t, -1.0 / static_cast<double>(N));
  }
  if (dx.defined()) dx = to(dx, input.dtype());
  return {dx, dw};
}

}  // namespace tl::native
