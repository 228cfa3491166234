// The vector-type probability rows (CrossEntropyProbRowsVec.h): 8 floats a step, two independent accumulator chains
// where the loop sums, the last partial step through buffers (nothing read or written past the row; its padding lanes
// get q = 0, so they add nothing).
#include "aten/native/cpu/CrossEntropyProbRowsVec.h"

// The vector helpers are always inlined into the per-ISA clones, so the baseline ABI of their vector arguments (which
// GCC warns about) never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>

#include "aten/native/cpu/ExpVec8.h"
#include "aten/native/cpu/StreamStore.h"
#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES, TL_ALWAYS_INLINE

namespace tl::native {

namespace {

using vec8::exp8;
using vec8::load;
using vec8::splat;
using vec8::store;
using vec8::vf;
using vec8::vi;
constexpr int64_t kV = vec8::kLanes;

// Horizontal sum in a fixed tree order.
TL_ALWAYS_INLINE float hsum(vf v) {
  for (int h = kV / 2; h >= 1; h /= 2)
    for (int j = 0; j < h; ++j) v[j] += v[j + h];
  return v[0];
}

// Lanes [0, left) of v, the others 0.
TL_ALWAYS_INLINE vf keep_lanes(vf v, int64_t left) {
  const vi lane = {0, 1, 2, 3, 4, 5, 6, 7};
  return lane < static_cast<int32_t>(left) ? v : vf{};
}

// The last n - i (< 8) floats of a row into a buffer (its other lanes `fill`), or nothing where src is null.
TL_ALWAYS_INLINE void load_tail(float* buf, const float* src, int64_t left, float fill) {
  for (int64_t j = 0; j < kV; ++j) buf[j] = src && j < left ? src[j] : fill;
}

// q_c for the 8 classes at (x, p, w) + j (p, w may be null: their factors are 1).
struct Coef {
  const float* p;
  const float* w;
  vf va, vb;
  TL_ALWAYS_INLINE vf at(const float* pj, const float* wj) const {
    vf q = pj ? va * load(pj) + vb : splat(1.0f);
    if (wj) q *= load(wj);
    return q;
  }
};

TL_TARGET_CLONES float weighted_row(const float* x, const float* w, const float* p, int64_t n, float mx, float log_sum,
                                    float a, float b, float* q_sum) {
  const Coef k{p, w, splat(a), splat(b)};
  const vf vm = splat(mx), vl = splat(log_sum);
  vf s0 = vf{}, s1 = vf{}, q0 = vf{}, q1 = vf{};
  auto pos = [](const float* base, int64_t i) { return base ? base + i : nullptr; };
  int64_t i = 0;
  for (; i + 2 * kV <= n; i += 2 * kV) {
    const vf qa = k.at(pos(p, i), pos(w, i)), qb = k.at(pos(p, i + kV), pos(w, i + kV));
    s0 += qa * (vl - (load(x + i) - vm));
    s1 += qb * (vl - (load(x + i + kV) - vm));
    q0 += qa;
    q1 += qb;
  }
  if (i + kV <= n) {
    const vf q = k.at(pos(p, i), pos(w, i));
    s0 += q * (vl - (load(x + i) - vm));
    q0 += q;
    i += kV;
  }
  if (i < n) {
    float xb[kV], pb[kV], wb[kV];
    load_tail(xb, x + i, n - i, mx);
    load_tail(pb, pos(p, i), n - i, 0.0f);
    load_tail(wb, pos(w, i), n - i, 0.0f);
    const vf q = keep_lanes(k.at(p ? pb : nullptr, w ? wb : nullptr), n - i);
    s1 += q * (vl - (load(xb) - vm));
    q1 += q;
  }
  *q_sum = hsum(q0 + q1);
  return hsum(s0 + s1);
}

// Writes f(j) (8 floats) for the steps [from, to) of a row into gi + from; with Stream through an L1 buffer streamed
// out in pieces (stream_copy: non-temporal stores, no read of the destination lines first).
template <bool Stream, typename F>
TL_ALWAYS_INLINE void write_steps(float* gi, int64_t from, int64_t to, const F& f) {
  if constexpr (Stream) {
    alignas(64) float buf[kStreamPiece];
    for (int64_t i = from; i < to; i += kStreamPiece) {
      const int64_t e = std::min(to, i + kStreamPiece);
      for (int64_t j = i; j < e; j += kV) store(buf + (j - i), f(j));
      stream_copy(gi + i, buf, (e - i) * static_cast<int64_t>(sizeof(float)));
    }
  } else {
    for (int64_t j = from; j < to; j += kV) store(gi + j, f(j));
  }
}

TL_TARGET_CLONES void prob_grad_row(const float* x, const float* p, const float* w, float* gi, int64_t n, float lse,
                                    float lse_lo, float g, float a, float b, bool stream) {
  const Coef k{p, w, splat(a), splat(b)};
  auto pos = [](const float* base, int64_t i) { return base ? base + i : nullptr; };
  const int64_t full = n / kV * kV;
  // Q first (p and w are read again below, from L1/L2).
  vf q0 = vf{}, q1 = vf{};
  int64_t i = 0;
  for (; i + 2 * kV <= n; i += 2 * kV) {
    q0 += k.at(p + i, pos(w, i));
    q1 += k.at(p + i + kV, pos(w, i + kV));
  }
  if (i + kV <= n) {
    q0 += k.at(p + i, pos(w, i));
    i += kV;
  }
  float pb[kV], wb[kV], xb[kV];
  if (i < n) {
    load_tail(pb, p + i, n - i, 0.0f);
    load_tail(wb, pos(w, i), n - i, 0.0f);
    load_tail(xb, x + i, n - i, 0.0f);
    q1 += keep_lanes(k.at(pb, w ? wb : nullptr), n - i);
  }
  const vf vQ = splat(hsum(q0 + q1)), vl = splat(lse), vlo = splat(lse_lo), vg = splat(g);
  auto step = [&](const float* xj, const float* pj, const float* wj) __attribute__((always_inline)) {
    return vg * (vQ * exp8((load(xj) - vl) - vlo) - k.at(pj, wj));
  };
  auto f = [&](int64_t j) __attribute__((always_inline)) { return step(x + j, p + j, pos(w, j)); };
  if (stream) write_steps<true>(gi, 0, full, f);
  else write_steps<false>(gi, 0, full, f);
  if (full < n) {
    float gb[kV];
    store(gb, step(xb, pb, w ? wb : nullptr));
    for (int64_t j = 0; j < n - full; ++j) gi[full + j] = gb[j];
  }
}

}  // namespace

float cross_entropy_weighted_row_f32_vec(const float* x, const float* w, const float* p, int64_t n, float mx,
                                         float log_sum, float a, float b, float* q_sum) {
  return weighted_row(x, w, p, n, mx, log_sum, a, b, q_sum);
}

void cross_entropy_prob_grad_row_f32_vec(const float* x, const float* p, const float* w, float* gi, int64_t n,
                                         float lse, float lse_lo, float g, float a, float b, bool stream) {
  prob_grad_row(x, p, w, gi, n, lse, lse_lo, g, a, b, stream);
}

}  // namespace tl::native
