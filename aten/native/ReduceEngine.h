// The reduction engine: folds a tensor over any set of dims with any combine function that has
// an identity, for any strides (transposed, sliced, expanded), on several threads.
//
// A reduction is a small struct (see cpu/ReduceOps.cpp for the real ones):
//
//   template <typename T> struct MaxOp {
//     using in_t = T;                                    // element type read
//     using acc_t = opmath_t<T>;                         // accumulator (float for Half/BFloat16)
//     acc_t identity() const { return lowest; }          // fold start
//     acc_t reduce(acc_t a, in_t x) const { ... }        // fold one element in
//     acc_t combine(acc_t a, acc_t b) const { ... }      // merge two partial folds (a came first)
//   };
//   reduce_values(op, self, geometry, acc);  // acc[k] for every output k (row-major over kept dims)
//
// and the kernel projects acc into the output (mean divides, std takes a square root...).
// Reductions that return the position of the winner (argmax, max.dim) give a strict
// `better(x, current)` order instead and run through reduce_with_index(), which returns the first
// position of the best value.
//
// How it runs. The kept dims index the outputs; the reduced dims, sorted by stride and merged
// when back to back, form the reduction space of each output, walked in memory order.
//   * inner: when a reduced dim is the one with the smallest stride (x.sum(-1) on a contiguous
//     tensor), each output folds runs along it in four vectors' worth of independent lanes
//     (fold_lanes: vectorizes, and keeps four compare or add chains in flight), merged at the end;
//   * outer: when a kept dim has the smallest stride (x.sum(0)), a block of up to kBlock
//     neighbouring outputs is folded four rows per pass, so the loop runs along the contiguous
//     kept dim and vectorizes across outputs.
// Work is split into tasks (blocks of outputs, and chunks of the reduction when there are few
// outputs) whose number depends only on the shapes, so results do not depend on the thread count.
// All index arithmetic is in int64 with chunk bounds computed in 128 bits, so shapes near 2^63
// elements (expanded tensors) are safe.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native::reduce {

struct Dim {
  int64_t size;
  int64_t stride;  // elements
};

// Iterates a multi-index over `dims` (outermost first), tracking the element offset.
struct Walker {
  const Dim* dims;
  int64_t ndim;
  int64_t idx[64];
  int64_t offset = 0;
  Walker(const std::vector<Dim>& d, int64_t linear) : dims(d.data()), ndim(static_cast<int64_t>(d.size())) {
    for (int64_t i = ndim - 1; i >= 0; --i) {
      idx[i] = linear % dims[i].size;
      linear /= dims[i].size;
      offset += idx[i] * dims[i].stride;
    }
  }
  void next() {
    for (int64_t i = ndim - 1; i >= 0; --i) {
      offset += dims[i].stride;
      if (++idx[i] < dims[i].size) return;
      offset -= idx[i] * dims[i].stride;
      idx[i] = 0;
    }
  }
};

// Stride order key: stride-0 dims (expanded) sort outermost, so the innermost run is a real one.
inline int64_t stride_key(int64_t stride) { return stride == 0 ? std::numeric_limits<int64_t>::max() : stride; }

// Sorts by decreasing stride and merges dims laid out back to back.
std::vector<Dim> coalesce(std::vector<Dim> dims);

// total * c / n without overflow (total may be close to 2^63): bounds of chunk c of n.
inline int64_t chunk_bound(int64_t total, int64_t c, int64_t n) {
  return static_cast<int64_t>(static_cast<__int128>(total) * c / n);
}

// The shape of a reduction of `sizes` over the dims in `mask`.
DimVector reduced_shape(IntArrayRef sizes, uint64_t mask, bool keepdim);

// Bitmask of the reduced dims: dim None or [] means all dims (PyTorch 2.x); a 0-d tensor accepts
// dim 0 / -1 and reduces nothing. Errors as PyTorch, prefixed with `op`.
uint64_t reduce_mask(const Tensor& self, OptionalIntArrayRef dim, const char* op);

struct Geometry {
  std::vector<Dim> kept_in;   // kept dims of size > 1: input strides, outermost first
  std::vector<Dim> kept_out;  // the same dims' strides in the contiguous result
  std::vector<Dim> red;       // reduced dims of size > 1, coalesced, innermost last
  int64_t outputs = 1;        // number of outputs
  int64_t length = 1;         // elements folded into each output (after dropped broadcast dims)
};

// `drop_broadcast`: leave out reduced dims of stride 0 (expanded), for reductions where
// folding a value in again changes nothing (max, min, any, all).
Geometry make_geometry(IntArrayRef sizes, IntArrayRef strides, uint64_t mask, bool drop_broadcast = false);

// ---------------------------------------------------------------------------------------- plans

constexpr int64_t kBlock = 4096;   // outputs folded together by an outer reduction (whole rows: reads stream)
constexpr int64_t kGrain = 32768;  // elements of work worth a task

// How the work of a geometry is cut into tasks.
struct Plan {
  bool outer = false;   // fold rows across a block of outputs (see the top of this file)
  int64_t vdim = -1;    // outer: index in kept_in of the contiguous kept dim
  int64_t blocks = 0;   // outer: output blocks per outer output row
  int64_t chunks = 1;   // pieces each reduction is cut into
  int64_t tasks = 0;
  int64_t grain = 1;    // tasks per thread at least
};
Plan make_plan(const Geometry& g);

// Outer-plan geometry split: the contiguous kept dim and the other kept dims.
struct OuterDims {
  Dim vin, vout;
  std::vector<Dim> rest_in, rest_out;
};
OuterDims outer_dims(const Geometry& g, const Plan& p);

// ------------------------------------------------------------------------------------- values

template <typename Op>
using acc_of = typename Op::acc_t;

// Scratch array (std::vector<bool> has no data()).
template <typename T>
struct Scratch {
  std::unique_ptr<T[]> p;
  explicit Scratch(int64_t n) : p(n > 0 ? new T[static_cast<size_t>(n)] : nullptr) {}
  T* data() { return p.get(); }
  T& operator[](int64_t i) { return p[static_cast<size_t>(i)]; }
};

// Fold of n contiguous elements with reduce(acc, element), in four arrays of one 64-byte vector's
// worth of independent lanes each (four registers under AVX-512: the loop runs at memory speed
// instead of waiting on one compare-and-blend or add chain), merged with combine at the end. Every
// lane starts at `init`: the identity, or any element for an idempotent fold. Always inlined into
// the callers' ISA clones (GCC does not inline baseline code into them otherwise).
template <typename A, typename In, typename R, typename C>
TL_ALWAYS_INLINE A fold_lanes(const In* p, int64_t n, A init, const R& reduce, const C& combine) {
  constexpr int64_t V = sizeof(A) >= 64 ? 1 : 64 / sizeof(A);
  A l0[V], l1[V], l2[V], l3[V];
  for (int64_t j = 0; j < V; ++j) l0[j] = l1[j] = l2[j] = l3[j] = init;
  auto step = [&](A* l, const In* q) {
#pragma omp simd
    for (int64_t j = 0; j < V; ++j) l[j] = reduce(l[j], q[j]);
  };
  int64_t i = 0;
  for (; i + 4 * V <= n; i += 4 * V) {
    step(l0, p + i);
    step(l1, p + i + V);
    step(l2, p + i + 2 * V);
    step(l3, p + i + 3 * V);
  }
  for (int64_t j = 0; j < V; ++j) {
    l0[j] = combine(l0[j], l1[j]);
    l2[j] = combine(l2[j], l3[j]);
  }
  for (int64_t j = 0; j < V; ++j) l0[j] = combine(l0[j], l2[j]);
  A r = l0[0];
  for (int64_t j = 1; j < V; ++j) r = combine(r, l0[j]);
  for (; i < n; ++i) r = reduce(r, p[i]);
  return r;
}

// Fold of n contiguous elements at p.
template <typename Op>
TL_TARGET_CLONES acc_of<Op> fold_contiguous(const Op& op, const typename Op::in_t* p, int64_t n) {
  using acc_t = acc_of<Op>;
  using in_t = typename Op::in_t;
  return fold_lanes(p, n, op.identity(), [&](acc_t a, in_t x) { return op.reduce(a, x); },
                    [&](acc_t a, acc_t b) { return op.combine(a, b); });
}

// Fold of n elements at p with stride s (in elements).
template <typename Op>
acc_of<Op> fold_run(const Op& op, const typename Op::in_t* p, int64_t n, int64_t s) {
  if (s == 1) return fold_contiguous(op, p, n);
  acc_of<Op> r = op.identity();
  for (int64_t i = 0; i < n; ++i) r = op.reduce(r, p[i * s]);
  return r;
}

// Fold of the elements with flat indices [b, e) of the reduction space `rd` starting at p.
template <typename Op>
acc_of<Op> fold_range(const Op& op, const typename Op::in_t* p, const std::vector<Dim>& rd, int64_t b, int64_t e) {
  if (rd.empty()) return b < e ? op.reduce(op.identity(), *p) : op.identity();
  const int64_t L = rd.back().size, s = rd.back().stride;
  if (rd.size() == 1) return fold_run(op, p + b * s, e - b, s);
  std::vector<Dim> outer(rd.begin(), rd.end() - 1);
  Walker w(outer, b / L);
  int64_t col = b % L;
  acc_of<Op> acc = op.identity();
  while (b < e) {
    int64_t n = std::min(L - col, e - b);
    acc = op.combine(acc, fold_run(op, p + w.offset + col * s, n, s));
    b += n;
    col = 0;
    w.next();
  }
  return acc;
}

// acc[j] folded with r0[j], r1[j], r2[j], r3[j] in that order, j < C: four rows per pass read and
// write the accumulators a quarter as often.
template <typename Op>
TL_TARGET_CLONES void fold_rows4_contiguous(const Op& op, const typename Op::in_t* r0, const typename Op::in_t* r1,
                                            const typename Op::in_t* r2, const typename Op::in_t* r3, int64_t C,
                                            acc_of<Op>* acc) {
#pragma omp simd
  for (int64_t j = 0; j < C; ++j) acc[j] = op.reduce(op.reduce(op.reduce(op.reduce(acc[j], r0[j]), r1[j]), r2[j]), r3[j]);
}

template <typename Op>
TL_TARGET_CLONES void fold_rows_contiguous(const Op& op, const typename Op::in_t* row, int64_t C, acc_of<Op>* acc) {
#pragma omp simd
  for (int64_t j = 0; j < C; ++j) acc[j] = op.reduce(acc[j], row[j]);
}

// out[j] = fold over rows r of p[row(r) + j * sw], j < C, rows [rb, re) of `rd`.
template <typename Op>
void fold_rows(const Op& op, const typename Op::in_t* p, int64_t C, int64_t sw, const std::vector<Dim>& rd,
               int64_t rb, int64_t re, acc_of<Op>* acc) {
  for (int64_t j = 0; j < C; ++j) acc[j] = op.identity();
  Walker w(rd, rb);
  int64_t r = rb;
  if (sw == 1) {
    for (; r + 4 <= re; r += 4) {
      const typename Op::in_t* r0 = p + w.offset;
      w.next();
      const typename Op::in_t* r1 = p + w.offset;
      w.next();
      const typename Op::in_t* r2 = p + w.offset;
      w.next();
      const typename Op::in_t* r3 = p + w.offset;
      w.next();
      fold_rows4_contiguous(op, r0, r1, r2, r3, C, acc);
    }
  }
  for (; r < re; ++r, w.next()) {
    const typename Op::in_t* row = p + w.offset;
    if (sw == 1) {
      fold_rows_contiguous(op, row, C, acc);
    } else {
      for (int64_t j = 0; j < C; ++j) acc[j] = op.reduce(acc[j], row[j * sw]);
    }
  }
}

// acc[k] = fold of output k's elements, for every output (row-major over the kept dims).
// Requires g.length > 0 unless the op's identity is a valid result.
template <typename Op>
void reduce_values(const Op& op, const typename Op::in_t* base, const Geometry& g, acc_of<Op>* acc) {
  using acc_t = acc_of<Op>;
  const Plan plan = make_plan(g);
  const int64_t K = g.outputs, R = g.length, nc = plan.chunks;
  Scratch<acc_t> partial(nc > 1 ? K * nc : 0);
  if (!plan.outer) {
    parallel_for(0, plan.tasks, plan.grain, [&](int64_t tb, int64_t te) {
      int64_t o = tb / nc;
      Walker w(g.kept_in, o);
      for (int64_t t = tb; t < te; ++t) {
        for (; o < t / nc; ++o) w.next();
        int64_t c = t % nc;
        acc_t v = fold_range(op, base + w.offset, g.red, chunk_bound(R, c, nc), chunk_bound(R, c + 1, nc));
        if (nc == 1) acc[o] = v;
        else partial[t] = v;
      }
    });
    if (nc > 1)
      for (int64_t o = 0; o < K; ++o) {
        acc_t v = partial[o * nc];
        for (int64_t c = 1; c < nc; ++c) v = op.combine(v, partial[o * nc + c]);
        acc[o] = v;
      }
    return;
  }
  const OuterDims od = outer_dims(g, plan);
  const int64_t W = od.vin.size;
  parallel_for(0, plan.tasks, plan.grain, [&](int64_t tb, int64_t te) {
    acc_t buf[kBlock];
    for (int64_t t = tb; t < te; ++t) {
      int64_t c = t % nc, bt = t / nc, oo = bt / plan.blocks, wb = bt % plan.blocks;
      Walker win(od.rest_in, oo), wout(od.rest_out, oo);
      int64_t j0 = wb * kBlock, C = std::min(kBlock, W - j0);
      fold_rows(op, base + win.offset + j0 * od.vin.stride, C, od.vin.stride, g.red, chunk_bound(R, c, nc),
                chunk_bound(R, c + 1, nc), buf);
      acc_t* dst = nc == 1 ? acc : partial.data() + c * K;
      for (int64_t j = 0; j < C; ++j) dst[wout.offset + (j0 + j) * od.vout.stride] = buf[j];
    }
  });
  if (nc > 1) {  // chunk by chunk, so the partials are read in memory order
    for (int64_t o = 0; o < K; ++o) acc[o] = partial[o];
    for (int64_t c = 1; c < nc; ++c)
      for (int64_t o = 0; o < K; ++o) acc[o] = op.combine(acc[o], partial[c * K + o]);
  }
}

// ------------------------------------------------------------------------------------ indexed
//
// An indexed reduction:
//   struct ArgMaxOp<T> {
//     using in_t = T; using val_t = opmath_t<T>;
//     val_t load(in_t x) const;
//     bool better(val_t x, val_t cur) const;  // strict: x replaces cur (NaN beats numbers)
//   };
// The result is the best value and the first position (flat index in the reduction space, in
// the reduced dims' logical order) where it occurs. Callers reduce over one dim, or over a
// contiguous tensor, so that memory order and logical order agree.

template <typename Op>
using val_of = typename Op::val_t;

// Lane arrays (value, first group) merged into a: the better value, or on a tie the earlier group.
// A function, not a lambda, so that it is always inlined into the callers' ISA clones.
template <int64_t V, typename Op>
TL_ALWAYS_INLINE void merge_best_lanes(const Op& op, val_of<Op>* a, int32_t* ga, const val_of<Op>* b,
                                       const int32_t* gb) {
  for (int64_t j = 0; j < V; ++j) {
    const bool take = op.better(b[j], a[j]) | (!op.better(a[j], b[j]) & (gb[j] < ga[j]));
    a[j] = take ? b[j] : a[j];
    ga[j] = take ? gb[j] : ga[j];
  }
}

// Best of n >= 1 contiguous elements and its first position, in one pass at amax's speed: four
// arrays of one vector's worth of lanes each keep, for the positions they see (one lane per
// position modulo 4 vectors), the best value so far and the first group of 4 vectors where it
// appeared (int32, as wide as float, so it costs one masked broadcast per vector). At the end only
// the earliest group holding the overall best is scanned for its first tie. The value returned is
// that element's (so of 0.0 and -0.0, the first one, as a sequential scan keeps it).
template <typename Op>
TL_TARGET_CLONES void best_contiguous_block(const Op& op, const typename Op::in_t* p, int64_t n, val_of<Op>& best,
                                            int64_t& best_i) {
  using val_t = val_of<Op>;
  using in_t = typename Op::in_t;
  constexpr int64_t V = sizeof(val_t) >= 64 ? 1 : 64 / sizeof(val_t), G = 4 * V;
  const int64_t groups = n / G;  // the caller keeps this below 2^31
  best = op.load(p[0]);
  best_i = 0;
  int64_t i = 1;
  if (groups > 1) {
    val_t l0[V], l1[V], l2[V], l3[V];
    int32_t g0[V], g1[V], g2[V], g3[V];
    for (int64_t j = 0; j < V; ++j) {
      l0[j] = op.load(p[j]);
      l1[j] = op.load(p[V + j]);
      l2[j] = op.load(p[2 * V + j]);
      l3[j] = op.load(p[3 * V + j]);
      g0[j] = g1[j] = g2[j] = g3[j] = 0;
    }
    auto step = [&](val_t* l, int32_t* gl, const in_t* q, int32_t g) {
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) {
        const val_t x = op.load(q[j]);
        const bool b = op.better(x, l[j]);
        l[j] = b ? x : l[j];
        gl[j] = b ? g : gl[j];
      }
    };
    for (int64_t g = 1; g < groups; ++g) {
      const in_t* q = p + g * G;
      const int32_t at = static_cast<int32_t>(g);
      step(l0, g0, q, at);
      step(l1, g1, q + V, at);
      step(l2, g2, q + 2 * V, at);
      step(l3, g3, q + 3 * V, at);
    }
    merge_best_lanes<V>(op, l0, g0, l1, g1);
    merge_best_lanes<V>(op, l2, g2, l3, g3);
    merge_best_lanes<V>(op, l0, g0, l2, g2);
    val_t v = l0[0];
    int32_t gm = g0[0];
    for (int64_t j = 1; j < V; ++j) {
      if (op.better(l0[j], v) | (!op.better(v, l0[j]) & (g0[j] < gm))) {
        v = l0[j];
        gm = g0[j];
      }
    }
    const in_t* q = p + static_cast<int64_t>(gm) * G;
    int64_t k = 0;
    while (op.better(v, op.load(q[k]))) ++k;  // the group holds a tie of v
    best_i = static_cast<int64_t>(gm) * G + k;
    best = op.load(q[k]);
    i = groups * G;
  }
  for (; i < n; ++i) {
    const val_t x = op.load(p[i]);
    if (op.better(x, best)) {
      best = x;
      best_i = i;
    }
  }
}

// Best of n contiguous elements and its first position (blocks of up to 2^30 elements, so that
// group numbers fit in int32; an earlier block wins ties).
template <typename Op>
void best_contiguous(const Op& op, const typename Op::in_t* p, int64_t n, val_of<Op>& best, int64_t& best_i) {
  constexpr int64_t kMax = int64_t(1) << 30;
  best_contiguous_block(op, p, std::min(n, kMax), best, best_i);
  for (int64_t b = kMax; b < n; b += kMax) {
    val_of<Op> v{};
    int64_t vi = 0;
    best_contiguous_block(op, p + b, std::min(kMax, n - b), v, vi);
    if (op.better(v, best)) {
      best = v;
      best_i = b + vi;
    }
  }
}

template <typename Op>
void best_run(const Op& op, const typename Op::in_t* p, int64_t n, int64_t s, int64_t first, val_of<Op>& v,
              int64_t& ix) {
  if (s == 1) {
    val_of<Op> b{};
    int64_t bi = 0;
    best_contiguous(op, p, n, b, bi);
    if (ix < 0 || op.better(b, v)) {
      v = b;
      ix = first + bi;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    val_of<Op> x = op.load(p[i * s]);
    if (ix < 0 || op.better(x, v)) {
      v = x;
      ix = first + i;
    }
  }
}

template <typename Op>
void best_range(const Op& op, const typename Op::in_t* p, const std::vector<Dim>& rd, int64_t b, int64_t e,
                val_of<Op>& v, int64_t& ix) {
  ix = -1;
  if (rd.empty()) {
    v = op.load(*p);
    ix = 0;
    return;
  }
  const int64_t L = rd.back().size, s = rd.back().stride;
  if (rd.size() == 1) return best_run(op, p + b * s, e - b, s, b, v, ix);
  std::vector<Dim> outer(rd.begin(), rd.end() - 1);
  Walker w(outer, b / L);
  int64_t col = b % L;
  while (b < e) {
    int64_t n = std::min(L - col, e - b);
    best_run(op, p + w.offset + col * s, n, s, b, v, ix);
    b += n;
    col = 0;
    w.next();
  }
}

// Rows r0..r3 (positions r .. r + 3 relative to the first row, int32 or int64) folded, in that
// order, into the best values v and positions ix of C neighbouring outputs. Written as four
// one-vector steps on register-sized arrays: GCC 12 does not vectorize the NaN-aware compare of a
// value selected earlier in the same iteration.
template <typename Op, typename P>
TL_TARGET_CLONES void best_rows4_contiguous(const Op& op, const typename Op::in_t* r0, const typename Op::in_t* r1,
                                            const typename Op::in_t* r2, const typename Op::in_t* r3, int64_t C, P r,
                                            val_of<Op>* v, P* ix) {
  using val_t = val_of<Op>;
  using in_t = typename Op::in_t;
  constexpr int64_t V = sizeof(val_t) >= 64 ? 1 : 64 / sizeof(val_t);
  auto step = [&](val_t* bv, P* bi, const in_t* row, P at) {
#pragma omp simd
    for (int64_t j = 0; j < V; ++j) {
      const val_t x = op.load(row[j]);
      const bool b = op.better(x, bv[j]);
      bv[j] = b ? x : bv[j];
      bi[j] = b ? at : bi[j];
    }
  };
  int64_t j0 = 0;
  for (; j0 + V <= C; j0 += V) {
    val_t bv[V];
    P bi[V];
    for (int64_t j = 0; j < V; ++j) {
      bv[j] = v[j0 + j];
      bi[j] = ix[j0 + j];
    }
    step(bv, bi, r0 + j0, r);
    step(bv, bi, r1 + j0, static_cast<P>(r + 1));
    step(bv, bi, r2 + j0, static_cast<P>(r + 2));
    step(bv, bi, r3 + j0, static_cast<P>(r + 3));
    for (int64_t j = 0; j < V; ++j) {
      v[j0 + j] = bv[j];
      ix[j0 + j] = bi[j];
    }
  }
  const in_t* rows[4] = {r0, r1, r2, r3};
  for (; j0 < C; ++j0)
    for (int k = 0; k < 4; ++k) {
      const val_t x = op.load(rows[k][j0]);
      if (op.better(x, v[j0])) {
        v[j0] = x;
        ix[j0] = static_cast<P>(r + k);
      }
    }
}

template <typename Op, typename P>
TL_TARGET_CLONES void best_rows_contiguous(const Op& op, const typename Op::in_t* row, int64_t C, P r,
                                           val_of<Op>* v, P* ix) {
#pragma omp simd
  for (int64_t j = 0; j < C; ++j) {
    val_of<Op> x = op.load(row[j]);
    bool b = op.better(x, v[j]);
    v[j] = b ? x : v[j];
    ix[j] = b ? r : ix[j];
  }
}

template <typename Op, typename P>
void best_rows_at(const Op& op, const typename Op::in_t* p, int64_t C, int64_t sw, const std::vector<Dim>& rd,
                  int64_t rb, int64_t re, val_of<Op>* v, P* ix) {
  Walker w(rd, rb);
  for (int64_t j = 0; j < C; ++j) {
    v[j] = op.load(p[w.offset + j * sw]);
    ix[j] = 0;
  }
  w.next();
  int64_t r = rb + 1;
  if (sw == 1) {
    for (; r + 4 <= re; r += 4) {
      const typename Op::in_t* r0 = p + w.offset;
      w.next();
      const typename Op::in_t* r1 = p + w.offset;
      w.next();
      const typename Op::in_t* r2 = p + w.offset;
      w.next();
      const typename Op::in_t* r3 = p + w.offset;
      w.next();
      best_rows4_contiguous(op, r0, r1, r2, r3, C, static_cast<P>(r - rb), v, ix);
    }
  }
  for (; r < re; ++r, w.next()) {
    const typename Op::in_t* row = p + w.offset;
    const P at = static_cast<P>(r - rb);
    if (sw == 1) {
      best_rows_contiguous(op, row, C, at, v, ix);
    } else {
      for (int64_t j = 0; j < C; ++j) {
        val_of<Op> x = op.load(row[j * sw]);
        if (op.better(x, v[j])) {
          v[j] = x;
          ix[j] = at;
        }
      }
    }
  }
}

// Rows [rb, re) of the reduction space folded into C outputs: best values v, first positions ix.
// Positions are kept in int32 when the rows allow (half the traffic of int64, and as many lanes
// as the float values).
template <typename Op>
void best_rows(const Op& op, const typename Op::in_t* p, int64_t C, int64_t sw, const std::vector<Dim>& rd,
               int64_t rb, int64_t re, val_of<Op>* v, int64_t* ix) {
  if (re - rb <= std::numeric_limits<int32_t>::max()) {
    int32_t at[kBlock];
    best_rows_at(op, p, C, sw, rd, rb, re, v, at);
    for (int64_t j = 0; j < C; ++j) ix[j] = rb + at[j];
  } else {
    best_rows_at(op, p, C, sw, rd, rb, re, v, ix);
    for (int64_t j = 0; j < C; ++j) ix[j] += rb;
  }
}

// vals[k], idx[k]: best value of output k and its first position. Requires g.length > 0.
template <typename Op>
void reduce_with_index(const Op& op, const typename Op::in_t* base, const Geometry& g, val_of<Op>* vals,
                       int64_t* idx) {
  using val_t = val_of<Op>;
  const Plan plan = make_plan(g);
  const int64_t K = g.outputs, R = g.length, nc = plan.chunks;
  Scratch<val_t> pv(nc > 1 ? K * nc : 0);
  Scratch<int64_t> pi(nc > 1 ? K * nc : 0);
  auto merge = [&](int64_t o) {  // inner plan: output o's chunks are neighbours
    val_t v = pv[o * nc];
    int64_t ix = pi[o * nc];
    for (int64_t c = 1; c < nc; ++c) {
      if (op.better(pv[o * nc + c], v)) {
        v = pv[o * nc + c];
        ix = pi[o * nc + c];
      }
    }
    vals[o] = v;
    idx[o] = ix;
  };
  if (!plan.outer) {
    parallel_for(0, plan.tasks, plan.grain, [&](int64_t tb, int64_t te) {
      int64_t o = tb / nc;
      Walker w(g.kept_in, o);
      for (int64_t t = tb; t < te; ++t) {
        for (; o < t / nc; ++o) w.next();
        int64_t c = t % nc;
        val_t v;
        int64_t ix;
        best_range(op, base + w.offset, g.red, chunk_bound(R, c, nc), chunk_bound(R, c + 1, nc), v, ix);
        if (nc == 1) {
          vals[o] = v;
          idx[o] = ix;
        } else {
          pv[t] = v;
          pi[t] = ix;
        }
      }
    });
    if (nc > 1)
      for (int64_t o = 0; o < K; ++o) merge(o);
    return;
  }
  const OuterDims od = outer_dims(g, plan);
  const int64_t W = od.vin.size;
  parallel_for(0, plan.tasks, plan.grain, [&](int64_t tb, int64_t te) {
    val_t bv[kBlock];
    int64_t bi[kBlock];
    for (int64_t t = tb; t < te; ++t) {
      int64_t c = t % nc, bt = t / nc, oo = bt / plan.blocks, wb = bt % plan.blocks;
      Walker win(od.rest_in, oo), wout(od.rest_out, oo);
      int64_t j0 = wb * kBlock, C = std::min(kBlock, W - j0);
      best_rows(op, base + win.offset + j0 * od.vin.stride, C, od.vin.stride, g.red, chunk_bound(R, c, nc),
                chunk_bound(R, c + 1, nc), bv, bi);
      val_t* dv = nc == 1 ? vals : pv.data() + c * K;
      int64_t* di = nc == 1 ? idx : pi.data() + c * K;
      for (int64_t j = 0; j < C; ++j) {
        int64_t at = wout.offset + (j0 + j) * od.vout.stride;
        dv[at] = bv[j];
        di[at] = bi[j];
      }
    }
  });
  if (nc > 1) {  // chunk by chunk, so the partials are read in memory order
    for (int64_t o = 0; o < K; ++o) {
      vals[o] = pv[o];
      idx[o] = pi[o];
    }
    for (int64_t c = 1; c < nc; ++c)
      for (int64_t o = 0; o < K; ++o)
        if (op.better(pv[c * K + o], vals[o])) {
          vals[o] = pv[c * K + o];
          idx[o] = pi[c * K + o];
        }
  }
}

}  // namespace tl::native::reduce
