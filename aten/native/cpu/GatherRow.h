// gather's loop over one stride-1 slice, bounds checked in the same pass over the index (a
// separate checking pass costs a fifth of the op when the index streams from memory).
#pragma once
#include <cstdint>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native {

// y[i] = x[ix[i]] for i < n; returns false when some index is outside [0, bound). Reads go
// through the index clamped into range, so a bad index never leaves x's slice; the loop has no
// branch and vectorizes (gathers) where the ISA has them.
template <typename T>
TL_TARGET_CLONES bool gather_row(T* y, const T* x, const int64_t* ix, int64_t n, int64_t bound) {
  if (bound <= 0) return n == 0;
  const uint64_t last = static_cast<uint64_t>(bound - 1);
  uint64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = static_cast<uint64_t>(ix[i]);  // a negative index becomes huge: out of range
    bad |= static_cast<uint64_t>(v > last);
    y[i] = x[v < last ? v : last];
  }
  return bad == 0;
}

// gather along a dim that is not the innermost, over one contiguous run of the inner dims:
// y[j] = x[ix[j] * stride + j] for j < n, where x points at the (outer) row's first element and
// `stride` is the gathered dim's stride. Checked and clamped as gather_row.
template <typename T>
TL_TARGET_CLONES bool gather_across(T* y, const T* x, const int64_t* ix, int64_t n, int64_t bound, int64_t stride) {
  if (bound <= 0) return n == 0;
  const uint64_t last = static_cast<uint64_t>(bound - 1);
  uint64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    const uint64_t v = static_cast<uint64_t>(ix[j]);
    bad |= static_cast<uint64_t>(v > last);
    y[j] = x[static_cast<int64_t>(v < last ? v : last) * stride + j];
  }
  return bad == 0;
}

}  // namespace tl::native
