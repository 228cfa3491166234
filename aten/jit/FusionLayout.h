// The iteration order of a fusion group's blocked run (aten/jit/FusionExecutor.h) and the copies
// between its operands and the per-thread block buffers.
//
// The group's elements are visited in the memory order of its first output (dims sorted by that
// output's strides), size-1 dims dropped and neighbouring dims merged where every operand allows,
// as TensorIterator does. An operand whose elements then lie at consecutive addresses in that
// order is "flat": a block of it is a plain 1-D view. Others (broadcast, transposed, sliced) are
// gathered into a buffer (inputs) or scattered from one (outputs), a strided copy per block.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "aten/core/ArrayRef.h"

namespace tl::jit {

struct FusionLayout {
  std::vector<int64_t> sizes;                 // iteration dims, innermost first
  std::vector<std::vector<int64_t>> strides;  // per operand, in elements, innermost first
  std::vector<bool> flat;                     // per operand: element i at offset i
  int64_t numel = 1;
};

// `shape`: the group's shape; `order_strides`: the strides whose descending order is the visiting
// order (the first output's); `operand_strides`: each operand's strides aligned with `shape` (0
// along broadcast dims).
FusionLayout make_fusion_layout(IntArrayRef shape, IntArrayRef order_strides,
                                const std::vector<std::vector<int64_t>>& operand_strides);

// Copies the elements [start, start + len) (in iteration order) of operand `op`, whose element 0 is
// at `base`, into the contiguous `buffer` (gather) or from it (scatter). `esz`: bytes per element.
void fusion_gather(const FusionLayout& layout, size_t op, const char* base, char* buffer, size_t esz,
                   int64_t start, int64_t len);
void fusion_scatter(const FusionLayout& layout, size_t op, char* base, const char* buffer, size_t esz,
                    int64_t start, int64_t len);

}  // namespace tl::jit
