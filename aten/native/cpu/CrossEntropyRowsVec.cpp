// The vector-type cross_entropy gradient row (CrossEntropyRowsVec.h): 8 logits a step, the last partial step through
// a buffer (nothing read or written past the row).
#include "aten/native/cpu/CrossEntropyRowsVec.h"

// The vector helpers are always inlined into the per-ISA clones, so the baseline ABI of their vector arguments (which
// GCC warns about) never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

#include "aten/native/cpu/ExpVec8.h"
#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES

namespace tl::native {

namespace {

using vec8::exp8;
using vec8::load;
using vec8::splat;
using vec8::store;
using vec8::vf;
constexpr int64_t kV = vec8::kLanes;

TL_TARGET_CLONES void grad_row(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a, float b,
                               const float* w, int64_t t, float at_target) {
  const vf vl = splat(lse), vlo = splat(lse_lo), va = splat(a), vb = splat(b);
  auto step = [&](const float* xs, const float* ws) __attribute__((always_inline)) {
    const vf e = exp8((load(xs) - vl) - vlo);
    return va * e - (ws ? vb * load(ws) : vb);
  };
  int64_t i = 0;
  for (; i + kV <= n; i += kV) store(gi + i, step(x + i, w ? w + i : nullptr));
  if (i < n) {
    float xb[kV] = {}, wb[kV] = {}, gb[kV];
    for (int64_t j = 0; j < n - i; ++j) {
      xb[j] = x[i + j];
      if (w) wb[j] = w[i + j];
    }
    store(gb, step(xb, w ? wb : nullptr));
    for (int64_t j = 0; j < n - i; ++j) gi[i + j] = gb[j];
  }
  // The target's column takes its one-hot term too.
  gi[t] -= at_target;
}

}  // namespace

void cross_entropy_grad_row_f32_vec(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a, float b,
                                    const float* w, int64_t t, float at_target) {
  grad_row(x, gi, n, lse, lse_lo, a, b, w, t, at_target);
}

}  // namespace tl::native
