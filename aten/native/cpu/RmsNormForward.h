// rms_norm's forward in one fused pass per row, for calls autograd does not record (rms_norm stays a
// composite of ops, as PyTorch's CPU path, so that its gradient is theirs): the composite spends five
// passes over memory (pow, mean, rsqrt, two muls) where a row needs one read and one write.
#pragma once
#include <cstdint>

#include "aten/core/Tensor.h"

namespace tl::native {

// y = x * rsqrt(mean(x**2 over the trailing `nd` dims) + eps) * weight, in opmath (float for
// float16/bfloat16), rounded as the composite rounds: (x * rstd) then * weight. `weight` is undefined or
// of the input's dtype or its opmath dtype; `eps` is already the value the composite adds.
Tensor rms_norm_forward_fused(const Tensor& input, int64_t nd, const Tensor& weight, double eps);

}  // namespace tl::native
