// The float64 rows (CrossEntropyRowsF64.h): plain loops marked `omp simd` in TL_TARGET_CLONES functions, so each
// clone runs them in its widest double lanes (4 with AVX2, 8 with AVX-512).
#include "aten/native/cpu/CrossEntropyRowsF64.h"

#include <cmath>
#include <limits>

#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES, vec::exp_f64

namespace tl::native {

namespace {

TL_TARGET_CLONES double max_log_sum_impl(const double* x, int64_t n, double* log_sum) {
  double mx = -std::numeric_limits<double>::infinity();
#pragma omp simd reduction(max : mx)
  for (int64_t c = 0; c < n; ++c) mx = x[c] > mx ? x[c] : mx;
  // As log_softmax: a row of -inf, or one holding +inf or NaN, gives a NaN sum (exp of inf - inf or of NaN).
  double sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < n; ++c) sum += vec::exp_f64(x[c] - mx);
  *log_sum = std::log(sum);
  return mx;
}

TL_TARGET_CLONES double weighted_impl(const double* x, const double* w, const double* p, int64_t n, double mx,
                                      double log_sum, double a, double b) {
  double s = 0;
  if (p && w) {
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < n; ++c) s += (w[c] * (a * p[c] + b)) * (log_sum - (x[c] - mx));
  } else if (p) {
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < n; ++c) s += (a * p[c] + b) * (log_sum - (x[c] - mx));
  } else if (w) {
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < n; ++c) s += w[c] * (log_sum - (x[c] - mx));
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < n; ++c) s += log_sum - (x[c] - mx);
  }
  return s;
}

TL_TARGET_CLONES void prob_grad_impl(const double* x, const double* p, const double* w, double* gi, int64_t n,
                                     double lse, double lse_lo, double g, double a, double b) {
  double Q = 0;
  if (w) {
#pragma omp simd reduction(+ : Q)
    for (int64_t c = 0; c < n; ++c) Q += w[c] * (a * p[c] + b);
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) gi[c] = g * (Q * vec::exp_f64((x[c] - lse) - lse_lo) - w[c] * (a * p[c] + b));
  } else {
#pragma omp simd reduction(+ : Q)
    for (int64_t c = 0; c < n; ++c) Q += a * p[c] + b;
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) gi[c] = g * (Q * vec::exp_f64((x[c] - lse) - lse_lo) - (a * p[c] + b));
  }
}

TL_TARGET_CLONES void grad_impl(const double* x, double* gi, int64_t n, double lse, double lse_lo, double a, double b,
                                const double* w) {
  if (w) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) gi[c] = a * vec::exp_f64((x[c] - lse) - lse_lo) - b * w[c];
  } else {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) gi[c] = a * vec::exp_f64((x[c] - lse) - lse_lo) - b;
  }
}

}  // namespace

double max_log_sum_row_f64(const double* x, int64_t n, double* log_sum) { return max_log_sum_impl(x, n, log_sum); }

double cross_entropy_weighted_row_f64(const double* x, const double* w, const double* p, int64_t n, double mx,
                                      double log_sum, double a, double b) {
  return weighted_impl(x, w, p, n, mx, log_sum, a, b);
}

void cross_entropy_prob_grad_row_f64(const double* x, const double* p, const double* w, double* gi, int64_t n,
                                     double lse, double lse_lo, double g, double a, double b) {
  prob_grad_impl(x, p, w, gi, n, lse, lse_lo, g, a, b);
}

void cross_entropy_grad_row_f64(const double* x, double* gi, int64_t n, double lse, double lse_lo, double a, double b,
                                const double* w, int64_t t, double at_target) {
  grad_impl(x, gi, n, lse, lse_lo, a, b, w);
  // The target's column takes its one-hot term too.
  gi[t] -= at_target;
}

}  // namespace tl::native
