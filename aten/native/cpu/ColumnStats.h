// Per-column statistics of a row-major [N, C] matrix: batch_norm's 2-d layout, where the channel is the
// contiguous dim. Both loops stream whole rows (contiguous memory, so the prefetchers run ahead), accumulate
// into C-wide vector accumulators, and cut the rows into a fixed number of groups (kGroups, not the thread
// count, so the results do not depend on the number of threads) that run in parallel and are merged in order.
//
// column_moments: mean and M2 (sum of squared deviations) in ONE pass over memory. Each group takes its rows
// in sub-chunks small enough to stay in L2; a sub-chunk gets the corrected two-pass moments (its second
// read hits the cache) and is merged into the group's running moments with Chan et al.'s pairwise formula,
// as are the groups at the end. Accurate like the two-pass algorithm over the whole column (a constant
// column gets its value as the mean and M2 == 0), at the memory traffic of one pass.
//
// column_sums: sum over rows of f1(i, c) and f2(i, c) (i the flat element index), in one pass.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
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

// Merges moments (nb, mb[j], qb[j]) into (na, ma[j], qa[j]) (Chan et al.).
template <typename acc_t>
TL_ALWAYS_INLINE void merge(acc_t na, acc_t* ma, acc_t* qa, acc_t nb, const acc_t* mb, const acc_t* qb, int64_t w) {
  const acc_t n = na + nb, fb = nb / n, fab = na * nb / n;
#pragma omp simd
  for (int64_t j = 0; j < w; ++j) {
    const acc_t delta = mb[j] - ma[j];
    ma[j] += delta * fb;
    qa[j] += qb[j] + delta * delta * fab;
  }
}

// The moments of rows [r0, r1) of columns [c0, c0 + w) into mean[0..w) and m2[0..w).
template <typename T>
TL_TARGET_CLONES void group_moments(const T* x, int64_t C, int64_t r0, int64_t r1, int64_t c0, int64_t w,
                                    opmath_t<T>* mean, opmath_t<T>* m2) {
  using acc_t = opmath_t<T>;
  using norm::ld;
  acc_t cm[kColBlock], t1[kColBlock], t2[kColBlock];
  const int64_t rows = std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(w * sizeof(T)));
  acc_t done = 0;
  for (int64_t a = r0; a < r1; a += rows) {
    const int64_t b = std::min(r1, a + rows);
    const acc_t nr = static_cast<acc_t>(b - a);
    for (int64_t j = 0; j < w; ++j) cm[j] = t1[j] = t2[j] = 0;
    for (int64_t r = a; r < b; ++r) {
      const T* row = x + r * C + c0;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) cm[j] += ld(row, j);
    }
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) cm[j] /= nr;
    for (int64_t r = a; r < b; ++r) {
      const T* row = x + r * C + c0;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        const acc_t d = ld(row, j) - cm[j];
        t1[j] += d;
        t2[j] += d * d;
      }
    }
    // The corrected two-pass moments of the sub-chunk.
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      cm[j] += t1[j] / nr;
      t2[j] -= t1[j] * t1[j] / nr;
    }
    if (done == 0) {
      std::copy(cm, cm + w, mean);
      std::copy(t2, t2 + w, m2);
    } else {
      merge<acc_t>(done, mean, m2, nr, cm, t2, w);
    }
    done += nr;
  }
}

// mean[c] and m2[c] (sum of squared deviations) of each column of the row-major [N, C] matrix x (N >= 1).
template <typename T>
void column_moments(const T* x, int64_t N, int64_t C, opmath_t<T>* mean, opmath_t<T>* m2) {
  using acc_t = opmath_t<T>;
  const Split s = split(N, C);
  std::vector<acc_t> gm(s.groups * C), gq(s.groups * C);
  for_each_task(N, C, s, [&](int64_t g, int64_t c0, int64_t w) {
    group_moments<T>(x, C, s.rows_lo(g, N), s.rows_lo(g + 1, N), c0, w, gm.data() + g * C + c0,
                     gq.data() + g * C + c0);
  });
  std::copy(gm.begin(), gm.begin() + C, mean);
  std::copy(gq.begin(), gq.begin() + C, m2);
  acc_t done = static_cast<acc_t>(s.rows_lo(1, N));
  for (int64_t g = 1; g < s.groups; ++g) {
    const acc_t ng = static_cast<acc_t>(s.rows_lo(g + 1, N) - s.rows_lo(g, N));
    merge<acc_t>(done, mean, m2, ng, gm.data() + g * C, gq.data() + g * C, C);
    done += ng;
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
  for (int64_t r = r0; r < r1; ++r) {
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
