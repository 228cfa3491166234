#include "aten/native/cpu/CatContiguous.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/core/Parallel.h"

namespace tl::native {

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
  // One work unit is one input's chunk of one row; threads take runs of units of ~kGrainSize
  // elements' bytes (a small cat stays on the calling thread).
  const int64_t units = outer * n;
  const int64_t bytes_per_unit = std::max<int64_t>(1, row / n);
  const int64_t grain = std::max<int64_t>(1, kGrainSize * 4 / bytes_per_unit);
  parallel_for(0, units, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / n, i = u % n;
      std::memcpy(dst + o * row + offset[i], sources[i] + o * chunk[i], static_cast<size_t>(chunk[i]));
    }
  });
  return true;
}

}  // namespace tl::native
