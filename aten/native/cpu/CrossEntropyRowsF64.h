// The fused cross_entropy kernel's contiguous float64 (N, C) rows (CrossEntropyKernels.cpp), compiled per ISA with
// loops GCC vectorizes (exp_f64 of Vectorize.h, 1 ulp): the rows' scalar loops called libm's exp per logit, which
// left 4096x1000 float64 probabilities at 1.8x PyTorch's forward time. The same terms and coefficients as the
// float32 rows (CrossEntropyProbRowsVec.h, CrossEntropyRowsVec.h); sums in the loops' lane order (fixed: the same
// result on any thread count).
#pragma once
#include <cstdint>

namespace tl::native {

// The max of a row of n > 0 doubles, returned, and log(sum(exp(x - max))) in *log_sum (NaN where log_softmax is).
double max_log_sum_row_f64(const double* x, int64_t n, double* log_sum);

// sum_c q_c * (log_sum - (x[c] - mx)), q_c = (w ? w[c] : 1) * (p ? a * p[c] + b : 1).
double cross_entropy_weighted_row_f64(const double* x, const double* w, const double* p, int64_t n, double mx,
                                      double log_sum, double a, double b);

// gi[c] = g * (Q * exp((x[c] - lse) - lse_lo) - q_c), q_c = (w ? w[c] : 1) * (a * p[c] + b), Q = sum_c q_c.
void cross_entropy_prob_grad_row_f64(const double* x, const double* p, const double* w, double* gi, int64_t n,
                                     double lse, double lse_lo, double g, double a, double b);

// Class indices: gi[c] = a * exp((x[c] - lse) - lse_lo) - b * (w ? w[c] : 1), less at_target at c = t.
void cross_entropy_grad_row_f64(const double* x, double* gi, int64_t n, double lse, double lse_lo, double a, double b,
                                const double* w, int64_t t, double at_target);

}  // namespace tl::native
