// The fused cross_entropy kernels' K-dimensional path for FEW classes (2 <= C <= 16): float32 logits with class
// indices. Logits (N, C, d1, ..., dk) are seen as (outer, C, S); 8 neighbouring positions (one vector, contiguous for
// each class) are done at a time with all C classes held in registers: the max, the sum of exps, the log of the sum,
// the target's logit and weight (picked by compare-and-select: no gather, and no memory is read through a target)
// and the loss term, in one pass. Written with GCC vector types and compiled per ISA (TL_TARGET_CLONES), so it runs
// vectorized on AVX2 as on AVX-512 CPUs. The column blocks it replaces for these shapes (CrossEntropyColumns.cpp)
// took the positions class by class through arrays in memory, a gather and a double-lane log, and on AVX2 their exp
// loop stayed scalar (GCC kept the exp's clamps as branches): 1.1-1.2x PyTorch's forward for (16, 5, 64, 64) on
// AVX-512, 1.5x on AVX2.
// Terms and coefficients are the column blocks' (see the top of CrossEntropyKernels.cpp).
#pragma once
#include <cstdint>

namespace tl::native {

// The most classes this path holds in registers.
constexpr int64_t kCeFewMaxClasses = 16;

// The options of one call, shared by the blocks. The targets must have been checked (in [0, C) or ignore_index).
struct CeFewArgs {
  int64_t classes = 0, stride = 1;   // C (2..16), and S: the distance between a position's consecutive classes
  const float* weight = nullptr;     // class weights (C) or null
  int64_t ignore_index = -100;
  double smoothing = 0;              // label smoothing s
};

// Forward over w positions of one sample: x[c * S + j] is class c of position j, t[j] its class index. Writes each
// position's logsumexp (max + log_sum, in double) to lse[j]; with `out`, its loss term rounded to float to out[j]
// (reduction none); returns the sum of the w loss terms in double (ignored positions 0) in a fixed order.
double cross_entropy_few_forward(const CeFewArgs& a, const float* x, int64_t w, const int64_t* t, double* lse,
                                 float* out);

// Backward over w positions: gi[c * S + j] = g_j * (Q * exp(x - lse[j]) - q_c) (an ignored position's column is 0),
// g_j = g[j] * scale with a per-position gradient `g`, else g0 (already scaled).
void cross_entropy_few_backward(const CeFewArgs& a, const float* x, float* gi, int64_t w, const int64_t* t,
                                const float* g, float scale, float g0, const double* lse);

}  // namespace tl::native
