#include "aten/autograd/FunctionsManualPacked.h"

#include "generated/ops/narrow.h"
#include "generated/ops/select.h"

namespace tl::autograd::generated {

std::vector<Tensor> pad_sequence_backward(const Tensor& grad, const std::vector<DimVector>& sizes, bool batch_first,
                                          std::string_view padding_side) {
  const int64_t max_len = grad.sizes()[batch_first ? 1 : 0];
  std::vector<Tensor> grads;
  grads.reserve(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t len = sizes[i][0];
    const Tensor row = select(grad, batch_first ? 0 : 1, static_cast<int64_t>(i));
    // The engine sums the slice down to the sequence's shape where the copy broadcast it.
    grads.push_back(narrow(row, 0, padding_side == "left" ? max_len - len : 0, len));
  }
  return grads;
}

}  // namespace tl::autograd::generated
