// The fused cross_entropy kernel's (N, C) float32 rows with class-probability targets (and the smoothing sums of
// class indices) in GCC vector types, compiled per ISA: the rows of CPUs without AVX-512, whose scalar loops (a libm
// exp per logit in the backward, double arithmetic per class in the forward) made 256x32000 and 4096x1000
// probabilities 2.4x PyTorch's forward+backward time on AVX2. Same terms and coefficients as the AVX-512 rows
// (SoftmaxRowsAvx512.h cross_entropy_weighted_row_f32_avx512, CrossEntropyRowsAvx512.h
// cross_entropy_prob_grad_row_f32), exp of ExpVec8.h.
#pragma once
#include <cstdint>

namespace tl::native {

// q_c = (w ? w[c] : 1) * (p ? a * p[c] + b : 1) over a contiguous row of n > 0 floats; returns
// sum_c q_c * (log_sum - (x[c] - mx)) (the -log_softmax terms rounded as log_softmax rounds them) and stores
// sum_c q_c in *q_sum.
float cross_entropy_weighted_row_f32_vec(const float* x, const float* w, const float* p, int64_t n, float mx,
                                         float log_sum, float a, float b, float* q_sum);

// gi[c] = g * (Q * exp((x[c] - lse) - lse_lo) - q_c), q_c = (w ? w[c] : 1) * (a * p[c] + b), Q = sum_c q_c, over a
// contiguous row of n > 0 floats. With `stream`, the row's whole vectors go out through an L1 buffer with
// non-temporal stores (stream_copy), NOT fenced: the caller calls stream_fence() (StreamStore.h) after its last row.
void cross_entropy_prob_grad_row_f32_vec(const float* x, const float* p, const float* w, float* gi, int64_t n,
                                         float lse, float lse_lo, float g, float a, float b, bool stream);

}  // namespace tl::native
