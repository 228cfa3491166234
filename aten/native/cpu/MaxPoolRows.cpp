// The max pools' forward by rows (MaxPoolRows.h).
//
// PyTorch's CPU loop scans a window in row-major order and takes an element when `v > best || isnan(v)`,
// starting from -inf (the type's lowest for integers) with the window's first position. Its result is
// therefore a pure function of the window: the last NaN in scan order if there is one, else the maximum
// at its first position in scan order (an all -inf / all-lowest window keeps its first position too).
// Positions in a plane grow in scan order, so that is the best element under the total order
//   NaN > non-NaN;  two NaNs: the larger position;  two numbers: the larger value, then the smaller position
// and the best of a window can be taken in any grouping. Here, per output row: the vertical pass reduces
// the window's input rows (in scan order, PyTorch's own rule) into a row of (value, position) per input
// column, with vectors along the columns; the horizontal pass then takes, for each output, the best of its
// columns under the order above, with vectors along the outputs. Columns in the padding are a sentinel
// (lowest value, largest position) that every real element beats, so padding never wins.
#include "aten/native/cpu/MaxPoolRows.h"

// Vector types pass between always-inline helpers only (no ABI crossing).
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "aten/core/Half.h"
#include "aten/core/Parallel.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native::pooling {
namespace {

// Element loads and stores, the 16-bit floats through Vectorize.h's branch-free conversions.
template <typename T>
TL_ALWAYS_INLINE opmath_t<T> ld(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, Half>) return vec::half_to_float(p[i].x);
  else if constexpr (std::is_same_v<T, BFloat16>) return vec::bfloat16_to_float(p[i].x);
  else return p[i];
}
template <typename T>
TL_ALWAYS_INLINE T st(opmath_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) return Half(vec::float_to_half(v), Half::from_bits_t{});
  else if constexpr (std::is_same_v<T, BFloat16>) return BFloat16(vec::float_to_bfloat16(v), BFloat16::from_bits_t{});
  else return v;
}

// Positions are 64-bit for 8-byte values (lanes of one width), 32-bit otherwise (the plane is checked to fit).
template <typename T>
using key_of = std::conditional_t<sizeof(opmath_t<T>) == 8, int64_t, int32_t>;

// 32-byte vectors of keys (8 or 4 lanes) and as many lanes of values and masks.
template <typename T>
struct Lanes {
  using A = opmath_t<T>;
  using K = key_of<T>;
  static constexpr int L = 32 / sizeof(K);
  using SA = std::conditional_t<sizeof(A) == 1, int8_t,
             std::conditional_t<sizeof(A) == 2, int16_t, std::conditional_t<sizeof(A) == 4, int32_t, int64_t>>>;
  typedef A VA __attribute__((vector_size(sizeof(A) * L)));
  typedef SA MA __attribute__((vector_size(sizeof(A) * L)));  // a comparison of VAs
  typedef K VK __attribute__((vector_size(sizeof(K) * L)));
  typedef int64_t VI __attribute__((vector_size(sizeof(int64_t) * L)));

  static constexpr bool has_nan = std::numeric_limits<A>::has_quiet_NaN;

  static TL_ALWAYS_INLINE VK to_key_mask(MA m) {
    if constexpr (sizeof(A) == sizeof(K)) return reinterpret_cast<VK&>(m);
    else return __builtin_convertvector(m, VK);
  }
  static TL_ALWAYS_INLINE MA to_value_mask(VK m) {
    if constexpr (sizeof(A) == sizeof(K)) return reinterpret_cast<MA&>(m);
    else return __builtin_convertvector(m, MA);
  }
  static TL_ALWAYS_INLINE VA load(const A* p) {
    VA v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static TL_ALWAYS_INLINE VK loadk(const K* p) {
    VK v = {};
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // L input elements as values (a copy for most types; the 16-bit floats convert lane by lane).
  static TL_ALWAYS_INLINE VA load_input(const T* p) {
    if constexpr (std::is_same_v<T, A>) {
      return load(p);
    } else {
      VA v = {};
      for (int l = 0; l < L; ++l) v[l] = ld(p, l);
      return v;
    }
  }
  static TL_ALWAYS_INLINE VK iota() {
    VK v = {};
    for (int l = 0; l < L; ++l) v[l] = K(l);
    return v;
  }
};

// One output row's vertical pass: for each column iw in [0, W), the best of rows[0..nrows) at that
// column in PyTorch's scan rule, into v[iw], f[iw] (f: the position base[r] + iw of the winner).
template <typename T>
TL_ALWAYS_INLINE void vertical(const T* const* rows, const key_of<T>* base, int nrows, int64_t W, opmath_t<T>* v,
                               key_of<T>* f) {
  using X = Lanes<T>;
  using A = typename X::A;
  using K = typename X::K;
  constexpr int L = X::L;
  const typename X::VK lane = X::iota();
  int64_t iw = 0;
  for (; iw + L <= W; iw += L) {
    typename X::VA best = X::load_input(rows[0] + iw);
    typename X::VK pos = lane + (base[0] + K(iw));
    for (int r = 1; r < nrows; ++r) {
      const typename X::VA x = X::load_input(rows[r] + iw);
      typename X::MA take = x > best;
      if constexpr (X::has_nan) take |= x != x;
      best = take ? x : best;
      pos = X::to_key_mask(take) ? lane + (base[r] + K(iw)) : pos;
    }
    std::memcpy(v + iw, &best, sizeof best);
    std::memcpy(f + iw, &pos, sizeof pos);
  }
  for (; iw < W; ++iw) {
    A best = ld(rows[0], iw);
    K pos = base[0] + K(iw);
    for (int r = 1; r < nrows; ++r) {
      const A x = ld(rows[r], iw);
      bool take = x > best;
      if constexpr (X::has_nan) take = take | (x != x);
      best = take ? x : best;
      pos = take ? base[r] + K(iw) : pos;
    }
    v[iw] = best;
    f[iw] = pos;
  }
}

// L values v[o * S + off] (S = 0: the run-time stride s); stride 2 as two loads and an even-lane shuffle.
template <typename T, int S>
TL_ALWAYS_INLINE typename Lanes<T>::VA strided(const opmath_t<T>* v, int64_t s) {
  using X = Lanes<T>;
  if constexpr (S == 1) {
    return X::load(v);
  } else if constexpr (S == 2) {
    const typename X::VA a = X::load(v), b = X::load(v + X::L);
    typename X::MA even = {};
    for (int l = 0; l < X::L; ++l) even[l] = 2 * l;
    return __builtin_shuffle(a, b, even);
  } else {
    typename X::VA r = {};
    for (int l = 0; l < X::L; ++l) r[l] = v[l * s];
    return r;
  }
}
template <typename T, int S>
TL_ALWAYS_INLINE typename Lanes<T>::VK strided_keys(const key_of<T>* f, int64_t s) {
  using X = Lanes<T>;
  if constexpr (S == 1) {
    return X::loadk(f);
  } else if constexpr (S == 2) {
    const typename X::VK a = X::loadk(f), b = X::loadk(f + X::L);
    typename X::VK even = {};
    for (int l = 0; l < X::L; ++l) even[l] = 2 * l;
    return __builtin_shuffle(a, b, even);
  } else {
    typename X::VK r = {};
    for (int l = 0; l < X::L; ++l) r[l] = f[l * s];
    return r;
  }
}

// One output row's horizontal pass over the padded column row (cv, cf: column iw at iw + p): output ow
// is the best of columns ow * s + j * d, j < k, under the total order of the file comment. cv/cf hold
// sentinels far enough to the right for the last vector of outputs.
template <typename T, int S>
TL_ALWAYS_INLINE void horizontal(const opmath_t<T>* cv, const key_of<T>* cf, int64_t OW, int64_t k, int64_t s,
                                 int64_t d, T* out, int64_t* ind) {
  using X = Lanes<T>;
  constexpr int L = X::L;
  const int64_t step = S == 0 ? s : S;
  for (int64_t ow = 0; ow < OW; ow += L) {
    const int64_t at = ow * step;
    typename X::VA best = strided<T, S>(cv + at, step);
    typename X::VK pos = strided_keys<T, S>(cf + at, step);
    for (int64_t j = 1; j < k; ++j) {
      const typename X::VA x = strided<T, S>(cv + at + j * d, step);
      const typename X::VK q = strided_keys<T, S>(cf + at + j * d, step);
      const typename X::VK earlier = q < pos;
      typename X::VK take = X::to_key_mask(x > best) | (X::to_key_mask(x == best) & earlier);
      if constexpr (X::has_nan) {
        const typename X::VK nan_x = X::to_key_mask(x != x), nan_best = X::to_key_mask(best != best);
        take = (nan_x & (~nan_best | (q > pos))) | (~nan_best & take);
      }
      best = X::to_value_mask(take) ? x : best;
      pos = take ? q : pos;
    }
    const typename X::VI wide = __builtin_convertvector(pos, typename X::VI);
    if (ow + L <= OW) {
      if constexpr (std::is_same_v<T, typename X::A>) {
        std::memcpy(out + ow, &best, sizeof best);
      } else {
        for (int l = 0; l < L; ++l) out[ow + l] = st<T>(best[l]);
      }
      std::memcpy(ind + ow, &wide, sizeof wide);
    } else {
      for (int64_t l = 0; l < OW - ow; ++l) {
        out[ow + l] = st<T>(best[l]);
        ind[ow + l] = wide[l];
      }
    }
  }
}

// The first position and the end of window o along a dim (PyTorch's: the start moved in by dilation steps
// until inside the input, the end clipped to it).
struct Range {
  int64_t begin, end;
};
inline Range window_range(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  int64_t b = o * s - p;
  const int64_t e = std::min(b + (k - 1) * d + 1, in);
  if (b < 0) b += (-b + d - 1) / d * d;
  return {b, e};
}

// Planes [b, e): the loops of one thread (the function an ISA clone is made of; parallel_for's lambda is not).
template <typename T, int S>
TL_TARGET_CLONES void pool_range(const T* in, T* out, int64_t* ind, int64_t b, int64_t e, Dims3 I, Dims3 O, Dims3 k,
                                 Dims3 s, Dims3 p, Dims3 d) {
  using X = Lanes<T>;
  using A = typename X::A;
  using K = typename X::K;
  constexpr int L = X::L;
  const int64_t in_plane = I[0] * I[1] * I[2], out_plane = O[0] * O[1] * O[2];
  const int64_t W = I[2], OW = O[2];
  // The padded column row: p[2] sentinels, W columns, then sentinels up to the furthest read of the last
  // vector of outputs (a stride-2 read loads 2L lanes).
  const int64_t len = p[2] + std::max<int64_t>(W, (OW + L) * s[2] + (k[2] - 1) * d[2] + 2 * L) + 2 * L;
  const A lowest = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                         : std::numeric_limits<A>::lowest();
  std::vector<A> cv(static_cast<size_t>(len), lowest);
  std::vector<K> cf(static_cast<size_t>(len), std::numeric_limits<K>::max());
  std::vector<const T*> rows(static_cast<size_t>(k[0] * k[1]));
  std::vector<K> base(static_cast<size_t>(k[0] * k[1]));
  for (int64_t plane = b; plane < e; ++plane) {
    const T* ip = in + plane * in_plane;
    T* op = out + plane * out_plane;
    int64_t* xp = ind + plane * out_plane;
    for (int64_t od = 0; od < O[0]; ++od) {
      const Range rd = window_range(od, I[0], k[0], s[0], p[0], d[0]);
      for (int64_t oh = 0; oh < O[1]; ++oh, op += OW, xp += OW) {
        const Range rh = window_range(oh, I[1], k[1], s[1], p[1], d[1]);
        int nrows = 0;
        for (int64_t id = rd.begin; id < rd.end; id += d[0])
          for (int64_t ih = rh.begin; ih < rh.end; ih += d[1]) {
            const int64_t row = (id * I[1] + ih) * W;
            rows[nrows] = ip + row;
            base[nrows++] = K(row);
          }
        vertical<T>(rows.data(), base.data(), nrows, W, cv.data() + p[2], cf.data() + p[2]);
        horizontal<T, S>(cv.data(), cf.data(), OW, k[2], s[2], d[2], op, xp);
      }
    }
  }
}

template <typename T, int S>
void pool_planes(const T* in, T* out, int64_t* ind, int64_t planes, const Dims3& I, const Dims3& O, const Dims3& k,
                 const Dims3& s, const Dims3& p, const Dims3& d) {
  const double work = static_cast<double>(O[0] * O[1] * O[2]) * static_cast<double>(k[0] * k[1] * k[2]) + 1;
  parallel_for(0, planes, std::max<int64_t>(1, static_cast<int64_t>(kGrainSize / work)), [&](int64_t b, int64_t e) {
    pool_range<T, S>(in, out, ind, b, e, I, O, k, s, p, d);
  });
}

// Whether every window along a dim holds an element of the input (only dilation can make one that does not).
bool windows_nonempty(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  if (d == 1) return true;
  for (int64_t o = 0; o < out; ++o) {
    const Range r = window_range(o, in, k, s, p, d);
    if (r.begin >= r.end) return false;
  }
  return true;
}

template <typename T>
bool run(const void* in, void* out, int64_t* ind, int64_t planes, const Dims3& I, const Dims3& O, const Dims3& k,
         const Dims3& s, const Dims3& p, const Dims3& d) {
  if constexpr (sizeof(key_of<T>) == 4) {
    if (I[0] * I[1] * I[2] >= std::numeric_limits<int32_t>::max()) return false;
  }
  const T* src = static_cast<const T*>(in);
  T* dst = static_cast<T*>(out);
  if (s[2] == 1) pool_planes<T, 1>(src, dst, ind, planes, I, O, k, s, p, d);
  else if (s[2] == 2) pool_planes<T, 2>(src, dst, ind, planes, I, O, k, s, p, d);
  else pool_planes<T, 0>(src, dst, ind, planes, I, O, k, s, p, d);
  return true;
}

// ---- channels-last input: (N, H, W, C) memory, vectors along C

// Output row (n, oh) of a channels-last input: PyTorch's own scan (start at lowest and the window's first
// position, take `v > best || isnan(v)`), L channels at a time, into row-major [OW][C] buffers; then written
// out transposed into the contiguous (N, C, OH, OW) results.
template <typename T>
TL_TARGET_CLONES void channels_last_rows(const T* in, T* out, int64_t* ind, int64_t b, int64_t e, int64_t C, Dims3 I,
                                         Dims3 O, Dims3 k, Dims3 s, Dims3 p, Dims3 d) {
  using X = Lanes<T>;
  using A = typename X::A;
  using K = typename X::K;
  constexpr int L = X::L;
  const int64_t H = I[1], W = I[2], OH = O[1], OW = O[2];
  const A lowest = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                         : std::numeric_limits<A>::lowest();
  // Up to R output rows of one sample at a time (buffers of up to ~256 KiB, in L2), so that each (n, c) plane
  // gets R * OW contiguous results from the transposed write instead of OW.
  const int64_t R = std::max<int64_t>(1, (int64_t(256) << 10) / std::max<int64_t>(1, OW * C * int64_t(sizeof(A) + sizeof(K))));
  std::vector<A> bv(static_cast<size_t>(R * OW * C));
  std::vector<K> bf(static_cast<size_t>(R * OW * C));
  for (int64_t row0 = b; row0 < e;) {
    const int64_t n = row0 / OH, oh0 = row0 % OH;
    const int64_t rows = std::min({R, e - row0, OH - oh0});
    const T* plane = in + n * H * W * C;
    for (int64_t r = 0; r < rows; ++r) {
      const Range rh = window_range(oh0 + r, H, k[1], s[1], p[1], d[1]);
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Range rw = window_range(ow, W, k[2], s[2], p[2], d[2]);
        const K first = K(rh.begin * W + rw.begin);
        A* ov = bv.data() + (r * OW + ow) * C;
        K* of = bf.data() + (r * OW + ow) * C;
        int64_t c = 0;
        for (; c + L <= C; c += L) {
          typename X::VA best = typename X::VA{} + lowest;
          typename X::VK pos = typename X::VK{} + first;
          for (int64_t ih = rh.begin; ih < rh.end; ih += d[1])
            for (int64_t iw = rw.begin; iw < rw.end; iw += d[2]) {
              const typename X::VA x = X::load_input(plane + (ih * W + iw) * C + c);
              typename X::MA take = x > best;
              if constexpr (X::has_nan) take |= x != x;
              best = take ? x : best;
              pos = X::to_key_mask(take) ? typename X::VK{} + K(ih * W + iw) : pos;
            }
          std::memcpy(ov + c, &best, sizeof best);
          std::memcpy(of + c, &pos, sizeof pos);
        }
        for (; c < C; ++c) {
          A best = lowest;
          K pos = first;
          for (int64_t ih = rh.begin; ih < rh.end; ih += d[1])
            for (int64_t iw = rw.begin; iw < rw.end; iw += d[2]) {
              const A x = ld(plane, (ih * W + iw) * C + c);
              bool take = x > best;
              if constexpr (X::has_nan) take = take | (x != x);
              best = take ? x : best;
              pos = take ? K(ih * W + iw) : pos;
            }
          ov[c] = best;
          of[c] = pos;
        }
      }
    }
    // Transposed out in tiles of 8 channels x 64 positions (the tile's buffer lines stay in L1 while each
    // channel gets a run of 64 contiguous results).
    const int64_t m = rows * OW;
    for (int64_t c0 = 0; c0 < C; c0 += 8)
      for (int64_t j0 = 0; j0 < m; j0 += 64) {
        const int64_t c1 = std::min(C, c0 + 8), j1 = std::min(m, j0 + 64);
        for (int64_t c = c0; c < c1; ++c) {
          T* o = out + ((n * C + c) * OH + oh0) * OW;
          int64_t* x = ind + ((n * C + c) * OH + oh0) * OW;
          for (int64_t j = j0; j < j1; ++j) {
            o[j] = st<T>(bv[j * C + c]);
            x[j] = bf[j * C + c];
          }
        }
      }
    row0 += rows;
  }
}

template <typename T>
bool run_channels_last(const void* in, void* out, int64_t* ind, int64_t N, int64_t C, const Dims3& I, const Dims3& O,
                       const Dims3& k, const Dims3& s, const Dims3& p, const Dims3& d) {
  if constexpr (sizeof(key_of<T>) == 4) {
    if (I[1] * I[2] >= std::numeric_limits<int32_t>::max()) return false;
  }
  const double work = static_cast<double>(O[2] * C) * static_cast<double>(k[1] * k[2]) + 1;
  parallel_for(0, N * O[1], std::max<int64_t>(1, static_cast<int64_t>(kGrainSize / work)), [&](int64_t b, int64_t e) {
    channels_last_rows<T>(static_cast<const T*>(in), static_cast<T*>(out), ind, b, e, C, I, O, k, s, p, d);
  });
  return true;
}

}  // namespace

bool max_pool_rows(ScalarType dtype, const void* in, void* out, int64_t* indices, int64_t planes, const Dims3& I,
                   const Dims3& O, const Dims3& k, const Dims3& s, const Dims3& p, const Dims3& d) {
  for (int i = 0; i < 3; ++i)
    if (!windows_nonempty(O[i], I[i], k[i], s[i], p[i], d[i])) return false;
  // A window's rows are listed, and the column row is padded by the kernel's width: absurd kernels (a
  // kernel far wider than the input, which a large padding allows) go the scalar way.
  if (k[0] > (1 << 12) || k[1] > (1 << 12) || k[0] * k[1] > (1 << 16)) return false;
  if (k[2] > (1 << 20) || d[2] > (1 << 20) || (k[2] - 1) * d[2] > 4 * I[2] + 4096) return false;
  // The column row reaches (OW + 2L) strides to the right of its start, so a stride far larger than the row (a
  // valid call: `max_pool1d(x, 1, stride=2**33)`) would allocate gigabytes, inside the parallel region where
  // std::bad_alloc cannot be raised as an error: such strides go the scalar way too (in double: no overflow).
  if (static_cast<double>(O[2] + 16) * static_cast<double>(s[2]) > 4.0 * static_cast<double>(I[2] + 2 * p[2]) + 4096.0)
    return false;
  switch (dtype) {
    case ScalarType::Float32: return run<float>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Float64: return run<double>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Float16: return run<Half>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::BFloat16: return run<BFloat16>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Int8: return run<int8_t>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::UInt8: return run<uint8_t>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Int16: return run<int16_t>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Int32: return run<int32_t>(in, out, indices, planes, I, O, k, s, p, d);
    case ScalarType::Int64: return run<int64_t>(in, out, indices, planes, I, O, k, s, p, d);
    default: return false;
  }
}

bool max_pool_channels_last(ScalarType dtype, const void* in, void* out, int64_t* indices, int64_t N, int64_t C,
                            const Dims3& I, const Dims3& O, const Dims3& k, const Dims3& s, const Dims3& p,
                            const Dims3& d) {
  switch (dtype) {
    case ScalarType::Float32: return run_channels_last<float>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Float64: return run_channels_last<double>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Float16: return run_channels_last<Half>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::BFloat16: return run_channels_last<BFloat16>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Int8: return run_channels_last<int8_t>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::UInt8: return run_channels_last<uint8_t>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Int16: return run_channels_last<int16_t>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Int32: return run_channels_last<int32_t>(in, out, indices, N, C, I, O, k, s, p, d);
    case ScalarType::Int64: return run_channels_last<int64_t>(in, out, indices, N, C, I, O, k, s, p, d);
    default: return false;
  }
}

}  // namespace tl::native::pooling
