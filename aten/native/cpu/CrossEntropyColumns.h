// The fused cross_entropy kernels' K-dimensional path (CrossEntropyKernels.cpp): logits (N, C, d1, ..., dk) seen
// as (outer, C, S), S = d1 * ... * dk, where a row (the C logits of one position) has stride S. Instead of walking
// each row with scalar strided loads (2.5-3.7x the composite's time), a block of up to kCeColumns neighbouring
// positions is processed class by class: each class contributes one contiguous run of the block's positions, the
// loops run across positions and vectorize (exp_float_lanes / exp_f64, compiled per ISA), and the block (C runs of
// up to 1 KiB) stays in L1 or L2 between the passes. The terms are those of the row kernels (see the
// comment at the top of CrossEntropyKernels.cpp), rounded the same way.
#pragma once
#include <cstdint>

namespace tl::native {

// The most positions per block (16 vectors of 16 floats: independent chains for the max and sum recurrences, and
// runs of 1 KiB per class, long enough for the prefetchers); CrossEntropyKernels.cpp narrows it for many classes.
constexpr int64_t kCeColumns = 256;

// The options of one call, shared by the blocks.
template <typename T>
struct CeColumnArgs {
  int64_t classes = 0, stride = 1;   // C, and S: the distance between a position's consecutive classes
  const T* weight = nullptr;         // class weights (C) or null
  int64_t ignore_index = -100;
  double smoothing = 0;              // label smoothing s
};

// Forward over w <= kCeColumns positions: x[c * S + j] is class c of position j, t[j] its class index (or null
// with class probabilities p[c * S + j]). Writes each position's logsumexp (max + log_sum) to lse[j] and its loss
// term (0 for an ignored index) to loss[j].
void cross_entropy_columns_forward(const CeColumnArgs<float>& a, const float* x, int64_t w, const int64_t* t,
                                   const float* p, double* lse, double* loss);
void cross_entropy_columns_forward(const CeColumnArgs<double>& a, const double* x, int64_t w, const int64_t* t,
                                   const double* p, double* lse, double* loss);

// Backward over w <= kCeColumns positions: gi[c * S + j] = g[j] * (Q * exp(x - lse[j]) - q_c) (the row kernels'
// coefficients; an ignored position's column is 0), g[j] the position's output gradient with the mean's divisor.
void cross_entropy_columns_backward(const CeColumnArgs<float>& a, const float* x, float* gi, int64_t w,
                                    const int64_t* t, const float* p, const float* g, const double* lse);
void cross_entropy_columns_backward(const CeColumnArgs<double>& a, const double* x, double* gi, int64_t w,
                                    const int64_t* t, const double* p, const double* g, const double* lse);

}  // namespace tl::native
