// Shared pieces of advanced indexing (aten/native/cpu/AdvancedIndex.cpp, MaskedOps.cpp): the
// positions of a mask's true elements, counted in parallel chunks, and nonzero.
//
// Every mask op (x[mask], x[mask] = v, masked_select, masked_scatter, nonzero) is "walk the mask
// in row-major order, the k-th true element pairs with the k-th packed element". MaskCounts
// splits the mask into chunks and counts each chunk's trues in parallel; a chunk then knows
// where its packed elements start, so the second pass runs in parallel too, deterministically.
#pragma once
#include <cstdint>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"

namespace tl::native {

struct MaskCounts {
  Tensor mask;                 // the mask as contiguous bytes (bool, or uint8 read as != 0)
  int64_t len = 0;             // mask.numel()
  int64_t total = 0;           // number of true elements
  std::vector<int64_t> start;  // chunk c covers [bound(c), bound(c + 1)); start[c] = trues before it

  int64_t chunks() const { return static_cast<int64_t>(start.size()); }
  int64_t bound(int64_t c) const { return len * c / chunks(); }
  const uint8_t* data() const { return static_cast<const uint8_t*>(mask.data_ptr()); }

  // Runs f(begin, end, first_packed_position) for every chunk, in parallel.
  template <typename F>
  void for_each_chunk(const F& f) const {
    parallel_for(0, chunks(), 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) f(bound(c), bound(c + 1), start[c]);
    });
  }
};

// PyTorch leaves these ops out for uint16/uint32/uint64: the same NotImplementedError, naming the op.
inline void check_not_barebones_unsigned(ScalarType t, const char* op) {
  if (is_barebones_unsigned_type(t)) throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(t)));
}

// Counts the true elements of a bool (or uint8) tensor of any layout.
MaskCounts count_mask(const Tensor& mask);

// nonzero(self) as an int64 tensor of shape [count, self.dim()] (self on CPU).
Tensor nonzero_of(const Tensor& self);

// Copies of one element of `itemsize` bytes as the unsigned type of that size: data movement
// does not depend on the dtype. f is called with a value of that type (its type is what counts).
// 16-byte elements (complex128) move as this pair of words.
struct Bytes16 {
  uint64_t lo, hi;
};

template <typename F>
void dispatch_itemsize(size_t itemsize, const F& f) {
  switch (itemsize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 16: return f(Bytes16{});
    default: return f(uint64_t{});
  }
}

}  // namespace tl::native
