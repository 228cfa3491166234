// embedding_bag and embedding_bag.padding_idx, F.embedding_bag's ops: _embedding_bag with the padding
// row checked and wrapped (None is no padding row, -1 below).
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_embedding_bag.h"
#include "generated/ops/embedding_bag.h"

namespace tl::native {

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_padding_idx_composite(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
    bool sparse, const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
    std::optional<int64_t> padding_idx) {
  int64_t pad = -1;
  if (padding_idx) {
    TL_CHECK_INDEX(weight.dim() >= 1, "embedding_bag: Dimension specified as 0 but tensor has no dimensions");
    const int64_t rows = weight.sizes()[0];
    TL_CHECK(*padding_idx >= -rows && *padding_idx < rows, "embedding_bag: padding_idx must be within the number of "
             "embeddings, -", rows, " through ", rows - 1, ", but got ", *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
  }
  return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                        include_last_offset, pad);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_composite(const Tensor& weight, const Tensor& indices,
                                                                   const Tensor& offsets, bool scale_grad_by_freq,
                                                                   int64_t mode, bool sparse,
                                                                   const std::optional<Tensor>& per_sample_weights,
                                                                   bool include_last_offset) {
  return embedding_bag_padding_idx_composite(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                                             per_sample_weights, include_last_offset, std::nullopt);
}

}  // namespace tl::native
