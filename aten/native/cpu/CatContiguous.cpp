#include "aten/native/cpu/CatContiguous.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/core/Parallel.h"

namespace tl::native {
namespace {

// One element per input and row (stack along the last dim) is common: a fixed-size copy is a move.
inline void copy_chunk(char* d, const char* s, int64_t n) {
  switch (n) {
    case 1: *d = *s; break;
    case 2: std::memcpy(d, s, 2); break;
    case 4: std::memcpy(d, s, 4); break;
    case 8: std::memcpy(d, s, 8); break;
    default: std::memcpy(d, s, static_cast<size_t>(n));
  }
}

// Each input gives one element per row (stack along the last dim): a blocked transpose, 64 rows at a
// time, so the block of output rows stays in cache while each input is read sequentially.
template <typename Word>
void cat_single_elements(char* dst, const std::vector<const char*>& sources, int64_t outer) {
  constexpr int64_t kBlock = 64;
  const int64_t n = static_cast<int64_t>(sources.size());
  const int64_t row = n * static_cast<int64_t>(sizeof(Word));
  for (int64_t o0 = 0; o0 < outer; o0 += kBlock) {
    const int64_t o1 = std::min(outer, o0 + kBlock);
    for (int64_t i = 0; i < n; ++i) {
      const char* s = sources[i];
      char* d = dst + i * static_cast<int64_t>(sizeof(Word));
      for (int64_t o = o0; o < o1; ++o) std::memcpy(d + o * row, s + o * sizeof(Word), sizeof(Word));
    }
  }
}

}  // namespace

bool cat_contiguous(TensorList tensors, int64_t dim, const Tensor& out) {
  if (!out.is_contiguous()) return false;
  std::vector<const char*> sources;
  std::vector<int64_t> chunk;  // bytes of one input per output row
  sources.reserve(tensors.size());
  chunk.reserve(tensors.size());
  int64_t inner = static_cast<int64_t>(out.itemsize());  // bytes per index of `dim`
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.sizes()[d];
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.numel() == 0) continue;  // skipped by cat
    // Another device (meta inputs, CPU out) is the general path's to refuse.
    if (t.dtype() != out.dtype() || t.device() != out.device() || !t.is_contiguous()) return false;
    if (t.numel() == 0) continue;
    sources.push_back(static_cast<const char*>(t.data_ptr()));
    chunk.push_back(t.sizes()[dim] * inner);
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.sizes()[d];
  const int64_t row = out.sizes()[dim] * inner;
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t n = static_cast<int64_t>(sources.size());
  if (n == 0 || outer == 0) return true;
  std::vector<int64_t> offset(n, 0);  // of each input's chunk within an output row
  for (int64_t i = 1; i < n; ++i) offset[i] = offset[i - 1] + chunk[i - 1];
  const int64_t itemsize = static_cast<int64_t>(out.itemsize());
  if (inner == itemsize && row == n * itemsize && outer >= 64) {  // every chunk is one element
    switch (itemsize) {
      case 1: cat_single_elements<uint8_t>(dst, sources, outer); return true;
      case 2: cat_single_elements<uint16_t>(dst, sources, outer); return true;
      case 4: cat_single_elements<uint32_t>(dst, sources, outer); return true;
      case 8: cat_single_elements<uint64_t>(dst, sources, outer); return true;
      default: break;
    }
  }
  // Rows are split over threads only when each thread gets a few MiB to copy; below that, memcpy is
  // faster than waking threads (PyTorch's cat is serial).
  const int64_t grain = std::max<int64_t>(1, (int64_t(4) << 20) / std::max<int64_t>(row, 1));
  parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      char* d = dst + o * row;
      for (int64_t i = 0; i < n; ++i) {
        copy_chunk(d + offset[i], sources[i] + o * chunk[i], chunk[i]);
      }
    }
  });
  return true;
}

}  // namespace tl::native
