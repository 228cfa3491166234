#include "aten/autograd/FunctionsManualResampling.h"

#include <vector>

#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/embedding.h"
#include "generated/ops/eq.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/unsqueeze.h"

namespace tl::autograd::generated {

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> negated(pad.begin(), pad.end());
  for (int64_t& p : negated) p = -p;
  return tl::constant_pad_nd(grad, negated, 0);
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx) {
  Tensor rows = tl::embedding(grad, indices);
  if (padding_idx < 0) return rows;
  return tl::masked_fill(rows, tl::unsqueeze(tl::eq(indices, padding_idx), -1), 0);
}

}  // namespace tl::autograd::generated
