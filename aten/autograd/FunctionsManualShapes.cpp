#include "aten/autograd/FunctionsManualShapes.h"

#include <vector>

#include "generated/ops/reshape.h"
#include "generated/ops/roll.h"
#include "generated/ops/sum.h"
#include "generated/ops/zeros.h"

namespace tl::autograd::generated {

// grad viewed as [r0, s0, r1, s1, ...] (a repeat count and the input's size per dimension, no
// size for the new leading dims) and summed over the repeat counts.
Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef input_sizes) {
  const size_t lead = repeats.size() - input_sizes.size();
  if (grad.numel() == 0) return zeros(input_sizes, grad.dtype(), grad.device());
  std::vector<int64_t> split, summed;
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] != 1) {
      summed.push_back(static_cast<int64_t>(split.size()));
      split.push_back(repeats[i]);
    }
    if (i >= lead) split.push_back(input_sizes[i - lead]);
  }
  if (summed.empty()) return reshape(grad, input_sizes);
  return reshape(sum(reshape(grad, split), summed, false), input_sizes);
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  // Reversed, each shift negated (in unsigned arithmetic: -INT64_MIN wraps to itself, the same roll).
  std::vector<int64_t> back_shifts, back_dims;
  for (size_t i = shifts.size(); i-- > 0;)
    back_shifts.push_back(static_cast<int64_t>(0 - static_cast<uint64_t>(shifts[i])));
  for (size_t i = dims.size(); i-- > 0;) back_dims.push_back(dims[i]);
  return roll(grad, back_shifts, back_dims);
}

}  // namespace tl::autograd::generated
