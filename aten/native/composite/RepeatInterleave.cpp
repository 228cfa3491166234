// repeat_interleave of a tensor: with a repeats tensor, an index_select of the indices
// repeat_interleave(repeats) lists (IndexSelectBackward0); with an int, the input broadcast along a
// new dimension after `dim`, copied, and merged into it (ViewBackward0 of the copy), as PyTorch builds them.
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/clone.h"
#include "generated/ops/expand.h"
#include "generated/ops/flatten.h"
#include "generated/ops/index_select.h"
#include "generated/ops/repeat_interleave.h"
#include "generated/ops/reshape.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor repeat_interleave_tensor_composite(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                          std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : flatten(self, 0, -1);
  const int64_t d = dim ? maybe_wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  TL_CHECK_INDEX(input.dim() > 0, "repeat_interleave: Dimension specified as ", d, " but tensor has no dimensions");
  const int64_t size = input.sizes()[d];
  Tensor counts = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.sizes()[0] == 1)) {
    counts = expand(reshape(repeats, std::vector<int64_t>{1}), std::vector<int64_t>{size});
  } else {
    TL_CHECK(repeats.dim() == 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor");
    TL_CHECK(repeats.sizes()[0] == size, "repeat_interleave: repeats must have the same size as input along dim, but ",
             "got repeats.size(0) = ", repeats.sizes()[0], " and input.size(", d, ") = ", size);
  }
  return index_select(input, d, repeat_interleave(counts, output_size));
}

Tensor repeat_interleave_int_composite(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                       std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : flatten(self, 0, -1);
  TL_CHECK(repeats >= 0, "repeat_interleave: Repeats must be non-negative");
  const int64_t d = maybe_wrap_dim(dim.value_or(0), input.dim(), "repeat_interleave");
  Tensor column = unsqueeze(input, d + 1);  // a 0-d input with dim=0 fails here, as in PyTorch
  DimVector wide(column.sizes());
  wide[d + 1] = repeats;
  DimVector merged(input.sizes());
  TL_CHECK(!__builtin_mul_overflow(merged[d], repeats, &merged[d]), "repeat_interleave: the output size overflows");
  TL_CHECK(!output_size || *output_size == merged[d], "repeat_interleave: Invalid output_size, expected ", merged[d],
           " but got ", *output_size);
  return view(clone(expand(column, wide), MemoryFormat::Contiguous), merged);
}

}  // namespace tl::native
