// What the loss ops share: PyTorch's reduction enum (passed as an int) and its application.
#pragma once
#include <cstdint>

#include "aten/core/Tensor.h"

namespace tl::native {

// at::Reduction: torchlite.nn.functional maps 'none' / 'mean' / 'sum' (and the legacy
// size_average / reduce flags) to these.
constexpr int64_t kReductionNone = 0;
constexpr int64_t kReductionMean = 1;
constexpr int64_t kReductionSum = 2;

// The mean or sum of an elementwise loss, or the loss itself for none (through the public ops,
// so composites that use it are differentiable).
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction);

}  // namespace tl::native
