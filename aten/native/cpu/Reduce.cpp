// sum / mean over all or some dims, for any strides (transposed, sliced, expanded inputs).
//
// sum is the one reduction not written as an op struct on the reduction engine (ReduceEngine.h):
// it shares the engine's geometry (dims, walkers, overflow-safe chunk bounds) and output handling
// (OutputUtils.h), but accumulates with its own cascade for accuracy:
// floating sums use pairwise summation over contiguous runs (64 lanes, each carrying into a
// second level of lanes every 16 terms; leaves of 2048 elements, halving above), and a cascade
// (carry every 16 terms into the next level) across runs and across rows of a vertical
// reduction, so the error grows like O(log n): 1e5 x 0.1f gives 10000.001 like PyTorch.
// float16/bfloat16 accumulate in float32; integers and bool sum in int64 (two's complement
// wrap-around, computed in uint64 to stay defined), and an expanded (stride-0) reduced dim of an
// integer sum is a multiplication, so tensor(True).expand(2**31, 2**31).sum() is instant.
//
// Parallelism: work is split into a number of tasks that depends only on the shapes, so results
// are bit-identical whatever the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "aten/core/Exception.h"
#include "aten/native/cpu/Vectorize.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/OutputUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_real.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/ReduceEngine.h"
#include "aten/native/Resize.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/mean.h"
#include "generated/ops/sum.h"

namespace tl::native {

namespace {

// ------------------------------------------------------------------------------ element helpers

template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Value conversion between any two element types (16-bit floats go through float).
template <typename To, typename From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (is_reduced_v<From>) return convert<To>(static_cast<float>(x));
  else if constexpr (is_reduced_v<To>) return To(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, bool>) return x != From(0);
  else return static_cast<To>(x);
}

// Accumulation type for inputs of type T: float for 16-bit floats, the type itself for
// float/double, uint64 (wrap-around int64) for integers and bool.
template <typename T>
using acc_type_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>, uint64_t>;

template <typename acc_t, typename in_t>
inline acc_t load(const in_t* p) {
  if constexpr (std::is_same_v<acc_t, uint64_t>) return static_cast<uint64_t>(static_cast<int64_t>(*p));
  else return static_cast<acc_t>(*p);
}

// ------------------------------------------------------------------------------ 16-bit float loads

// float16 -> float32 for a contiguous run. Uses the F16C instructions when the CPU has them (the
// build targets baseline x86-64, so they are enabled for this function only), else Half's
// software conversion.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx,f16c"))) void half_to_float_f16c(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}
bool cpu_has_f16c() {
  static const bool has = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return has;
}
#endif

void half_to_float(const Half* src, float* dst, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_f16c()) return half_to_float_f16c(src, dst, n);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void bf16_to_float(const BFloat16* src, float* dst, int64_t n) {
  const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
  uint32_t* d = reinterpret_cast<uint32_t*>(dst);  // same bits as float: bf16 is float's top half
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<uint32_t>(s[i]) << 16;
}

// Converts a contiguous run of 16-bit floats to float.
template <typename T>
inline void reduced_to_float(const T* src, float* dst, int64_t n) {
  if constexpr (std::is_same_v<T, Half>) half_to_float(src, dst, n);
  else bf16_to_float(src, dst, n);
}

// ------------------------------------------------------------------------------ summation primitives

constexpr int64_t kLanes = 64;     // independent partial sums in a leaf (four AVX-512 vectors of float)
constexpr int64_t kLeaf = 2048;    // largest run summed by one set of lanes
constexpr int kCascadeFan = 16;    // terms per cascade level before carrying up
constexpr int kCascadeLevels = 9;  // 16^9 terms

// Contiguous leaves for the common types, compiled for AVX-512, AVX2 and baseline x86-64 and
// picked at load time (the build targets baseline x86-64). Same lanes and order as the generic
// leaf below, and additions only, so every version gives bit-identical results.
// Each lane adds at most kLaneRun terms before carrying into a second level of lanes, so no
// accumulator runs long: with equal terms (1e5 x 0.1f) long runs would round the same way each
// time and drift (PyTorch's cascade sum does the same).
constexpr int64_t kLaneRun = 16;
// Always inlined: GCC does not inline a baseline function into a clone compiled for another arch,
// and a call from the clones would run the baseline (SSE2) loop.
template <typename acc_t, typename in_t>
__attribute__((always_inline)) inline acc_t leaf_sum_impl(const in_t* p, int64_t n, int64_t s = 1) {  // n >= kLanes
  acc_t hi[kLanes] = {};
  acc_t acc[kLanes];
  int64_t i = 0;
  while (i + kLanes <= n) {
    for (int64_t j = 0; j < kLanes; ++j) acc[j] = 0;
    const int64_t end = std::min(n / kLanes * kLanes, i + kLanes * kLaneRun);
    if (s == 1) {
      for (; i < end; i += kLanes)
        for (int64_t j = 0; j < kLanes; ++j) acc[j] += load<acc_t>(p + i + j);
    } else {
      for (; i < end; i += kLanes)
        for (int64_t j = 0; j < kLanes; ++j) acc[j] += load<acc_t>(p + (i + j) * s);
    }
    for (int64_t j = 0; j < kLanes; ++j) hi[j] += acc[j];
  }
  for (int64_t w = kLanes / 2; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) hi[j] += hi[j + w];
  acc_t r = 0;
  for (; i < n; ++i) r += load<acc_t>(p + i * s);
  return hi[0] + r;
}
// The float and double leaves as leaf_sum_impl, lane for lane and add for add (bit-identical), written with
// 64-byte vector types: from the arrays above GCC kept the 64 lane accumulators in memory (every add a
// store-to-load round trip) and summed the lanes with 63 scalar memory adds, ~4x the time of the loads.
// The tree t[j] += t[j + w] (w = N/2, ..., 1) over the N lanes of v, in registers: the low half plus the high half
// is one step of the tree (lane j + lane j + w), so the same additions in the same order as the scalar loop it
// replaces, which went through a stack copy (a 64-byte store read back as 4-byte loads: ~10% of a leaf's time
// when the data come from the cache, two leaves per 3136-float plane of adaptive_avg_pool2d's (1, 1) mean).
template <int N, typename T, typename V>
__attribute__((always_inline)) inline T lane_tree(V v) {
  if constexpr (N == 2) {
    return v[0] + v[1];
  } else {
    typedef T H __attribute__((vector_size(N / 2 * sizeof(T))));
    H lo, hi;
    std::memcpy(&lo, &v, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return lane_tree<N / 2, T>(lo + hi);
  }
}
typedef float tl_f32x16 __attribute__((vector_size(64), aligned(64)));
typedef double tl_f64x8 __attribute__((vector_size(64), aligned(64)));
// 32-byte vectors for CPUs without AVX-512: GCC lowers a 64-byte vector type on AVX2 as pairs of halves shuffled
// through the stack and general registers (every accumulator in memory), which left sum/mean at ~1.35x PyTorch's
// time on an AVX2 host. The leaves below take the vector type as a parameter and keep the same 64 lanes (twice as
// many 32-byte vectors, lane j in vector j / L), so both widths make the same additions in the same order.
typedef float tl_f32x8 __attribute__((vector_size(32), aligned(32)));
typedef double tl_f64x4 __attribute__((vector_size(32), aligned(32)));
template <typename V, typename T>
__attribute__((always_inline)) inline T leaf_sum_vec(const T* p, int64_t n) {  // n >= kLanes
  constexpr int64_t L = static_cast<int64_t>(sizeof(V) / sizeof(T));  // lanes per vector
  constexpr int NV = static_cast<int>(kLanes / L);                     // vectors holding the 64 lanes
  V hi[NV] = {};
  int64_t i = 0;
  while (i + kLanes <= n) {
    V acc[NV] = {};
    const int64_t end = std::min(n / kLanes * kLanes, i + kLanes * kLaneRun);
    for (; i < end; i += kLanes) {
#pragma GCC unroll 16
      for (int k = 0; k < NV; ++k) {
        V v;
        std::memcpy(&v, p + i + k * L, sizeof v);
        acc[k] += v;
      }
    }
#pragma GCC unroll 16
    for (int k = 0; k < NV; ++k) hi[k] += acc[k];
  }
  // The lane tree hi[j] += hi[j + w], w = 32, 16, ...: whole vectors while w >= L, then in one vector's lanes.
#pragma GCC unroll 16
  for (int w = NV / 2; w >= 1; w /= 2)
#pragma GCC unroll 16
    for (int k = 0; k < w; ++k) hi[k] += hi[k + w];
  T r = 0;
  for (; i < n; ++i) r += p[i];
  return lane_tree<L, T>(hi[0]) + r;
}
// A run shorter than the 64 lanes but at least one vector long (16-63 floats, 8-63 doubles): one vector of lanes
// over the whole vectors, the tail added in order, then the lane tree plus the tail, as a leaf with one vector of
// lanes. The sequential loop this replaces made each plane a chain of dependent adds: adaptive_avg_pool2d to
// (1, 1) (mean over 7x7 planes) on 32x64x7x7 took 71 us against PyTorch's 17 (one thread).
// With 32-byte vectors the 64 bytes of lanes are two vectors; adding the second to the first is the lane tree's
// first step (lane j + lane j + L), so the sums are those of one 64-byte vector.
template <typename V, typename T>
__attribute__((always_inline)) inline T short_sum_vec(const T* p, int64_t n) {  // 64 / sizeof(T) <= n < kLanes
  constexpr int64_t W = 64 / static_cast<int64_t>(sizeof(T));  // lanes: one 64-byte vector's worth
  constexpr int64_t L = static_cast<int64_t>(sizeof(V) / sizeof(T));
  constexpr int P = static_cast<int>(W / L);  // vectors holding them
  V acc[P] = {};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
#pragma GCC unroll 2
    for (int k = 0; k < P; ++k) {
      V v;
      std::memcpy(&v, p + i + k * L, sizeof v);
      acc[k] += v;
    }
  }
  T r = 0;
  for (; i < n; ++i) r += p[i];
  if constexpr (P == 2) acc[0] += acc[1];
  return lane_tree<L, T>(acc[0]) + r;
}
// Whether the leaves use 64-byte vectors (AVX-512) or 32-byte ones (read once; both give the same sums).
bool wide_leaves() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool wide = __builtin_cpu_supports("avx512f");
  return wide;
#else
  return false;
#endif
}
// Each leaf entry point below is a pair of clone sets, the 64-byte form (Z) and the 32-byte form (Y), and a
// dispatcher that picks one by wide_leaves().
#define TL_LEAF_PAIR(ret, name, args, call, VZ, VY, body)             \
  TL_TARGET_CLONES ret name##_z args { using V = VZ; body }             \
  TL_TARGET_CLONES ret name##_y args { using V = VY; body }             \
  ret name args { return wide_leaves() ? name##_z call : name##_y call; }
TL_LEAF_PAIR(float, short_sum, (const float* p, int64_t n), (p, n), tl_f32x16, tl_f32x8,
             return short_sum_vec<V>(p, n);)
TL_LEAF_PAIR(double, short_sum, (const double* p, int64_t n), (p, n), tl_f64x8, tl_f64x4,
             return short_sum_vec<V>(p, n);)
// out[k] = short_sum(p + k * n, n) for k < count: back-to-back runs (mean over the last dims of a contiguous tensor
// with small planes) in one call, without the per-output walker and indirect clone call (23 ns an output).
TL_LEAF_PAIR(void, short_sums, (const float* p, int64_t n, int64_t count, float* out), (p, n, count, out),
             tl_f32x16, tl_f32x8, for (int64_t k = 0; k < count; ++k) out[k] = short_sum_vec<V>(p + k * n, n);)
TL_LEAF_PAIR(void, short_sums, (const double* p, int64_t n, int64_t count, double* out), (p, n, count, out),
             tl_f64x8, tl_f64x4, for (int64_t k = 0; k < count; ++k) out[k] = short_sum_vec<V>(p + k * n, n);)
// The same for runs of kLanes to 2 * kLeaf - 2 * kLanes elements: pairwise_sum's one leaf, or its two halves (each
// at most kLeaf) added, inline (adaptive_avg_pool2d (1, 1) on 56x56 planes: 2048 outputs of two leaves each; the
// per-output walker and two indirect clone calls were ~10% of the time when the planes come from the L3).
template <typename V, typename T>
__attribute__((always_inline)) inline T run_sum_vec(const T* p, int64_t n) {
  if (n <= kLeaf) return leaf_sum_vec<V>(p, n);
  const int64_t half = (n / 2) / kLanes * kLanes;
  return leaf_sum_vec<V>(p, half) + leaf_sum_vec<V>(p + half, n - half);
}
TL_LEAF_PAIR(void, leaf_runs, (const float* p, int64_t n, int64_t count, float* out), (p, n, count, out),
             tl_f32x16, tl_f32x8, for (int64_t k = 0; k < count; ++k) out[k] = run_sum_vec<V>(p + k * n, n);)
TL_LEAF_PAIR(void, leaf_runs, (const double* p, int64_t n, int64_t count, double* out), (p, n, count, out),
             tl_f64x8, tl_f64x4, for (int64_t k = 0; k < count; ++k) out[k] = run_sum_vec<V>(p + k * n, n);)

TL_LEAF_PAIR(float, leaf_sum, (const float* p, int64_t n), (p, n), tl_f32x16, tl_f32x8,
             return leaf_sum_vec<V>(p, n);)
TL_LEAF_PAIR(double, leaf_sum, (const double* p, int64_t n), (p, n), tl_f64x8, tl_f64x4,
             return leaf_sum_vec<V>(p, n);)
#undef TL_LEAF_PAIR
TL_TARGET_CLONES uint64_t leaf_sum(const int64_t* p, int64_t n) { return leaf_sum_impl<uint64_t>(p, n); }
TL_TARGET_CLONES uint64_t leaf_sum(const int32_t* p, int64_t n) { return leaf_sum_impl<uint64_t>(p, n); }

template <typename acc_t, typename in_t>
constexpr bool has_fast_leaf_v = (std::is_same_v<in_t, float> && std::is_same_v<acc_t, float>) ||
                                 (std::is_same_v<in_t, double> && std::is_same_v<acc_t, double>) ||
                                 (std::is_same_v<in_t, int64_t> && std::is_same_v<acc_t, uint64_t>) ||
                                 (std::is_same_v<in_t, int32_t> && std::is_same_v<acc_t, uint64_t>);

// Sum of n elements at p with stride s (in elements).
template <typename acc_t, typename in_t>
acc_t pairwise_sum(const in_t* p, int64_t n, int64_t s) {
  if constexpr ((std::is_same_v<in_t, float> && std::is_same_v<acc_t, float>) ||
                (std::is_same_v<in_t, double> && std::is_same_v<acc_t, double>)) {
    if (s == 1 && n < kLanes && n >= 64 / static_cast<int64_t>(sizeof(in_t))) return short_sum(p, n);
  }
  if (n < kLanes) {
    acc_t r = 0;
    for (int64_t i = 0; i < n; ++i) r += load<acc_t>(p + i * s);
    return r;
  }
  if constexpr (has_fast_leaf_v<acc_t, in_t>) {
    if (s == 1 && (std::is_same_v<acc_t, uint64_t> || n <= kLeaf)) return leaf_sum(p, n);
  }
  if constexpr (is_reduced_v<in_t>) {
    if (s == 1 && n <= kLeaf) {  // convert the run with vector instructions, then sum floats
      float buf[kLeaf];
      reduced_to_float(p, buf, n);
      return pairwise_sum<acc_t, float>(buf, n, 1);
    }
  }
  if (std::is_same_v<acc_t, uint64_t> || n <= kLeaf) return leaf_sum_impl<acc_t>(p, n, s);  // integers: exact
  int64_t half = (n / 2) / kLanes * kLanes;
  return pairwise_sum<acc_t>(p, half, s) + pairwise_sum<acc_t>(p + half * s, n - half, s);
}

// Adds many scalar terms with O(log n) error growth.
template <typename acc_t>
struct Cascade {
  acc_t level[kCascadeLevels] = {};
  int count[kCascadeLevels] = {};
  void add(acc_t x) {
    if constexpr (std::is_same_v<acc_t, uint64_t>) {
      level[0] += x;
    } else {
      level[0] += x;
      for (int l = 0; l + 1 < kCascadeLevels && ++count[l] == kCascadeFan; ++l) {
        level[l + 1] += level[l];
        level[l] = 0;
        count[l] = 0;
      }
    }
  }
  acc_t result() const {
    acc_t r = 0;
    for (int l = 0; l < kCascadeLevels; ++l) r += level[l];
    return r;
  }
};

// ------------------------------------------------------------------------------ geometry

using reduce::chunk_bound;
using reduce::coalesce;
using reduce::Dim;
using reduce::stride_key;
using reduce::Walker;

// Sum of the reduction elements with flat indices [b, e) of the reduction space `rd`
// (outermost first; the last dim is the run summed pairwise), starting at p.
template <typename acc_t, typename in_t>
acc_t sum_flat_range(const in_t* p, const std::vector<Dim>& rd, int64_t b, int64_t e) {
  if (rd.empty()) return b < e ? acc_t(0) + load<acc_t>(p) : acc_t(0);  // 0 + -0.0 is 0.0, as PyTorch's sum
  if (rd.size() == 1) return pairwise_sum<acc_t>(p + b * rd[0].stride, e - b, rd[0].stride);
  const int64_t L = rd.back().size, s = rd.back().stride;
  std::vector<Dim> outer(rd.begin(), rd.end() - 1);
  Walker w(outer, b / L);
  int64_t col = b % L;
  Cascade<acc_t> c;
  while (b < e) {
    int64_t n = std::min(L - col, e - b);
    c.add(pairwise_sum<acc_t>(p + w.offset + col * s, n, s));
    b += n;
    col = 0;
    w.next();
  }
  return c.result();
}

// Vertical reduction: out[j] = sum over reduction rows [rb, re) of p[row_offset + j * sw], j < C.
// Rows are added four at a time into a cascade of row accumulators (carry every 16 rows).
constexpr int64_t kChunk = 4096;
template <typename acc_t, typename in_t>
TL_TARGET_CLONES void sum_rows(const in_t* p, int64_t C, int64_t sw, const std::vector<Dim>& rd, int64_t rb, int64_t re,
              acc_t* out) {
  constexpr bool exact = std::is_same_v<acc_t, uint64_t>;
  acc_t level[kCascadeLevels][kChunk];
  int count[kCascadeLevels] = {};
  int used = 1;
  std::fill(&level[0][0], &level[0][0] + C, acc_t(0));
  // Loads row r (offset `off`) as acc_t values: converted in bulk for contiguous 16-bit floats.
  acc_t tmp[4][kChunk];
  auto row_ptr = [&](int64_t off, int slot) -> const acc_t* {
    const in_t* row = p + off;
    if constexpr (std::is_same_v<in_t, acc_t>) {
      if (sw == 1) return row;
    }
    if constexpr (is_reduced_v<in_t>) {
      if (sw == 1) {
        reduced_to_float(row, tmp[slot], C);
        return tmp[slot];
      }
    }
    for (int64_t j = 0; j < C; ++j) tmp[slot][j] = load<acc_t>(row + j * sw);
    return tmp[slot];
  };
  auto carry = [&](int added) {
    if constexpr (!exact) {
      count[0] += added;
      for (int l = 0; l + 1 < kCascadeLevels && count[l] >= kCascadeFan; ++l) {
        if (used == l + 1) {
          std::fill(&level[l + 1][0], &level[l + 1][0] + C, acc_t(0));
          used = l + 2;
        }
        for (int64_t j = 0; j < C; ++j) {
          level[l + 1][j] += level[l][j];
          level[l][j] = 0;
        }
        count[l] = 0;
        ++count[l + 1];
      }
    }
  };
  Walker w(rd, rb);
  int64_t r = rb;
  acc_t* l0 = level[0];
  for (; r + 4 <= re; r += 4) {
    int64_t o0 = w.offset; w.next();
    int64_t o1 = w.offset; w.next();
    int64_t o2 = w.offset; w.next();
    int64_t o3 = w.offset; w.next();
    const acc_t* x0 = row_ptr(o0, 0);
    const acc_t* x1 = row_ptr(o1, 1);
    const acc_t* x2 = row_ptr(o2, 2);
    const acc_t* x3 = row_ptr(o3, 3);
    for (int64_t j = 0; j < C; ++j) l0[j] += (x0[j] + x1[j]) + (x2[j] + x3[j]);
    carry(4);
  }
  for (; r < re; ++r, w.next()) {
    const acc_t* x0 = row_ptr(w.offset, 0);
    for (int64_t j = 0; j < C; ++j) l0[j] += x0[j];
    carry(1);
  }
  for (int64_t j = 0; j < C; ++j) {
    acc_t v = 0;
    for (int l = 0; l < used; ++l) v += level[l][j];
    out[j] = v;
  }
}

// Pairwise sum of n partial results with stride s (n small).
template <typename acc_t>
acc_t combine(const acc_t* v, int64_t n, int64_t s) {
  if (n == 1) return v[0];
  int64_t h = n / 2;
  return combine(v, h, s) + combine(v + h * s, n - h, s);
}

// out[o] = combine(v + o, n, s) for o < K: the same pairwise tree (so the same sums), done a
// whole row of partials at a time so that they are read in memory order.
template <typename acc_t>
void combine_rows(const acc_t* v, int64_t n, int64_t s, int64_t K, acc_t* out) {
  if (n == 1) {
    std::copy(v, v + K, out);
    return;
  }
  const int64_t h = n / 2;
  std::vector<acc_t> right(static_cast<size_t>(K));
  combine_rows(v, h, s, K, out);
  combine_rows(v + h * s, n - h, s, K, right.data());
  for (int64_t o = 0; o < K; ++o) out[o] += right[o];
}

constexpr int64_t kGrain = 32768;  // elements of work worth a task

// a * b saturated to int64 (work estimates of huge expanded inputs).
int64_t saturating_mul(int64_t a, int64_t b) {
  __int128 w = static_cast<__int128>(a) * b;
  return w > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(w);
}

// Product (mod 2^64) of the sizes of the expanded reduced dims that reduce_sum leaves out for
// integer sums: each element there is counted that many times.
uint64_t broadcast_factor(const Tensor& self, uint64_t mask) {
  uint64_t f = 1;
  for (int64_t i = 0; i < self.dim(); ++i)
    if ((mask >> i & 1) && self.strides()[i] == 0 && self.sizes()[i] > 1) f *= static_cast<uint64_t>(self.sizes()[i]);
  return f;
}

// Sums `self` over the dims in `mask` into acc (one value per kept element, row-major over kept
// dims). Requires numel > 0.
template <typename in_t>
void reduce_sum(const Tensor& self, uint64_t mask, acc_type_t<in_t>* acc) {
  using acc_t = acc_type_t<in_t>;
  const in_t* base = self.data_ptr<in_t>();
  // Integer sums are exact, so expanded (stride-0) reduced dims are left to broadcast_factor().
  reduce::Geometry g = reduce::make_geometry(self.sizes(), self.strides(), mask,
                                             /*drop_broadcast=*/std::is_same_v<acc_t, uint64_t>);
  const std::vector<Dim>& kept_in = g.kept_in;
  const std::vector<Dim>& kept_out = g.kept_out;
  const std::vector<Dim>& red = g.red;
  const int64_t Kn = g.outputs, Rn = g.length;

  // The kept dim with the smallest input stride: when it is smaller than every reduced stride,
  // reduce "vertically" (rows of that dim added together); otherwise per output element.
  int64_t vdim = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(kept_in.size()); ++i)
    if (vdim < 0 || stride_key(kept_in[i].stride) < stride_key(kept_in[vdim].stride)) vdim = i;
  int64_t rmin = std::numeric_limits<int64_t>::max();
  for (const Dim& d : red) rmin = std::min(rmin, stride_key(d.stride));
  bool vertical = vdim >= 0 && !red.empty() && stride_key(kept_in[vdim].stride) < rmin && kept_in[vdim].size >= 4;

  if constexpr ((std::is_same_v<in_t, float> && std::is_same_v<acc_t, float>) ||
                (std::is_same_v<in_t, double> && std::is_same_v<acc_t, double>)) {
    // Outputs that are back-to-back short contiguous runs, in output order (kept dims in their order, each the next
    // one's size times its stride, the innermost of stride Rn): the same sums as pairwise_sum's, a chunk of outputs
    // per call.
    bool runs = !vertical && Kn >= 16 && red.size() == 1 && red[0].stride == 1 &&
                Rn >= 64 / static_cast<int64_t>(sizeof(in_t)) && Rn <= 2 * kLeaf - 2 * kLanes;
    int64_t expect = Rn;  // the stride the next dim inward-out must have
    for (auto it = kept_in.rbegin(); runs && it != kept_in.rend(); ++it) {
      if (it->size == 1) continue;
      runs = it->stride == expect;
      expect = it->size * it->stride;
    }
    if (runs) {
      parallel_for(0, Kn, std::max<int64_t>(1, kGrain / Rn), [&](int64_t b, int64_t e) {
        if (Rn < kLanes) short_sums(base + b * Rn, Rn, e - b, acc + b);
        else leaf_runs(base + b * Rn, Rn, e - b, acc + b);
      });
      return;
    }
  }
  if (!vertical) {
    // Tasks: (output, chunk of the reduction) pairs; chunks only when there are few outputs.
    int64_t nchunks = Kn >= 16 ? 1 : std::clamp<int64_t>(Rn / (4 * kGrain), 1, 64);
    std::vector<acc_t> partial(nchunks > 1 ? static_cast<size_t>(Kn * nchunks) : 0);
    int64_t tasks = Kn * nchunks;
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, Rn / nchunks));
    parallel_for(0, tasks, grain, [&](int64_t tb, int64_t te) {
      int64_t o = tb / nchunks;
      Walker w(kept_in, o);
      for (int64_t t = tb; t < te; ++t) {
        int64_t oo = t / nchunks, c = t % nchunks;
        while (o < oo) {
          w.next();
          ++o;
        }
        int64_t rb = chunk_bound(Rn, c, nchunks), re = chunk_bound(Rn, c + 1, nchunks);
        acc_t v = sum_flat_range<acc_t>(base + w.offset, red, rb, re);
        // Result index of output o: kept_out strides (row-major over all kept dims).
        if (nchunks == 1) {
          acc[o] = v;
        } else {
          partial[static_cast<size_t>(t)] = v;
        }
      }
    });
    if (nchunks > 1)
      for (int64_t o = 0; o < Kn; ++o) acc[o] = combine(partial.data() + o * nchunks, nchunks, 1);
    return;
  }

  // Vertical: outer outputs (kept dims other than vdim) x chunks of vdim x chunks of rows.
  const Dim vin = kept_in[vdim], vout = kept_out[vdim];
  std::vector<Dim> outer_in, outer_out;
  for (int64_t i = 0; i < static_cast<int64_t>(kept_in.size()); ++i) {
    if (i == vdim) continue;
    outer_in.push_back(kept_in[i]);
    outer_out.push_back(kept_out[i]);
  }
  const int64_t W = vin.size, nw = (W + kChunk - 1) / kChunk, Ko = Kn / W;
  const int64_t col_tasks = Ko * nw;
  int64_t nchunks = col_tasks >= 16 ? 1 : std::clamp<int64_t>(saturating_mul(Kn, Rn) / (4 * kGrain) / col_tasks, 1, 64);
  std::vector<acc_t> partial(nchunks > 1 ? static_cast<size_t>(Kn * nchunks) : 0);
  int64_t tasks = col_tasks * nchunks;
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, saturating_mul(std::min(W, kChunk), Rn / nchunks)));
  parallel_for(0, tasks, grain, [&](int64_t tb, int64_t te) {
    acc_t buf[kChunk];
    for (int64_t t = tb; t < te; ++t) {
      int64_t c = t % nchunks, ct = t / nchunks;
      int64_t oo = ct / nw, wc = ct % nw;
      Walker win(outer_in, oo), wout(outer_out, oo);
      int64_t j0 = wc * kChunk, C = std::min(kChunk, W - j0);
      int64_t rb = chunk_bound(Rn, c, nchunks), re = chunk_bound(Rn, c + 1, nchunks);
      sum_rows<acc_t>(base + win.offset + j0 * vin.stride, C, vin.stride, red, rb, re, buf);
      acc_t* dst = nchunks == 1 ? acc : partial.data() + c * Kn;
      for (int64_t j = 0; j < C; ++j) dst[wout.offset + (j0 + j) * vout.stride] = buf[j];
    }
  });
  if (nchunks > 1) combine_rows(partial.data(), nchunks, Kn, Kn, acc);
}

// A contiguous copy of `self` converted to `dtype`.
Tensor cast_contiguous(const Tensor& self, ScalarType dtype) {
  Tensor out = empty_tensor(self.sizes(), dtype, self.device());
  if (self.numel() == 0) return out;
  std::vector<Dim> dims;
  for (int64_t i = 0; i < self.dim(); ++i) dims.push_back({self.sizes()[i], self.strides()[i]});
  TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "sum", [&] {
    using in_t = scalar_t;
    const in_t* src = self.data_ptr<in_t>();
    TL_DISPATCH_ALL(dtype, "sum", [&] {
      scalar_t* dst = out.data_ptr<scalar_t>();
      int64_t n = self.numel();
      parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
        Walker w(dims, b);
        for (int64_t i = b; i < e; ++i, w.next()) dst[i] = convert<scalar_t>(src[w.offset]);
      });
    });
  });
  return out;
}

// Whether `in` can be summed directly for a result of dtype `out` (otherwise the input is first
// converted to `out`, as PyTorch does for an explicit dtype).
bool sums_directly(ScalarType in, ScalarType out) {
  if (is_floating_type(in)) return in == out;
  if (is_barebones_unsigned_type(in)) return false;  // summed as int64 (PyTorch has no uint16+ sum loop)
  return is_integral_type(out, /*include_bool=*/false);
}

enum class Kind { Sum, Mean };

// Shared body of the four kernels. `mask` has a bit per reduced dim of self (all dims when
// reducing everything). The result has dtype `out_dtype`; `out` is prepared by OutputUtils
// (allocated when undefined, resized otherwise).
void reduce_into(const Tensor& self_arg, uint64_t mask, bool keepdim, ScalarType out_dtype, Kind kind,
                 Tensor& out, const char* op) {
  const Tensor self = input_unaffected_by_resize(self_arg, out);  // sum(a, 0, out=a)
  const DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  int64_t Rn = 1;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (mask >> i & 1) Rn *= self.sizes()[i];
  // The dtype rules are checked by the callers (out's dtype is the result dtype).
  prepare_output(out, {op, shape, out_dtype, self.device(), OutDtype::Any});
  if (self.is_meta()) return;
  Tensor res = output_buffer(out, out_dtype, self);
  const int64_t Kn = res.numel();
  if (Kn > 0) {
    Tensor src = sums_directly(self.dtype(), out_dtype) ? self : cast_contiguous(self, out_dtype);
    TL_DISPATCH_ALL(src.dtype(), op, [&] {
      using in_t = scalar_t;
      using acc_t = acc_type_t<in_t>;
      std::vector<acc_t> acc(static_cast<size_t>(Kn), acc_t(0));
      if (src.numel() > 0) {
        reduce_sum<in_t>(src, mask, acc.data());
        if constexpr (std::is_same_v<acc_t, uint64_t>) {
          const uint64_t f = broadcast_factor(src, mask);
          if (f != 1)
            for (acc_t& a : acc) a *= f;
        }
      }
      TL_DISPATCH_ALL(out_dtype, op, [&] {
        scalar_t* dst = res.data_ptr<scalar_t>();
        if (kind == Kind::Mean) {
          if constexpr (!std::is_same_v<acc_t, uint64_t>) {
            const acc_t n = static_cast<acc_t>(Rn);
            for (int64_t i = 0; i < Kn; ++i) dst[i] = convert<scalar_t>(acc[i] / n);
          }
        } else if constexpr (std::is_same_v<acc_t, uint64_t>) {
          for (int64_t i = 0; i < Kn; ++i) dst[i] = convert<scalar_t>(static_cast<int64_t>(acc[i]));
        } else {
          for (int64_t i = 0; i < Kn; ++i) dst[i] = convert<scalar_t>(acc[i]);
        }
      });
    });
  }
  commit_output(out, res);
}

ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (out.defined()) {
    TL_CHECK(!dtype || *dtype == out.dtype(), "sum: Expected out tensor to have dtype ", scalar_type_name(*dtype),
             ", but got ", scalar_type_name(out.dtype()), " instead");
    return out.dtype();
  }
  if (dtype) return *dtype;
  return is_integral_type(self.dtype(), /*include_bool=*/true) ? ScalarType::Int64 : self.dtype();
}

ScalarType mean_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  ScalarType in = dtype.value_or(self.dtype());
  TL_CHECK(is_floating_type(in), "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
           " dtype must be either a floating point or complex dtype. Got: ", scalar_type_name(in));
  if (out.defined()) {
    TL_CHECK(!dtype || *dtype == out.dtype(), "mean: Expected out tensor to have dtype ",
             scalar_type_name(*dtype), ", but got ", scalar_type_name(out.dtype()), " instead");
    TL_CHECK(is_floating_type(out.dtype()), "mean: result type ", scalar_type_name(in),
             " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
    return out.dtype();
  }
  return in;
}

uint64_t reduce_mask(const Tensor& self, OptionalIntArrayRef dim, const char* op) {
  // dim=None and dim=[] both mean every dim (PyTorch 2.x).
  if (!dim || dim->empty()) {
    dims_to_bitmask({}, self.dim(), op);  // checks the dim count limit
    return self.dim() >= 64 ? ~uint64_t(0) : (uint64_t(1) << self.dim()) - 1;
  }
  uint64_t mask = dims_to_bitmask(*dim, self.dim(), op);
  return self.dim() == 0 ? 0 : mask;  // a 0-d tensor accepts dim 0/-1 and stays 0-d
}

// sum/mean of a complex tensor: the same reduction of its real view, whose last dim (the parts)
// is kept, viewed back as complex. The result dtype is self's (or a complex `dtype`).
void complex_reduce(const Tensor& self, uint64_t mask, bool keepdim, std::optional<ScalarType> dtype, Kind kind,
                    Tensor& out, const char* op) {
  if (out.defined() && !dtype && !is_complex_type(out.dtype()) && self.dtype() != ScalarType::Complex32) {
    // PyTorch reduces into out= in out's dtype: a real out gets the input's real parts (copy_ gives its
    // "discards the imaginary part" warning), then the real reduction.
    Tensor x = empty_tensor(self.sizes(), out.dtype(), self.device());
    if (!self.is_meta()) copy_kernel(x, self, false);
    const ScalarType st = kind == Kind::Mean ? mean_result_dtype(x, std::nullopt, out) : sum_result_dtype(x, std::nullopt, out);
    reduce_into(x, mask, keepdim, st, kind, out, op);
    return;
  }
  // Without dtype=, a complex out= chooses the dtype (complex64 summed in complex128, as PyTorch).
  const ScalarType ct = dtype ? *dtype : (out.defined() && is_complex_type(out.dtype()) ? out.dtype() : self.dtype());
  TL_CHECK(is_complex_type(ct), op, ": a complex input needs a complex dtype, got ", scalar_type_name(ct));
  // PyTorch's CPU sum/mean have no complex32 kernel (its real view would reduce, but PyTorch refuses).
  TL_CHECK_AS(NotImplementedError, ct != ScalarType::Complex32, op, ": \"sum_cpu\" not implemented for 'ComplexHalf'");
  TL_CHECK(!out.defined() || out.dtype() == ct, op, ": Expected out tensor to have dtype ", scalar_type_name(ct),
           ", but got ", scalar_type_name(out.dtype()), " instead");
  Tensor src = self.dtype() == ct ? self : empty_tensor(self.sizes(), ct, self.device());
  if (!src.is_same(self) && !self.is_meta()) copy_kernel(src, self, false);
  Tensor real_out;
  reduce_into(view_as_real_kernel(src), mask, keepdim, to_real_type(ct), kind, real_out, op);
  Tensor result = view_as_complex_kernel(real_out);
  if (!out.defined()) {
    out = result;
    return;
  }
  prepare_output(out, OutputSpec{op, result.sizes(), ct, result.device(), OutDtype::Exact});
  if (!out.is_meta()) copy_kernel(out, result, false);
}

}  // namespace

Tensor sum_all_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  Tensor out;
  if (is_complex_type(self.dtype())) {
    complex_reduce(self, reduce_mask(self, std::nullopt, "sum"), false, dtype, Kind::Sum, out, "sum");
    return out;
  }
  ScalarType st = sum_result_dtype(self, dtype, out);
  reduce_into(self, reduce_mask(self, std::nullopt, "sum"), false, st, Kind::Sum, out, "sum");
  return out;
}

void sum_dim_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                    Tensor& out) {
  uint64_t mask = reduce_mask(self, dim, "sum");
  if (is_complex_type(self.dtype())) return complex_reduce(self, mask, keepdim, dtype, Kind::Sum, out, "sum");
  ScalarType st = sum_result_dtype(self, dtype, out);
  reduce_into(self, mask, keepdim, st, Kind::Sum, out, "sum");
}

void mean_all_kernel(const Tensor& self, std::optional<ScalarType> dtype, Tensor& out) {
  if (is_complex_type(self.dtype())) {
    return complex_reduce(self, reduce_mask(self, std::nullopt, "mean"), false, dtype, Kind::Mean, out, "mean");
  }
  ScalarType st = mean_result_dtype(self, dtype, out);
  reduce_into(self, reduce_mask(self, std::nullopt, "mean"), false, st, Kind::Mean, out, "mean");
}

void mean_dim_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                     Tensor& out) {
  if (is_complex_type(self.dtype())) {
    return complex_reduce(self, reduce_mask(self, dim, "mean"), keepdim, dtype, Kind::Mean, out, "mean");
  }
  // PyTorch checks the dtype before the dims on CPU, and the dims first on meta tensors.
  uint64_t mask = self.is_meta() ? reduce_mask(self, dim, "mean") : 0;
  ScalarType st = mean_result_dtype(self, dtype, out);
  if (!self.is_meta()) mask = reduce_mask(self, dim, "mean");
  reduce_into(self, mask, keepdim, st, Kind::Mean, out, "mean");
}

}  // namespace tl::native
