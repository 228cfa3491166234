#include "aten/autograd/FunctionsManualPadding.h"

#include <vector>

#include "generated/ops/constant_pad_nd.h"

namespace tl::autograd::generated {

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> negated(pad.begin(), pad.end());
  for (int64_t& p : negated) p = -p;
  return tl::constant_pad_nd(grad, negated, 0);
}

}  // namespace tl::autograd::generated
