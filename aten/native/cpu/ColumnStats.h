// Per-column statistics of a row-major [N, C] matrix: batch_norm's 2-d layout, where the channel is the
// contiguous dim. Both loops stream whole rows (contiguous memory, so the prefetchers run ahead), accumulate
// into C-wide vector accumulators, and cut the rows into a fixed number of groups (kGroups, not the thread
// count, so the results do not depend on the number of threads) that run in parallel and are merged in order.
//
// column_moments: mean and M2 (sum of squared deviations) in ONE pass over memory. Each group takes its rows
// in sub-chunks of ~96 KB; a sub-chunk's moments are its deviations' sums around the group's running mean
// (its own mean, from a second read in L2, for the group's first sub-chunk), merged into the group's
// running moments with Chan et al.'s pairwise formula, as are the groups at the end; running means are
// kept as hi + lo pairs, so the merges do not subtract two rounded means. Accurate like the
// two-pass algorithm over the whole column (a constant column gets its value as the mean and M2 == 0), at
// the memory traffic of one pass and one read of most of the data.
//
// column_sums: sum over rows of f1(i, c) and f2(i, c) (i the flat element index), in one pass, four rows
// per accumulator update.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/core/ScalarType.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native::colstat {

constexpr int64_t kGroups = 16;          // row groups, merged in order
constexpr int64_t kColBlock = 2048;      // columns per task (accumulators stay in L1/L2)
constexpr int64_t kChunkBytes = 96 * 1024;  // one sub-chunk of rows x columns, re-read from L2

struct Split {
  int64_t groups, cblocks;
  int64_t rows_lo(int64_t g, int64_t N) const { return g * N / groups; }
};

inline Split split(int64_t N, int64_t C) {
  Split s;
  s.groups = std::max<int64_t>(1, std::min<int64_t>(kGroups, N));
  s.cblocks = (C + kColBlock - 1) / kColBlock;
  return s;
}

// Runs f(group, c0, w) over every (row group, column block), in parallel when the matrix is large.
template <typename F>
void for_each_task(int64_t N, int64_t C, const Split& s, const F& f) {
  const int64_t tasks = s.groups * s.cblocks;
  const int64_t grain = N * C >= 4 * kGrainSize ? 1 : tasks;
  parallel_for(0, tasks, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t g = t / s.cblocks, c0 = (t % s.cblocks) * kColBlock;
      f(g, c0, std::min(kColBlock, C - c0));
    }
  });
}

// A running mean is kept as an unevaluated sum hi + lo (lo small): hi is the shift the data are read
// around, and the difference of two means, (hi_b - hi_a) + (lo_b - lo_a), keeps its digits when the means
// are far from zero (the difference of two rounded means lost them: a float32 channel at 1e4 with spread 1
// got its variance 2e-4 off).
template <typename acc_t>
TL_ALWAYS_INLINE void renormalize(acc_t& hi, acc_t& lo) {
  const acc_t s = hi + lo;
  lo -= s - hi;
  hi = s;
}

// Merges moments (nb, hb + lb, qb) into (na, ha + la, qa), column by column (Chan et al.).
template <typename acc_t>
TL_ALWAYS_INLINE void merge(acc_t na, acc_t* ha, acc_t* la, acc_t* qa, acc_t nb, const acc_t* hb, const acc_t* lb,
                            const acc_t* qb, int64_t w) {
  const acc_t n = na + nb, fb = nb / n, fab = na * nb / n;
#pragma omp simd
  for (int64_t j = 0; j < w; ++j) {
    const acc_t delta = (hb[j] - ha[j]) + (lb[j] - la[j]);
    qa[j] += qb[j] + delta * delta * fab;
    la[j] += delta * fb;
    renormalize(ha[j], la[j]);
  }
}

// t1[j] += sum of (x - k[j]) and t2[j] += sum of (x - k[j])^2 over rows [a, b) of columns c0 + j. Eight
// rows per step (then four, then one): the accumulators (memory, C wide) are loaded and stored once per eight
// rows of x, and the eight rows are eight concurrent read streams, each in its own page when a row is >= 4 KB:
// the hardware prefetchers stop at page ends, so more streams in flight keep more misses outstanding (a
// 4096x1024 float32 pass from memory: 0.72 ms with eight rows, 1.12 ms with four, one thread;
// docs/kernels/normalization.md).
template <typename T>
TL_ALWAYS_INLINE void shifted_sums(const T* x, int64_t C, int64_t a, int64_t b, int64_t c0, int64_t w,
                                   const opmath_t<T>* k, opmath_t<T>* t1, opmath_t<T>* t2) {
  using acc_t = opmath_t<T>;
  using norm::ld;
  int64_t r = a;
  for (; r + 8 <= b; r += 8) {
    const T* x0 = x + r * C + c0;
    const T* x1 = x0 + C;
    const T* x2 = x1 + C;
    const T* x3 = x2 + C;
    const T* x4 = x3 + C;
    const T* x5 = x4 + C;
    const T* x6 = x5 + C;
    const T* x7 = x6 + C;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const acc_t d0 = ld(x0, j) - k[j], d1 = ld(x1, j) - k[j], d2 = ld(x2, j) - k[j], d3 = ld(x3, j) - k[j];
      const acc_t d4 = ld(x4, j) - k[j], d5 = ld(x5, j) - k[j], d6 = ld(x6, j) - k[j], d7 = ld(x7, j) - k[j];
      t1[j] += ((d0 + d1) + (d2 + d3)) + ((d4 + d5) + (d6 + d7));
      t2[j] += ((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3)) + ((d4 * d4 + d5 * d5) + (d6 * d6 + d7 * d7));
    }
  }
  for (; r + 4 <= b; r += 4) {
    const T* x0 = x + r * C + c0;
    const T* x1 = x0 + C;
    const T* x2 = x1 + C;
    const T* x3 = x2 + C;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const acc_t d0 = ld(x0, j) - k[j], d1 = ld(x1, j) - k[j], d2 = ld(x2, j) - k[j], d3 = ld(x3, j) - k[j];
      t1[j] += (d0 + d1) + (d2 + d3);
      t2[j] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
    }
  }
  for (; r < b; ++r) {
    const T* x0 = x + r * C + c0;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const acc_t d = ld(x0, j) - k[j];
      t1[j] += d;
      t2[j] += d * d;
    }
  }
}

// The moments of rows [r0, r1) of columns [c0, c0 + w): mean hi[j] + lo[j], m2[j]. A sub-chunk's moments
// are the shifted sums around k: mean = k + t1 / n, M2 = t2 - t1^2 / n (exact for any k; the rounding is small
// when k is near the sub-chunk's mean). The first sub-chunk takes its own mean as k (one extra read, from
// L2: the corrected two-pass algorithm); every later one takes the running mean's hi, so it is read once,
// and its mean's difference from the running mean is t1 / n - lo, without cancellation.
template <typename T>
TL_TARGET_CLONES void group_moments(const T* x, int64_t C, int64_t r0, int64_t r1, int64_t c0, int64_t w,
                                    opmath_t<T>* hi, opmath_t<T>* lo, opmath_t<T>* m2) {
  using acc_t = opmath_t<T>;
  using norm::ld;
  acc_t cm[kColBlock], t1[kColBlock], t2[kColBlock];
  const int64_t rows = std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(w * sizeof(T)));
  acc_t done = 0;
  for (int64_t a = r0; a < r1; a += rows) {
    const int64_t b = std::min(r1, a + rows);
    const acc_t nr = static_cast<acc_t>(b - a);
    for (int64_t j = 0; j < w; ++j) t1[j] = t2[j] = 0;
    if (done == 0) {
      for (int64_t j = 0; j < w; ++j) cm[j] = 0;
      int64_t r = a;
      for (; r + 8 <= b; r += 8) {  // eight read streams, as shifted_sums (this read is the one from memory)
        const T* x0 = x + r * C + c0;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j)
          cm[j] += ((ld(x0, j) + ld(x0 + C, j)) + (ld(x0 + 2 * C, j) + ld(x0 + 3 * C, j))) +
                   ((ld(x0 + 4 * C, j) + ld(x0 + 5 * C, j)) + (ld(x0 + 6 * C, j) + ld(x0 + 7 * C, j)));
      }
      for (; r < b; ++r) {
        const T* row = x + r * C + c0;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) cm[j] += ld(row, j);
      }
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) cm[j] /= nr;
      shifted_sums<T>(x, C, a, b, c0, w, cm, t1, t2);
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        hi[j] = cm[j];
        lo[j] = t1[j] / nr;
        m2[j] = t2[j] - t1[j] * lo[j];
        renormalize(hi[j], lo[j]);
      }
    } else {
      shifted_sums<T>(x, C, a, b, c0, w, hi, t1, t2);
      const acc_t n = done + nr, fb = nr / n, fab = done * nr / n;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        const acc_t d = t1[j] / nr, delta = d - lo[j];
        m2[j] += (t2[j] - t1[j] * d) + delta * delta * fab;
        lo[j] += delta * fb;
        renormalize(hi[j], lo[j]);
      }
    }
    done += nr;
  }
}

// Merges the groups' moments (gh + gl, gq: s.groups rows of C) in order into their first row. Cloned for the
// vector ISAs (the merges run C wide, once per group).
template <typename acc_t>
TL_TARGET_CLONES void merge_groups(int64_t N, int64_t C, const Split& s, acc_t* gh, acc_t* gl, acc_t* gq) {
  acc_t done = static_cast<acc_t>(s.rows_lo(1, N));
  for (int64_t g = 1; g < s.groups; ++g) {
    const acc_t ng = static_cast<acc_t>(s.rows_lo(g + 1, N) - s.rows_lo(g, N));
    merge<acc_t>(done, gh, gl, gq, ng, gh + g * C, gl + g * C, gq + g * C, C);
    done += ng;
  }
}

// mean[c] and m2[c] (sum of squared deviations) of each column of the row-major [N, C] matrix x (N >= 1).
template <typename T>
void column_moments(const T* x, int64_t N, int64_t C, opmath_t<T>* mean, opmath_t<T>* m2) {
  using acc_t = opmath_t<T>;
  const Split s = split(N, C);
  // Not zeroed: group_moments writes every element of its (group, column block).
  std::unique_ptr<acc_t[]> buf(new acc_t[3 * s.groups * C]);
  acc_t *gh = buf.get(), *gl = gh + s.groups * C, *gq = gl + s.groups * C;
  for_each_task(N, C, s, [&](int64_t g, int64_t c0, int64_t w) {
    const int64_t o = g * C + c0;
    group_moments<T>(x, C, s.rows_lo(g, N), s.rows_lo(g + 1, N), c0, w, gh + o, gl + o, gq + o);
  });
  merge_groups<acc_t>(N, C, s, gh, gl, gq);
  for (int64_t c = 0; c < C; ++c) {
    mean[c] = gh[c] + gl[c];
    m2[c] = gq[c];
  }
  // Non-finite data: the deviations above turn an infinite mean into NaN (inf - inf), where PyTorch's mean
  // is the plain sum / N (inf for a column holding +inf, NaN for one holding both infinities or a NaN).
  // Rare, so one strided pass per such column.
  for (int64_t c = 0; c < C; ++c) {
    if (std::isfinite(mean[c])) continue;
    acc_t sum = 0;
    for (int64_t r = 0; r < N; ++r) sum += static_cast<acc_t>(x[r * C + c]);
    mean[c] = sum / static_cast<acc_t>(N);
  }
}

// Sums over rows [r0, r1) of f1(i, c) (and f2) for columns [c0, c0 + w), i = r * C + c.
template <typename T, bool Two, typename F1, typename F2>
TL_TARGET_CLONES void group_sums(int64_t C, int64_t r0, int64_t r1, int64_t c0, int64_t w, opmath_t<T>* s1,
                                 opmath_t<T>* s2, const F1& f1, const F2& f2) {
  using acc_t = opmath_t<T>;
  acc_t a1[kColBlock], a2[kColBlock];
  for (int64_t j = 0; j < w; ++j) a1[j] = a2[j] = 0;
  int64_t r = r0;
  // Four rows per step: the accumulators are loaded and stored once per four rows.
  for (; r + 4 <= r1; r += 4) {
    const int64_t b0 = r * C + c0, b1 = b0 + C, b2 = b1 + C, b3 = b2 + C;
    if constexpr (Two) {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        a1[j] += (f1(b0 + j, c0 + j) + f1(b1 + j, c0 + j)) + (f1(b2 + j, c0 + j) + f1(b3 + j, c0 + j));
        a2[j] += (f2(b0 + j, c0 + j) + f2(b1 + j, c0 + j)) + (f2(b2 + j, c0 + j) + f2(b3 + j, c0 + j));
      }
    } else {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j)
        a1[j] += (f1(b0 + j, c0 + j) + f1(b1 + j, c0 + j)) + (f1(b2 + j, c0 + j) + f1(b3 + j, c0 + j));
    }
  }
  for (; r < r1; ++r) {
    const int64_t base = r * C + c0;
    if constexpr (Two) {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        a1[j] += f1(base + j, c0 + j);
        a2[j] += f2(base + j, c0 + j);
      }
    } else {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) a1[j] += f1(base + j, c0 + j);
    }
  }
  std::copy(a1, a1 + w, s1);
  if constexpr (Two) std::copy(a2, a2 + w, s2);
}

// out1[c] = sum over rows of f1(i, c), out2[c] likewise of f2 (unused unless Two).
template <typename T, bool Two, typename F1, typename F2>
void column_sums(int64_t N, int64_t C, opmath_t<T>* out1, opmath_t<T>* out2, const F1& f1, const F2& f2) {
  using acc_t = opmath_t<T>;
  const Split s = split(N, C);
  std::vector<acc_t> g1(s.groups * C), g2(Two ? s.groups * C : 0);
  for_each_task(N, C, s, [&](int64_t g, int64_t c0, int64_t w) {
    group_sums<T, Two>(C, s.rows_lo(g, N), s.rows_lo(g + 1, N), c0, w, g1.data() + g * C + c0,
                       Two ? g2.data() + g * C + c0 : nullptr, f1, f2);
  });
  for (int64_t c = 0; c < C; ++c) {
    acc_t a = 0, b = 0;
    for (int64_t g = 0; g < s.groups; ++g) {
      a += g1[g * C + c];
      if constexpr (Two) b += g2[g * C + c];
    }
    out1[c] = a;
    if constexpr (Two) out2[c] = b;
  }
}

}  // namespace tl::native::colstat
