// Loops shared by the normalization kernels (NormalizationKernels.cpp, BatchNormKernels.cpp,
// GroupNormKernels.cpp): sums over contiguous runs with kLanes independent accumulators (they
// vectorize without reassociating float sums behind the compiler's back, as SoftmaxKernels.cpp's),
// and the per-run affine pass `a * p + b * q + r`. Everything computes in opmath (float for
// float16/bfloat16/float32, double for float64).
#pragma once
#include <cstdint>

#include "aten/core/ScalarType.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native::norm {

constexpr int64_t kLanes = 16;

template <typename T>
TL_ALWAYS_INLINE opmath_t<T> ld(const T* p, int64_t i) { return static_cast<opmath_t<T>>(p[i]); }

// Runs of at least kLanes * kBlocks elements first go kBlocks vectors at a time, each block with its own
// kLanes accumulators: one vector of accumulators would make every add wait for the previous one's
// latency (3-4 cycles); kBlocks independent ones keep the adders busy.
constexpr int64_t kBlocks = 4;

template <typename acc_t, typename F>
TL_ALWAYS_INLINE acc_t lane_sum(int64_t n, const F& f) {
  acc_t acc[kBlocks][kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes * kBlocks <= n; i += kLanes * kBlocks)
    for (int64_t k = 0; k < kBlocks; ++k)
      for (int64_t j = 0; j < kLanes; ++j) acc[k][j] += f(i + k * kLanes + j);
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) acc[0][j] += f(i + j);
  acc_t tail = 0;
  for (; i < n; ++i) tail += f(i);
  for (int64_t j = 0; j < kLanes; ++j) acc[0][j] = (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]);
  for (int64_t w = kLanes / 2; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) acc[0][j] += acc[0][j + w];
  return acc[0][0] + tail;
}

// out[i] = a[i] * p + (b ? b[i] * q : 0) + r over a contiguous run of n elements.
template <typename T>
TL_TARGET_CLONES void affine_run(const T* a, const T* b, opmath_t<T> p, opmath_t<T> q, opmath_t<T> r, int64_t n, T* out) {
  if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(ld(a, i) * p + ld(b, i) * q + r);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(ld(a, i) * p + r);
  }
}

// sum(a) and sum(a * b) over a contiguous run (the two sums of a backward pass).
template <typename T>
TL_TARGET_CLONES void run_sums(const T* a, const T* b, int64_t n, opmath_t<T>* sum_a, opmath_t<T>* sum_ab) {
  using acc_t = opmath_t<T>;
  *sum_a = lane_sum<acc_t>(n, [&](int64_t i) { return ld(a, i); });
  *sum_ab = lane_sum<acc_t>(n, [&](int64_t i) { return ld(a, i) * ld(b, i); });
}

// mean and the sum of squared deviations from it of a contiguous run: the corrected two-pass algorithm
// (the deviations' own sum refines the mean and removes the first pass's rounding from m2), so a
// constant run gets its value back as the mean and a zero m2.
template <typename T>
TL_TARGET_CLONES void run_moments(const T* x, int64_t n, opmath_t<T>* mean, opmath_t<T>* m2) {
  using acc_t = opmath_t<T>;
  const acc_t nn = static_cast<acc_t>(n);
  const acc_t m = lane_sum<acc_t>(n, [&](int64_t i) { return ld(x, i); }) / nn;
  // The deviations' sum and sum of squares in one pass, each with its own accumulators (as lane_sum's).
  acc_t a1[kBlocks][kLanes] = {}, a2[kBlocks][kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes * kBlocks <= n; i += kLanes * kBlocks)
    for (int64_t k = 0; k < kBlocks; ++k)
      for (int64_t j = 0; j < kLanes; ++j) {
        const acc_t d = ld(x, i + k * kLanes + j) - m;
        a1[k][j] += d;
        a2[k][j] += d * d;
      }
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) {
      const acc_t d = ld(x, i + j) - m;
      a1[0][j] += d;
      a2[0][j] += d * d;
    }
  acc_t t1 = 0, t2 = 0;
  for (; i < n; ++i) {
    const acc_t d = ld(x, i) - m;
    t1 += d;
    t2 += d * d;
  }
  for (int64_t j = 0; j < kLanes; ++j) {
    a1[0][j] = (a1[0][j] + a1[1][j]) + (a1[2][j] + a1[3][j]);
    a2[0][j] = (a2[0][j] + a2[1][j]) + (a2[2][j] + a2[3][j]);
  }
  for (int64_t w = kLanes / 2; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) a1[0][j] += a1[0][j + w], a2[0][j] += a2[0][j + w];
  const acc_t sd = a1[0][0] + t1, sd2 = a2[0][0] + t2;
  *mean = m + sd / nn;
  *m2 = sd2 - sd * sd / nn;
}

}  // namespace tl::native::norm
