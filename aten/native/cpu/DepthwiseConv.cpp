// The direct depthwise convolution (DepthwiseConv.h). Every pass is a correlation of one plane with a
// KH x KW kernel, computed from a zero-padded copy of the source plane (a few KB, in L1) so that the
// inner loops have no bounds tests:
//   forward         x plane            -> out plane (+ bias), per output channel
//   input gradient  go planes          -> gi plane: stride 1, the same correlation of grad_output with
//                                         the kernel flipped (padding d * (k - 1) - p; negative = crop);
//                                         other strides scatter-add grad_output into the padded layout
//   weight gradient go plane . shifted x plane, one dot product per tap
// The padded copy is in "phase" layout: padded column c is stored at phase c % sw, index c / sw, so
// the source columns one tap reads for consecutive output columns are consecutive for every stride.
// The loops run along the output row in GCC vector types (32 bytes: 8 floats / 4 doubles), four
// vectors at a time, with the taps of 1x3 / 3x3 kernels held in registers; they are compiled per ISA
// (TL_TARGET_CLONES). Work is split over (image, channel) planes, or for the weight gradient over
// (block of images, channel) so that each sum is taken in the same order for any thread count.
#include "aten/native/cpu/DepthwiseConv.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/native/cpu/Vectorize.h"

// The vector helpers' baseline ABI never applies: they are always inlined.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tl::native::depthwise {

namespace {

typedef float vf8 __attribute__((vector_size(32)));
typedef double vd4 __attribute__((vector_size(32)));
template <typename T>
struct VecOf;
template <>
struct VecOf<float> {
  using type = vf8;
};
template <>
struct VecOf<double> {
  using type = vd4;
};
template <typename T>
using Vec = typename VecOf<T>::type;
// Integer vectors of the same lanes, for masks.
typedef int32_t vi8 __attribute__((vector_size(32)));
typedef int64_t vl4 __attribute__((vector_size(32)));
template <typename T>
using VecMask = std::conditional_t<std::is_same_v<T, float>, vi8, vl4>;
template <typename T>
constexpr int64_t kLanes = 32 / sizeof(T);

template <typename T>
TL_ALWAYS_INLINE Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
TL_ALWAYS_INLINE void store(T* p, Vec<T> v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename T>
TL_ALWAYS_INLINE Vec<T> splat(T x) {
  return Vec<T>{} + x;
}
// The first n (< lanes) elements of p, the other lanes zero: a row's last, partial vector (reading
// past it could meet an inf of the next columns, and 0 * inf would poison a weight-gradient sum).
template <typename T>
TL_ALWAYS_INLINE void load_part(Vec<T>& v, const T* p, int64_t n) {
  T tmp[kLanes<T>] = {};
  std::memcpy(tmp, p, static_cast<size_t>(n) * sizeof(T));
  v = load(tmp);
}
template <typename T>
TL_ALWAYS_INLINE void store_part(T* p, Vec<T> v, int64_t n) {
  T tmp[kLanes<T>];
  store(tmp, v);
  std::memcpy(p, tmp, static_cast<size_t>(n) * sizeof(T));
}

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// One correlation: out[oh][ow] = sum over taps of k[kh][kw] * padded[oh * sh + kh * dh][ow * sw + kw * dw],
// where padded row r / column c is the source's (r - top, c - left), zero outside it.
struct Plane {
  int64_t src_h, src_w, top, left;
  int64_t out_h, out_w;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t rows, wq, rstride;  // the padded copy: rows x (sw phases of wq elements)
  std::vector<int64_t> off;   // per tap (kh-major): its offset in the padded copy

  Plane(int64_t src_h_, int64_t src_w_, int64_t top_, int64_t left_, int64_t out_h_, int64_t out_w_, int64_t kh_,
        int64_t kw_, int64_t sh_, int64_t sw_, int64_t dh_, int64_t dw_, int64_t lanes)
      : src_h(src_h_), src_w(src_w_), top(top_), left(left_), out_h(out_h_), out_w(out_w_), kh(kh_), kw(kw_),
        sh(sh_), sw(sw_), dh(dh_), dw(dw_) {
    rows = (out_h - 1) * sh + (kh - 1) * dh + 1;
    // Each phase holds every padded column a tap reads, and a row's last vector may read up to a
    // whole vector past the last output column.
    wq = (kw - 1) * dw / sw + round_up(out_w, lanes);
    rstride = sw * wq;
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) off.push_back(i * dh * rstride + (j * dw % sw) * wq + j * dw / sw);
  }
  int64_t taps() const { return kh * kw; }
  int64_t buffer_size() const { return rows * rstride; }
};

// Copies the source plane into the padded copy. Only the source's own positions are written: the
// padding is the same for every plane, so the buffer is zeroed once when allocated (the per-row fills
// and short memcpy calls of a full refill cost about a third of the forward's time).
template <typename T>
TL_TARGET_CLONES void fill_padded(const T* __restrict src, const Plane& g, T* __restrict buf) {
  constexpr int64_t L = kLanes<T>;
  const int64_t r0 = std::max<int64_t>(0, g.top), r1 = std::min(g.rows, g.top + g.src_h);
  for (int64_t r = r0; r < r1; ++r) {
    T* row = buf + r * g.rstride;
    const T* s = src + (r - g.top) * g.src_w;
    if (g.sw == 1) {
      const int64_t lo = std::clamp<int64_t>(g.left, 0, g.wq);
      const int64_t hi = std::max(lo, std::clamp<int64_t>(g.left + g.src_w, 0, g.wq));
      const T* from = s + (lo - g.left);
      T* to = row + lo;
      const int64_t n = hi - lo;
      int64_t j = 0;
      for (; j + L <= n; j += L) store(to + j, load(from + j));
      for (; j < n; ++j) to[j] = from[j];
      continue;
    }
    for (int64_t q = 0; q < g.sw; ++q) {
      // phase q holds source columns j * sw + q - left for j in [j0, j1)
      const int64_t j0 = std::max<int64_t>(0, (g.left - q + g.sw - 1) / g.sw);
      const int64_t j1 = std::min(g.wq, std::max(j0, (g.src_w + g.left - q + g.sw - 1) / g.sw));
      for (int64_t jj = j0; jj < j1; ++jj) row[q * g.wq + jj] = s[jj * g.sw + q - g.left];
    }
  }
}

// NR output rows x NV vectors of one correlation, each its own accumulator (a 3x3 kernel's 9 dependent
// FMAs per vector would otherwise wait on the FMA latency), the last vector holding `last` columns.
// KT > 0: the tap count known at compile time, the taps' broadcasts in wv; 0: any, broadcast from taps.
template <typename T, int KT, int NR, int NV>
TL_ALWAYS_INLINE void correlate_block(const T* b, int64_t step, const int64_t* off, const Vec<T>* wv, const T* taps,
                                      int64_t nt, T bias, bool accumulate, T* o, int64_t ldo, int64_t last) {
  using V = Vec<T>;
  constexpr int64_t L = kLanes<T>;
  V a[NR][NV];
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      a[r][v] = splat(bias);
      if (!accumulate) continue;
      if (v < NV - 1 || last == L) a[r][v] = load(o + r * ldo + v * L);
      else load_part(a[r][v], o + r * ldo + v * L, last);
    }
#pragma GCC unroll 16
  for (int64_t t = 0; t < (KT > 0 ? KT : nt); ++t) {
    V w;
    if constexpr (KT > 0) w = wv[t];
    else w = splat(taps[t]);
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const T* s = b + r * step + off[t];  // a partial last vector reads the copy's slack
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) a[r][v] += w * load(s + v * L);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (v < NV - 1 || last == L) store(o + r * ldo + v * L, a[r][v]);
      else store_part(o + r * ldo + v * L, a[r][v], last);
    }
}

// NR output rows (starting at b / o): blocks of 4 vectors, then one block of the 1 to 4 vectors left.
template <typename T, int KT, int NR>
TL_ALWAYS_INLINE void correlate_rows(const T* b, int64_t step, const int64_t* off, const Vec<T>* wv, const T* taps,
                                     int64_t nt, T bias, bool accumulate, T* o, int64_t OW) {
  constexpr int64_t L = kLanes<T>;
  int64_t ow = 0;
  for (; ow + 4 * L <= OW; ow += 4 * L)
    correlate_block<T, KT, NR, 4>(b + ow, step, off, wv, taps, nt, bias, accumulate, o + ow, OW, L);
  const int64_t rest = OW - ow;
  if (rest == 0) return;
  const int64_t nv = (rest + L - 1) / L, last = rest - (nv - 1) * L;
  b += ow;
  o += ow;
  switch (nv) {
    case 1: correlate_block<T, KT, NR, 1>(b, step, off, wv, taps, nt, bias, accumulate, o, OW, last); break;
    case 2: correlate_block<T, KT, NR, 2>(b, step, off, wv, taps, nt, bias, accumulate, o, OW, last); break;
    case 3: correlate_block<T, KT, NR, 3>(b, step, off, wv, taps, nt, bias, accumulate, o, OW, last); break;
    default: correlate_block<T, KT, NR, 4>(b, step, off, wv, taps, nt, bias, accumulate, o, OW, last);
  }
}

// out = (accumulate ? out : bias) + the correlation of the padded copy with `taps`, two rows at a time.
template <typename T, int KT>
TL_ALWAYS_INLINE void correlate_impl(const T* buf, const Plane& g, const T* taps, T bias, bool accumulate, T* out) {
  Vec<T> wv[KT > 0 ? KT : 1];
  if constexpr (KT > 0)
    for (int t = 0; t < KT; ++t) wv[t] = splat(taps[t]);
  const int64_t nt = g.taps(), OW = g.out_w, step = g.sh * g.rstride;
  const int64_t* off = g.off.data();
  int64_t oh = 0;
  for (; oh + 2 <= g.out_h; oh += 2)
    correlate_rows<T, KT, 2>(buf + oh * step, step, off, wv, taps, nt, bias, accumulate, out + oh * OW, OW);
  if (oh < g.out_h)
    correlate_rows<T, KT, 1>(buf + oh * step, step, off, wv, taps, nt, bias, accumulate, out + oh * OW, OW);
}

template <typename T>
TL_TARGET_CLONES void correlate(const T* buf, const Plane& g, const T* taps, T bias, bool accumulate, T* out) {
  switch (g.taps()) {
    case 9: correlate_impl<T, 9>(buf, g, taps, bias, accumulate, out); break;
    case 3: correlate_impl<T, 3>(buf, g, taps, bias, accumulate, out); break;
    default: correlate_impl<T, 0>(buf, g, taps, bias, accumulate, out);
  }
}

// Partial sums in float lanes are moved into the double sums after about this many products per lane.
constexpr int64_t kFlushPerLane = 128;

template <typename T>
TL_ALWAYS_INLINE double lane_sum(Vec<T> v) {
  double s = 0;
  for (int64_t i = 0; i < kLanes<T>; ++i) s += static_cast<double>(v[i]);
  return s;
}

// sums[t] += sum over the output plane of go[oh][ow] * padded[oh * sh + kh * dh][ow * sw + kw * dw].
// go's rows are ldg apart; when out_w is not a whole number of vectors they are padded with zeros to
// ldg = out_w rounded up (a copy), and the padded input's lanes past out_w are masked to zero too (an
// inf there, which the tap never reads, would make 0 * inf = NaN).
template <typename T, int KT>
TL_ALWAYS_INLINE void tap_dots_impl(const T* buf, const Plane& g, const T* go, int64_t ldg, double* sums) {
  using V = Vec<T>;
  using M = VecMask<T>;
  constexpr int64_t L = kLanes<T>;
  const int64_t OW = g.out_w, step = g.sh * g.rstride, full = OW / L * L, rest = OW - full;
  const int64_t flush_rows = std::max<int64_t>(1, kFlushPerLane * L / std::max<int64_t>(1, OW));
  const int64_t* off = g.off.data();
  M mask{};
  for (int64_t i = 0; i < L; ++i) mask[i] = i < rest ? -1 : 0;
  auto masked = [&](V v) { return reinterpret_cast<V>(reinterpret_cast<M>(v) & mask); };
  if constexpr (KT > 0) {
    V a[KT];
    for (int t = 0; t < KT; ++t) a[t] = V{};
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const T* b = buf + oh * step;
      const T* gr = go + oh * ldg;
      for (int64_t ow = 0; ow < full; ow += L) {
        const V gv = load(gr + ow);
#pragma GCC unroll 16
        for (int t = 0; t < KT; ++t) a[t] += gv * load(b + off[t] + ow);
      }
      if (rest) {
        const V gv = load(gr + full);
#pragma GCC unroll 16
        for (int t = 0; t < KT; ++t) a[t] += gv * masked(load(b + off[t] + full));
      }
      if ((oh + 1) % flush_rows == 0 || oh + 1 == g.out_h)
        for (int t = 0; t < KT; ++t) {
          sums[t] += lane_sum<T>(a[t]);
          a[t] = V{};
        }
    }
  } else {
    for (int64_t t = 0; t < g.taps(); ++t) {
      V a{};
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const T* b = buf + oh * step + off[t];
        const T* gr = go + oh * ldg;
        for (int64_t ow = 0; ow < full; ow += L) a += load(gr + ow) * load(b + ow);
        if (rest) a += load(gr + full) * masked(load(b + full));
        if ((oh + 1) % flush_rows == 0 || oh + 1 == g.out_h) {
          sums[t] += lane_sum<T>(a);
          a = V{};
        }
      }
    }
  }
}

template <typename T>
TL_TARGET_CLONES void tap_dots(const T* buf, const Plane& g, const T* go, int64_t ldg, double* sums) {
  switch (g.taps()) {
    case 9: tap_dots_impl<T, 9>(buf, g, go, ldg, sums); break;
    case 3: tap_dots_impl<T, 3>(buf, g, go, ldg, sums); break;
    default: tap_dots_impl<T, 0>(buf, g, go, ldg, sums);
  }
}

// padded[oh * sh + kh * dh][ow * sw + kw * dw] += k[kh][kw] * go[oh][ow] (the strided input gradient).
template <typename T>
TL_TARGET_CLONES void scatter_taps(const T* __restrict go, const T* __restrict taps, const Plane& g,
                                   T* __restrict buf) {
  const int64_t OW = g.out_w, step = g.sh * g.rstride;
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    const T* gr = go + oh * OW;
    for (int64_t t = 0; t < g.taps(); ++t) {
      T* __restrict d = buf + oh * step + g.off[t];
      const T w = taps[t];
      for (int64_t ow = 0; ow < OW; ++ow) d[ow] += w * gr[ow];
    }
  }
}

// The source plane (src_h x src_w) read back from the padded layout: what scatter_taps accumulated.
template <typename T>
void read_padded(const T* buf, const Plane& g, T* dst) {
  for (int64_t i = 0; i < g.src_h; ++i) {
    T* d = dst + i * g.src_w;
    const int64_t r = i + g.top;
    if (r >= g.rows) {  // below every window
      std::fill(d, d + g.src_w, T(0));
      continue;
    }
    const T* row = buf + r * g.rstride;
    // Phase by phase (no division per element): source column j = jj * sw + q - left.
    for (int64_t q = 0; q < g.sw; ++q) {
      const int64_t j0 = std::max<int64_t>(0, (g.left - q + g.sw - 1) / g.sw);
      for (int64_t jj = j0, j = jj * g.sw + q - g.left; j < g.src_w; ++jj, j += g.sw)
        d[j] = jj < g.wq ? row[q * g.wq + jj] : T(0);
    }
  }
}

// The forward problem's plane: the input padded by (ph, pw).
template <typename T>
Plane forward_plane(const Problem& p) {
  return Plane(p.H, p.W, p.ph, p.pw, p.OH, p.OW, p.KH, p.KW, p.sh, p.sw, p.dh, p.dw, kLanes<T>);
}

// Planes per parallel chunk: about kGrainSize multiply-adds at least.
int64_t plane_grain(const Problem& p) {
  const int64_t work = std::max<int64_t>(1, p.OH * p.OW * p.KH * p.KW * p.mult);
  return std::max<int64_t>(1, kGrainSize / work);
}

// The weight and bias gradients sum over blocks of this many images; the blocks' sums are added in order.
constexpr int64_t kImagesPerBlock = 8;

// One plane's sum in double (the bias gradient), compiled per ISA so the widened sum vectorizes.
template <typename T>
TL_TARGET_CLONES double plane_sum(const T* v, int64_t n) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(v[i]);
  return acc;
}

// The input gradient plane by plane. Stride 1: grad_output correlated with the flipped kernel, padded
// by d * (k - 1) - p. Other strides: grad_output scattered into the forward's padded layout, read back.
template <typename T>
struct InputGrad {
  const Problem& p;
  bool gather;
  Plane g;
  std::vector<T> taps;  // flipped for the gather

  InputGrad(const T* w, const Problem& p_)
      : p(p_), gather(p_.sh == 1 && p_.sw == 1),
        g(gather ? Plane(p.OH, p.OW, p.dh * (p.KH - 1) - p.ph, p.dw * (p.KW - 1) - p.pw, p.H, p.W, p.KH, p.KW, 1, 1,
                         p.dh, p.dw, kLanes<T>)
                 : forward_plane<T>(p)) {
    const int64_t KT = p.KH * p.KW, n = p.channels * p.mult * KT;
    taps.assign(w, w + n);
    if (gather)
      for (int64_t co = 0; co < p.channels * p.mult; ++co) std::reverse(taps.begin() + co * KT, taps.begin() + (co + 1) * KT);
  }

  // gi's plane i = (image, channel) from grad_output's planes i * mult + m; buf: g.buffer_size() elements.
  void plane(const T* go, int64_t i, T* gi, T* buf) const {
    const int64_t O = p.OH * p.OW, KT = p.KH * p.KW, c = i % p.channels;
    T* dst = gi + i * p.H * p.W;
    if (gather) {
      for (int64_t m = 0; m < p.mult; ++m) {
        fill_padded(go + (i * p.mult + m) * O, g, buf);
        correlate<T>(buf, g, taps.data() + (c * p.mult + m) * KT, T(0), m > 0, dst);
      }
      return;
    }
    std::fill(buf, buf + g.buffer_size(), T(0));
    for (int64_t m = 0; m < p.mult; ++m)
      scatter_taps<T>(go + (i * p.mult + m) * O, taps.data() + (c * p.mult + m) * KT, g, buf);
    read_padded(buf, g, dst);
  }
};

}  // namespace

template <typename T>
void forward(const T* x, const T* w, const T* bias, T* out, const Problem& p) {
  const Plane g = forward_plane<T>(p);
  const int64_t I = p.H * p.W, O = p.OH * p.OW, KT = p.KH * p.KW;
  parallel_for(0, p.batch * p.channels, plane_grain(p), [&](int64_t b, int64_t e) {
    std::vector<T> buf(static_cast<size_t>(g.buffer_size()));
    for (int64_t i = b; i < e; ++i) {
      fill_padded(x + i * I, g, buf.data());
      const int64_t c = i % p.channels;
      for (int64_t m = 0; m < p.mult; ++m) {
        const int64_t co = c * p.mult + m;
        correlate<T>(buf.data(), g, w + co * KT, bias ? bias[co] : T(0), false, out + (i * p.mult + m) * O);
      }
    }
  });
}

template <typename T>
void backward(const T* go, const T* x, const T* w, T* gi, T* gw, T* gb, const Problem& p) {
  const InputGrad<T> ig(w, p);
  if (!gw && !gb) {
    if (!gi) return;
    parallel_for(0, p.batch * p.channels, plane_grain(p), [&](int64_t b, int64_t e) {
      std::vector<T> buf(static_cast<size_t>(ig.g.buffer_size()));
      for (int64_t i = b; i < e; ++i) ig.plane(go, i, gi, buf.data());
    });
    return;
  }
  // One pass over (block of images, channel) units: each grad_output plane is read from memory once
  // and used, while in cache, by all three gradients.
  const Plane g = forward_plane<T>(p);
  const int64_t I = p.H * p.W, O = p.OH * p.OW, KT = p.KH * p.KW, C = p.channels, CO = C * p.mult;
  const int64_t per_unit = p.mult * (KT + 1);  // sums of one unit: per output channel, its taps and the bias
  const int64_t blocks = (p.batch + kImagesPerBlock - 1) / kImagesPerBlock;
  std::vector<double> partial(static_cast<size_t>(blocks * C * per_unit), 0.0);  // [block][c][m][tap or bias]
  const int64_t grain = std::max<int64_t>(1, plane_grain(p) / kImagesPerBlock);
  parallel_for(0, blocks * C, grain, [&](int64_t b, int64_t e) {
    std::vector<T> buf(static_cast<size_t>(g.buffer_size()));
    std::vector<T> gbuf(gi ? static_cast<size_t>(ig.g.buffer_size()) : 0);
    // grad_output planes whose rows are not whole vectors are copied with zero-padded rows (tap_dots)
    const int64_t ldg = round_up(p.OW, kLanes<T>);
    std::vector<T> gpad(gw && ldg != p.OW ? static_cast<size_t>(p.OH * ldg) : 0);
    for (int64_t u = b; u < e; ++u) {
      const int64_t blk = u / C, c = u % C;
      double* sums = partial.data() + u * per_unit;
      const int64_t n1 = std::min(p.batch, (blk + 1) * kImagesPerBlock);
      for (int64_t n = blk * kImagesPerBlock; n < n1; ++n) {
        const int64_t i = n * C + c;
        if (gw) fill_padded(x + i * I, g, buf.data());
        for (int64_t m = 0; m < p.mult; ++m) {
          const T* gop = go + (i * p.mult + m) * O;
          if (gw && gpad.empty()) {
            tap_dots<T>(buf.data(), g, gop, p.OW, sums + m * (KT + 1));
          } else if (gw) {
            for (int64_t oh = 0; oh < p.OH; ++oh) std::copy(gop + oh * p.OW, gop + (oh + 1) * p.OW, gpad.data() + oh * ldg);
            tap_dots<T>(buf.data(), g, gpad.data(), ldg, sums + m * (KT + 1));
          }
          if (gb) sums[m * (KT + 1) + KT] += plane_sum(gop, O);
        }
        if (gi) ig.plane(go, i, gi, gbuf.data());
      }
    }
  });
  for (int64_t co = 0; co < CO; ++co)
    for (int64_t t = 0; t <= KT; ++t) {
      double s = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) s += partial[static_cast<size_t>((blk * CO + co) * (KT + 1) + t)];
      if (t < KT && gw) gw[co * KT + t] = static_cast<T>(s);
      if (t == KT && gb) gb[co] = static_cast<T>(s);
    }
}

template void forward<float>(const float*, const float*, const float*, float*, const Problem&);
template void forward<double>(const double*, const double*, const double*, double*, const Problem&);
template void backward<float>(const float*, const float*, const float*, float*, float*, float*, const Problem&);
template void backward<double>(const double*, const double*, const double*, double*, double*, double*,
                               const Problem&);

}  // namespace tl::native::depthwise
