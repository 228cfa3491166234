// The public normalization entries over the kernels, as PyTorch's CPU composites: layer_norm,
// batch_norm, group_norm (native_* outputs), instance_norm (batch_norm of the input seen as one
// sample of N * C channels), and rms_norm, which PyTorch composes of ops on the CPU; here it runs the
// fused `_fused_rms_norm` forward and backward kernels (RmsNormForward.h, RmsNormBackward.cpp) where
// the weight's dtype allows, the ops otherwise.
#include <cfloat>
#include <string>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/autograd/GradMode.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/RmsNormForward.h"
#include "generated/ops/_fused_rms_norm.h"
#include "generated/ops/add.h"
#include "generated/ops/batch_norm.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/group_norm.h"
#include "generated/ops/instance_norm.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/layer_norm.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/native_batch_norm.h"
#include "generated/ops/native_group_norm.h"
#include "generated/ops/native_layer_norm.h"
#include "generated/ops/repeat.h"
#include "generated/ops/select.h"
#include "generated/ops/view.h"
#include "generated/ops/pow.h"
#include "generated/ops/rms_norm.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/to.h"

namespace tl::native {

Tensor layer_norm_composite(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor batch_norm_composite(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                            const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                            bool training, double momentum, double eps, bool /*cudnn_enabled*/) {
  const bool has_mean = running_mean && running_mean->defined(), has_var = running_var && running_var->defined();
  TL_CHECK_VALUE(has_mean == has_var, "running_mean and running_var must either both be None or neither be None");
  if (input.numel() == 0) {
    // PyTorch: a copy (never a view, never a fresh empty tensor: the gradient chain stays), scaled
    // and shifted by the first weight and bias.
    Tensor out = clone(input);
    if (weight && weight->defined()) out = mul(out, select(*weight, 0, 0));
    if (bias && bias->defined()) out = add(out, select(*bias, 0, 0));
    return out;
  }
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

Tensor instance_norm_composite(const Tensor& input, const std::optional<Tensor>& weight,
                               const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                               const std::optional<Tensor>& running_var, bool use_input_stats, double momentum,
                               double eps, bool cudnn_enabled) {
  const bool has_mean = running_mean && running_mean->defined(), has_var = running_var && running_var->defined();
  TL_CHECK(use_input_stats || (has_mean && has_var),
           "Expected running_mean and running_var to be defined when use_input_stats is false");
  TL_CHECK_INDEX(input.dim() >= 2, "Dimension out of range (expected to be in range of [", -std::max<int64_t>(input.dim(), 1),
                 ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 1)");
  // One sample of b * c channels: the per-channel tensors repeated b times.
  const int64_t b = input.sizes()[0], c = input.sizes()[1];
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape[0] = 1;
  shape[1] = b * c;
  auto repeated = [&](const std::optional<Tensor>& t) -> std::optional<Tensor> {
    if (!t || !t->defined()) return std::nullopt;
    return repeat(*t, IntArrayRef{b});
  };
  const std::optional<Tensor> rm = repeated(running_mean), rv = repeated(running_var);
  const Tensor out = batch_norm(view(contiguous(input), shape), repeated(weight), repeated(bias), rm, rv,
                                use_input_stats, momentum, eps, cudnn_enabled);
  // The running statistics of the b copies are averaged back into the c channels, written as
  // native_batch_norm writes them (the raw copy kernel: no autograd, as PyTorch's write through an alias).
  if (has_mean) copy_kernel(*running_mean, tl::mean(view(*rm, {b, c}), IntArrayRef{0}, false), false);
  if (has_var) copy_kernel(*running_var, tl::mean(view(*rv, {b, c}), IntArrayRef{0}, false), false);
  return view(out, input.sizes());
}

Tensor group_norm_composite(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  TL_CHECK_INDEX(input.dim() >= 2, "Dimension out of range (expected to be in range of [", -std::max<int64_t>(input.dim(), 1),
                 ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 1)");
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  int64_t HxW = 1;
  for (int64_t i = 2; i < input.dim(); ++i) HxW *= input.sizes()[i];
  return std::get<0>(native_group_norm(contiguous(input), weight, bias, N, C, HxW, num_groups, eps));
}

Tensor rms_norm_composite(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                          std::optional<double> eps) {
  const int64_t nd = check_rms_norm_inputs(input, normalized_shape, weight);
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < nd; ++i) dims.push_back(input.dim() - i - 1);
  // float16/bfloat16 compute in float32; eps defaults to the computing dtype's epsilon.
  // Complex inputs compute in their own dtype, eps the epsilon of their parts' dtype, by the ops below.
  const bool cplx = is_complex_type(input.dtype());
  const ScalarType acc = cplx ? input.dtype() : opmath_type(input.dtype());
  const double e = rms_norm_eps(cplx ? to_real_type(acc) : acc, eps);
  // One fused pass per row (RmsNormForward.h) for the weights it takes: nothing recorded when autograd
  // needs nothing, else `_fused_rms_norm`, whose backward is one fused kernel too (the same values as
  // the composite's ops, which PyTorch's CPU path records).
  const bool wdef = weight && weight->defined();
  const bool record = autograd::GradMode::is_enabled() && (input.requires_grad() || (wdef && weight->requires_grad()));
  if (!cplx && !input.is_meta() && (!wdef || (!weight->is_meta() && (weight->dtype() == input.dtype() ||
                                                             weight->dtype() == acc)))) {
    if (!record) return rms_norm_forward_fused(input, nd, wdef ? *weight : Tensor(), e);
    return std::get<0>(_fused_rms_norm(input, normalized_shape, weight, eps));
  }
  const Tensor up = to(input, acc);
  const Tensor rstd = rsqrt(add(mean(pow(up, 2), IntArrayRef(dims), /*keepdim=*/true), e));
  Tensor out = mul(up, rstd);
  if (wdef) out = mul(out, *weight);
  return to(contiguous(out), input.dtype());
}

}  // namespace tl::native
