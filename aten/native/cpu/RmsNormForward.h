// rms_norm's forward in one fused pass per row: used by the composite for calls autograd does not record,
// and by `_fused_rms_norm` (what the composite records when a gradient is needed, so that the backward is
// one fused kernel too, RmsNormBackward.cpp). The composite of ops spends five passes over memory (pow,
// mean, rsqrt, two muls) where a row needs one read and one write.
#pragma once
#include <cstdint>
#include <optional>

#include "aten/core/ArrayRef.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::native {

// PyTorch's rms_norm checks (its messages and exception types) of the input, the normalized shape and
// the weight; returns the number of normalized dims.
int64_t check_rms_norm_inputs(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight);

// The epsilon rms_norm adds for an opmath dtype `acc`: `eps` rounded to float below float64, or the
// computing dtype's machine epsilon when it is None.
double rms_norm_eps(ScalarType acc, std::optional<double> eps);

// y = x * rsqrt(mean(x**2 over the trailing `nd` dims) + eps) * weight, in opmath (float for
// float16/bfloat16), rounded as the composite rounds: (x * rstd) then * weight. `weight` is undefined or
// of the input's dtype or its opmath dtype; `eps` is already the value the composite adds. With `rstd`
// (contiguous, opmath dtype, one element per row) each row's rsqrt is stored there too.
Tensor rms_norm_forward_fused(const Tensor& input, int64_t nd, const Tensor& weight, double eps,
                              Tensor* rstd = nullptr);

}  // namespace tl::native
