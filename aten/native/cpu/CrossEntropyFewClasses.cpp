// The few-class K-dimensional cross_entropy kernels (CrossEntropyFewClasses.h). One step = 8 neighbouring positions
// in GCC vector types (one AVX2 register of floats); both kernels are compiled once per class count (the C class
// vectors of a step stay in registers) and per ISA (TL_TARGET_CLONES). A block's last, partial step goes through
// small local buffers (the positions past the block are neither read nor written).
#include "aten/native/cpu/CrossEntropyFewClasses.h"

// The vector helpers are always inlined into the per-ISA clones, so the baseline ABI of their vector arguments (which
// GCC warns about) never applies. (A cast between two vector types of one size reinterprets the bits.)
#pragma GCC diagnostic ignored "-Wpsabi"

#include <cstring>
#include <limits>

#include "aten/native/cpu/ExpVec8.h"
#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES, TL_ALWAYS_INLINE

namespace tl::native {

namespace {

constexpr int kL = 8;  // positions per step
// 32-byte vectors only: GCC lowers wider ones on AVX2 through the stack. A step's doubles are two halves (lo: its
// positions 0-3, hi: 4-7).
using vec8::vf;  // 8 floats
typedef float vf4 __attribute__((vector_size(16)));
using vec8::vi;
typedef double vd __attribute__((vector_size(32)));
typedef int64_t vl __attribute__((vector_size(32)));
struct D8 {
  vd lo, hi;
};

template <typename V, typename E>
TL_ALWAYS_INLINE V load(const E* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V, typename E>
TL_ALWAYS_INLINE void store(E* p, V v) {
  std::memcpy(p, &v, sizeof v);
}
using vec8::splat;
TL_ALWAYS_INLINE D8 to_d(vf v) {
  return {__builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3), vd),
          __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7), vd)};
}
TL_ALWAYS_INLINE vf to_f(const D8& v) {
  const vf4 lo = __builtin_convertvector(v.lo, vf4), hi = __builtin_convertvector(v.hi, vf4);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
TL_ALWAYS_INLINE D8 operator+(const D8& a, const D8& b) { return {a.lo + b.lo, a.hi + b.hi}; }
// 8 int64 (two vectors) as 8 int32 lanes: their low halves (little endian: the even 32-bit lanes).
TL_ALWAYS_INLINE vi narrow(vl lo, vl hi) {
  return __builtin_shufflevector((vi)lo, (vi)hi, 0, 2, 4, 6, 8, 10, 12, 14);
}

// exp in float lanes: ExpVec8.h's (0.91 ulp; both clamps: the backward's x - lse may be slightly above 0).
TL_ALWAYS_INLINE vf vexp(vf x) { return vec8::exp8<true>(x); }

// log of a sum of exps, in double lanes: x in [1, C] (the max's own term is exp(0) = 1) or NaN, which stays NaN.
// x = 2^e * m with m in [sqrt(1/2), sqrt(2)] (split on the float's bits), log(m) = 2 atanh(s), s = (m - 1) / (m + 1),
// |s| < 0.172, by its series to s^13 (truncation below 5e-11 relative): rounded to float, the correctly rounded log
// but for ties within 5e-11, as the column blocks' double-lane log.
TL_ALWAYS_INLINE vd log_half(vd m, vd e) {
  const vd f = m - 1.0;
  const vd s = f / (f + 2.0);
  const vd z = s * s;
  vd p = vd{} + 1.0 / 13;
  p = p * z + 1.0 / 11;
  p = p * z + 1.0 / 9;
  p = p * z + 1.0 / 7;
  p = p * z + 1.0 / 5;
  p = p * z + 1.0 / 3;
  const vd s2 = s + s;
  return e * 0.6931471805599453 + (s2 * z * p + s2);
}
TL_ALWAYS_INLINE vf log_of_sum(vf x) {
  const vi b = (vi)x;
  vi e = (b >> 23) - 127;
  const vi mb = (b & 0x7fffff) | 0x3f800000;
  vf m = (vf)mb;
  const vi big = m > splat(1.41421356f);
  m = big ? m * splat(0.5f) : m;
  const vf ef = __builtin_convertvector(big ? e + 1 : e, vf);  // exact: |e| < 2^8
  const D8 md = to_d(m), ed = to_d(ef);
  const vf res = to_f(D8{log_half(md.lo, ed.lo), log_half(md.hi, ed.hi)});
  return x == x ? res : x;
}

// The call's constants.
template <int C>
struct FewConsts {
  float wc[C];         // class weights (1 without)
  int64_t ignore;
  double one_s, sc;    // 1 - s and s / C
  bool smooth;
};

// One forward step: xs[c * ld + j] is class c of position j < kL, ts[j] its target. Stores lse (kL doubles) and, with
// out, the loss terms rounded to float; returns the loss terms (0 for ignored positions).
template <int C>
TL_ALWAYS_INLINE D8 forward_step(const FewConsts<C>& k, const float* xs, int64_t ld, const int64_t* ts, double* lse,
                                 float* out) {
  vf xv[C];
  for (int c = 0; c < C; ++c) xv[c] = load<vf>(xs + c * ld);
  // The max ignores NaN (`v > m ? v : m`), as the rows' max instruction; a NaN then makes the sum NaN.
  vf mx = splat(-std::numeric_limits<float>::infinity());
  for (int c = 0; c < C; ++c) mx = xv[c] > mx ? xv[c] : mx;
  // Summed class by class in float, as the column blocks and the AVX-512 rows.
  vf se = vf{};
  for (int c = 0; c < C; ++c) se += vexp(xv[c] - mx);
  const vf ls = log_of_sum(se);
  const D8 l = to_d(mx) + to_d(ls);
  store(lse, l.lo);
  store(lse + 4, l.hi);
  // The target's logit and weight by compare-and-select (an ignored position keeps class 0's, dropped below).
  const vl t_lo = load<vl>(ts), t_hi = load<vl>(ts + 4);
  const vl ig_lo = t_lo == k.ignore, ig_hi = t_hi == k.ignore;
  const vi t32 = narrow(t_lo, t_hi);
  vf xt = xv[0], aw = splat(k.wc[0]);
  for (int c = 1; c < C; ++c) {
    const vi is = t32 == c;
    xt = is ? xv[c] : xt;
    aw = is ? splat(k.wc[c]) : aw;
  }
  // nll_loss's term in float (-log_softmax = log_sum - (x - max), rounded as log_softmax rounds it), then in double
  // the (1 - s) share and s / C times sum_c w_c * -log_softmax_c (summed in float).
  D8 v = to_d(aw * (ls - (xt - mx)));
  v.lo *= k.one_s;
  v.hi *= k.one_s;
  if (k.smooth) {
    vf acc = vf{};
    for (int c = 0; c < C; ++c) acc += k.wc[c] * (ls - (xv[c] - mx));
    const D8 ad = to_d(acc);
    v.lo += k.sc * ad.lo;
    v.hi += k.sc * ad.hi;
  }
  v.lo = ig_lo ? vd{} : v.lo;
  v.hi = ig_hi ? vd{} : v.hi;
  if (out) store(out, to_f(v));
  return v;
}

template <int C>
TL_TARGET_CLONES double few_forward(const CeFewArgs& a, const float* x, int64_t w, const int64_t* t, double* lse,
                                    float* out) {
  const int64_t S = a.stride;
  FewConsts<C> k;
  for (int c = 0; c < C; ++c) k.wc[c] = a.weight ? a.weight[c] : 1.0f;
  k.ignore = a.ignore_index;
  k.one_s = 1.0 - a.smoothing;
  k.sc = a.smoothing / C;
  k.smooth = a.smoothing > 0;
  D8 sum{vd{}, vd{}};
  int64_t j = 0;
  for (; j + kL <= w; j += kL) sum = sum + forward_step(k, x + j, S, t + j, lse + j, out ? out + j : nullptr);
  if (j < w) {
    // The partial step through buffers: padding positions read 0 logits and ignore_index (their term is 0).
    const int64_t n = w - j;
    float xb[C * kL] = {}, ob[kL];
    int64_t tb[kL];
    double lb[kL];
    for (int64_t i = 0; i < kL; ++i) tb[i] = i < n ? t[j + i] : a.ignore_index;
    for (int c = 0; c < C; ++c)
      for (int64_t i = 0; i < n; ++i) xb[c * kL + i] = x[c * S + j + i];
    sum = sum + forward_step(k, xb, kL, tb, lb, out ? ob : nullptr);
    for (int64_t i = 0; i < n; ++i) {
      lse[j + i] = lb[i];
      if (out) out[j + i] = ob[i];
    }
  }
  // The kL lane sums in a fixed tree order.
  double l[kL];
  store(l, sum.lo);
  store(l + 4, sum.hi);
  for (int h = kL / 2; h >= 1; h /= 2)
    for (int i = 0; i < h; ++i) l[i] += l[i + h];
  return l[0];
}

// One backward step: gs[c * ld + j] = A * exp(x - lse) - B * w_c, less `at` at the target; an ignored position's
// column is 0. (The coefficients are the column blocks'.)
template <int C>
TL_ALWAYS_INLINE void backward_step(const FewConsts<C>& k, float wsum, const float* xs, float* gs, int64_t ld,
                                    const int64_t* ts, vf gv, const double* lse) {
  // lse = hi + lo, hi the float nearest it: x - hi is exact for the classes near the max.
  const D8 l{load<vd>(lse), load<vd>(lse + 4)};
  vf hi = to_f(l);
  const D8 hd = to_d(hi);
  vf lo = to_f(D8{l.lo - hd.lo, l.hi - hd.hi});
  // Beyond 2^23 a double lse = max + log_sum keeps log_sum to less than 2^-29 (at 1e30 it keeps none of it, and
  // every class of a position of equal logits got exp(0) = 1 instead of 1 / C): there the step recomputes max and
  // log_sum from x, and exp((x - max) - log_sum) is log_softmax's own rounding. (NaN and inf lse take this path too
  // and give NaN, as the plain one would.)
  const vl far = (l.lo > 8388608.0) | (l.lo < -8388608.0) | (l.hi > 8388608.0) | (l.hi < -8388608.0);
  bool any_far = false;
  for (int i = 0; i < 4; ++i) any_far |= far[i] != 0;
  if (__builtin_expect(any_far, 0)) {
    vf mx = splat(-std::numeric_limits<float>::infinity());
    for (int c = 0; c < C; ++c) {
      const vf v = load<vf>(xs + c * ld);
      mx = v > mx ? v : mx;
    }
    vf se = vf{};
    for (int c = 0; c < C; ++c) se += vexp(load<vf>(xs + c * ld) - mx);
    hi = mx;
    lo = log_of_sum(se);
  }
  const vl t_lo = load<vl>(ts), t_hi = load<vl>(ts + 4);
  const vi ignored = narrow(t_lo == k.ignore, t_hi == k.ignore);
  const vi t32 = narrow(t_lo, t_hi);
  vf aw = splat(k.wc[0]);
  for (int c = 1; c < C; ++c) aw = t32 == c ? splat(k.wc[c]) : aw;
  aw = ignored ? vf{} : aw;
  const float one_s = static_cast<float>(k.one_s), sc = static_cast<float>(k.sc);
  const vf A = gv * (one_s * aw + sc * wsum), B = gv * sc, at = gv * one_s * aw;
  for (int c = 0; c < C; ++c) {
    vf v = A * vexp((load<vf>(xs + c * ld) - hi) - lo) - B * k.wc[c];
    v = t32 == c ? v - at : v;
    store(gs + c * ld, ignored ? vf{} : v);
  }
}

template <int C>
TL_TARGET_CLONES void few_backward(const CeFewArgs& a, const float* x, float* gi, int64_t w, const int64_t* t,
                                   const float* g, float scale, float g0, const double* lse) {
  const int64_t S = a.stride;
  FewConsts<C> k;
  double ws = 0;
  for (int c = 0; c < C; ++c) {
    k.wc[c] = a.weight ? a.weight[c] : 1.0f;
    ws += static_cast<double>(k.wc[c]);
  }
  k.ignore = a.ignore_index;
  k.one_s = 1.0 - a.smoothing;
  k.sc = a.smoothing / C;
  const float wsum = static_cast<float>(ws);
  int64_t j = 0;
  for (; j + kL <= w; j += kL)
    backward_step(k, wsum, x + j, gi + j, S, t + j, g ? load<vf>(g + j) * scale : splat(g0), lse + j);
  if (j < w) {
    const int64_t n = w - j;
    float xb[C * kL] = {}, gb[C * kL], gv[kL] = {};
    int64_t tb[kL];
    double lb[kL] = {};
    for (int64_t i = 0; i < kL; ++i) tb[i] = i < n ? t[j + i] : a.ignore_index;
    for (int64_t i = 0; i < n; ++i) {
      lb[i] = lse[j + i];
      gv[i] = g ? g[j + i] * scale : g0;
    }
    for (int c = 0; c < C; ++c)
      for (int64_t i = 0; i < n; ++i) xb[c * kL + i] = x[c * S + j + i];
    backward_step(k, wsum, xb, gb, kL, tb, load<vf>(gv), lb);
    for (int c = 0; c < C; ++c)
      for (int64_t i = 0; i < n; ++i) gi[c * S + j + i] = gb[c * kL + i];
  }
}

// The kernels for C = 2..16 (the callers check the range).
template <int C = 2>
double forward_for(const CeFewArgs& a, const float* x, int64_t w, const int64_t* t, double* lse, float* out) {
  if constexpr (C < kCeFewMaxClasses)
    if (a.classes != C) return forward_for<C + 1>(a, x, w, t, lse, out);
  return few_forward<C>(a, x, w, t, lse, out);
}
template <int C = 2>
void backward_for(const CeFewArgs& a, const float* x, float* gi, int64_t w, const int64_t* t, const float* g,
                  float scale, float g0, const double* lse) {
  if constexpr (C < kCeFewMaxClasses)
    if (a.classes != C) return backward_for<C + 1>(a, x, gi, w, t, g, scale, g0, lse);
  few_backward<C>(a, x, gi, w, t, g, scale, g0, lse);
}

}  // namespace

double cross_entropy_few_forward(const CeFewArgs& a, const float* x, int64_t w, const int64_t* t, double* lse,
                                 float* out) {
  return forward_for(a, x, w, t, lse, out);
}

void cross_entropy_few_backward(const CeFewArgs& a, const float* x, float* gi, int64_t w, const int64_t* t,
                                const float* g, float scale, float g0, const double* lse) {
  backward_for(a, x, gi, w, t, g, scale, g0, lse);
}

}  // namespace tl::native
