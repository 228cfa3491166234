// The K-dimensional blocks of the fused cross_entropy kernels (CrossEntropyColumns.h). Every loop over j runs
// across a block's positions (contiguous in memory for one class) and carries `omp simd`; the per-class loops
// read one run of the block at a time, so the passes over the block find it in L1.
// GCC (12) left the exp loops below scalar on AVX2 (the x86-64-v3 clones): jump threading gave the exp's clamp
// branches (ExpFloatLanes.h) paths of constant x, whose folded 2^k products over- or underflow, so under the default
// -ftrapping-math the branches could not become selects ("control flow in loop"; the AVX-512 clones vectorized with
// masks). No code here reads the floating-point exception flags; the results are bit for bit the same (softmax
// 4096x1024 on AVX2: 17.5 -> 4.9 ms on one thread).
#pragma GCC optimize("no-trapping-math")
#include "aten/native/cpu/CrossEntropyColumns.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "aten/native/cpu/ExpFloatLanes.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native {

namespace {

template <typename T>
TL_ALWAYS_INLINE T vexp(T x) {
  if constexpr (std::is_same_v<T, double>) return vec::exp_f64(x);
  else return vec::exp_float_lanes(x);
}

// Each position's max (mx[j]) and log(sum(exp(x - max))) (ls[j]), as log_softmax computes them: the forward's, and
// the backward's where the saved lse has lost log_sum (below).
template <typename T>
TL_ALWAYS_INLINE void max_log_sum(int64_t C, int64_t S, const T* x, int64_t w, T* mx, T* ls) {
  T sum[kCeColumns];
  for (int64_t j = 0; j < kCeColumns; ++j) mx[j] = -std::numeric_limits<T>::infinity(), sum[j] = 0;
  // The max ignores NaN (`v > m ? v : m`), as the rows' max instruction; a NaN then makes the sum NaN.
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * S;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) mx[j] = xc[j] > mx[j] ? xc[j] : mx[j];
  }
  // Sums in the input's dtype, as the AVX-512 rows and log_softmax's vectorized loops sum (a conversion to double
  // in this loop kept GCC from vectorizing the exp: 2x PyTorch's time).
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * S;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) sum[j] += vexp<T>(xc[j] - mx[j]);
  }
  // log in double lanes (1 ulp, then rounded to T): a libm call per position was a third of the time for C = 5.
#pragma omp simd
  for (int64_t j = 0; j < w; ++j) ls[j] = static_cast<T>(vec::log_f64(static_cast<double>(sum[j])));
}

template <typename T>
TL_TARGET_CLONES void columns_forward(const CeColumnArgs<T>& a, const T* x, int64_t w, const int64_t* t, const T* p,
                                      double* lse, double* loss) {
  const int64_t C = a.classes, S = a.stride;
  const T* wt = a.weight;
  const double s = a.smoothing, sc = C > 0 ? s / static_cast<double>(C) : 0.0;
  const T a1 = static_cast<T>(1.0 - s), b1 = static_cast<T>(sc);  // q_c = w_c * (a1 * p_c + b1)
  T mx[kCeColumns], ls[kCeColumns];
  max_log_sum(C, S, x, w, mx, ls);
  for (int64_t j = 0; j < w; ++j) lse[j] = static_cast<double>(mx[j]) + static_cast<double>(ls[j]);
  // acc[j]: sum_c q_c * -log_softmax_c, with -log_softmax = log_sum - (x - max) rounded as log_softmax rounds it
  // (summed in the input's dtype, as the AVX-512 rows).
  T acc[kCeColumns] = {};
  if (t) {
    if (s > 0) {
      for (int64_t c = 0; c < C; ++c) {
        const T* xc = x + c * S;
        const T wc = wt ? wt[c] : T(1);
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) acc[j] += wc * (ls[j] - (xc[j] - mx[j]));
      }
    }
    // nll_loss's term in the input dtype, then the smoothing term against the uniform distribution; branch-free (an
    // ignored position reads class 0 and is dropped by the select) so the loop vectorizes with gathers.
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const bool ignored = t[j] == a.ignore_index;
      const int64_t tc = ignored ? 0 : t[j];
      const T aw = wt ? wt[tc] : T(1);
      double v = static_cast<double>(aw * (ls[j] - (x[tc * S + j] - mx[j]))) * (1.0 - s);
      if (s > 0) v += sc * static_cast<double>(acc[j]);
      loss[j] = ignored ? 0.0 : v;
    }
    return;
  }
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * S;
    const T* pc = p + c * S;
    const T wc = wt ? wt[c] : T(1);
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) acc[j] += (pc[j] * a1 + b1) * wc * (ls[j] - (xc[j] - mx[j]));
  }
  for (int64_t j = 0; j < w; ++j) loss[j] = static_cast<double>(acc[j]);
}

template <typename T>
TL_TARGET_CLONES void columns_backward(const CeColumnArgs<T>& a, const T* x, T* gi, int64_t w, const int64_t* t,
                                       const T* p, const T* g, const double* lse) {
  const int64_t C = a.classes, S = a.stride;
  const T* wt = a.weight;
  const T s = static_cast<T>(a.smoothing), sc = C > 0 ? static_cast<T>(a.smoothing / C) : T(0);
  // lse = hi + lo, hi the float nearest it: x - hi is exact for the classes near the max.
  T hi[kCeColumns], lo[kCeColumns];
  for (int64_t j = 0; j < w; ++j) {
    hi[j] = static_cast<T>(lse[j]);
    lo[j] = static_cast<T>(lse[j] - static_cast<double>(hi[j]));
  }
  // Beyond 2^23 the double lse = max + log_sum keeps log_sum to less than 2^-29 (at 1e30 none of it: equal logits
  // got exp(0) = 1 instead of 1 / C). Such positions recompute max and log_sum from x, as the forward did, and take
  // exp((x - max) - log_sum), log_softmax's own rounding; the others keep lse, so a position's result does not
  // depend on its neighbours. (NaN lse stays on the plain path and gives NaN, as the recomputed one would.)
  bool any_far = false;
  for (int64_t j = 0; j < w; ++j) any_far |= std::abs(lse[j]) > 8388608.0;
  if (any_far) {
    T mx[kCeColumns], ls[kCeColumns];
    max_log_sum(C, S, x, w, mx, ls);
    for (int64_t j = 0; j < w; ++j)
      if (std::abs(lse[j]) > 8388608.0) hi[j] = mx[j], lo[j] = ls[j];
  }
  if (t) {
    // gi = A * exp(x - lse) - B * w_c, less `at` at the target; an ignored position's column is 0 (keep 0).
    T wsum = 0;
    if (wt) {
      double ws = 0;
      for (int64_t c = 0; c < C; ++c) ws += static_cast<double>(wt[c]);
      wsum = static_cast<T>(ws);
    } else {
      wsum = static_cast<T>(C);
    }
    T A[kCeColumns], B[kCeColumns], at[kCeColumns], keep[kCeColumns];
    for (int64_t j = 0; j < w; ++j) {
      const bool ignored = t[j] == a.ignore_index;
      const T aw = ignored ? T(0) : (wt ? wt[t[j]] : T(1));
      A[j] = g[j] * ((1 - s) * aw + sc * wsum);
      B[j] = g[j] * sc;
      at[j] = g[j] * (1 - s) * aw;
      keep[j] = ignored ? T(0) : T(1);
    }
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = x + c * S;
      T* gc = gi + c * S;
      const T wc = wt ? wt[c] : T(1);
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        const T v = A[j] * vexp<T>((xc[j] - hi[j]) - lo[j]) - B[j] * wc;
        gc[j] = keep[j] != T(0) ? v : T(0);
      }
    }
    for (int64_t j = 0; j < w; ++j)
      if (keep[j] != T(0)) gi[t[j] * S + j] -= at[j];
    return;
  }
  // Probabilities: q_c = w_c * ((1 - s) * p_c + s / C), Q = sum_c q_c.
  T Q[kCeColumns] = {};
  for (int64_t c = 0; c < C; ++c) {
    const T* pc = p + c * S;
    const T wc = wt ? wt[c] : T(1);
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) Q[j] += wc * ((1 - s) * pc[j] + sc);
  }
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * S;
    const T* pc = p + c * S;
    T* gc = gi + c * S;
    const T wc = wt ? wt[c] : T(1);
#pragma omp simd
    for (int64_t j = 0; j < w; ++j)
      gc[j] = g[j] * (Q[j] * vexp<T>((xc[j] - hi[j]) - lo[j]) - wc * ((1 - s) * pc[j] + sc));
  }
}

}  // namespace

void cross_entropy_columns_forward(const CeColumnArgs<float>& a, const float* x, int64_t w, const int64_t* t,
                                   const float* p, double* lse, double* loss) {
  columns_forward(a, x, w, t, p, lse, loss);
}
void cross_entropy_columns_forward(const CeColumnArgs<double>& a, const double* x, int64_t w, const int64_t* t,
                                   const double* p, double* lse, double* loss) {
  columns_forward(a, x, w, t, p, lse, loss);
}
void cross_entropy_columns_backward(const CeColumnArgs<float>& a, const float* x, float* gi, int64_t w,
                                    const int64_t* t, const float* p, const float* g, const double* lse) {
  columns_backward(a, x, gi, w, t, p, g, lse);
}
void cross_entropy_columns_backward(const CeColumnArgs<double>& a, const double* x, double* gi, int64_t w,
                                    const int64_t* t, const double* p, const double* g, const double* lse) {
  columns_backward(a, x, gi, w, t, p, g, lse);
}

}  // namespace tl::native
