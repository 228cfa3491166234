// softmax / log_softmax rows of float32 in GCC vector types (8 float lanes: one AVX2 register), compiled per ISA
// (TL_TARGET_CLONES): the rows for CPUs without AVX-512 (SoftmaxRowsAvx512.h has those), on which the generic
// slice loops of SoftmaxKernels.cpp took 4096x1024 at 0.85x PyTorch's time (their exp is a libm-free scalar function
// the compiler vectorizes; 3x before the no-trapping-math fix noted there). The same passes as the AVX-512 rows: the
// row's max (the next row's max taken during a row's exp pass), exp(x - max) summed (softmax stores them), then the
// write; the exp is ExpAvx512.h's polynomial without the AVX-512 instructions (0.91 ulp with FMA).
#pragma once
#include <cstdint>

namespace tl::native {

// Whether these rows run (read once): unless TORCHLITE_SOFTMAX_ISA=generic, which keeps the slice loops for the tests.
bool softmax_rows_vec();

// y = softmax(x) / log_softmax(x) over `rows` consecutive contiguous rows of n > 0 floats (row r at x + r * n,
// y + r * n; y may be x).
void softmax_rows_f32_vec(const float* x, float* y, int64_t rows, int64_t n);
void log_softmax_rows_f32_vec(const float* x, float* y, int64_t rows, int64_t n);
// The fused cross_entropy forward rows (CrossEntropyKernels.cpp) on these CPUs: the max of a row of n > 0 floats,
// returned, and log(sum(exp(x - max))) in *log_sum (NaN where log_softmax is NaN).
float max_log_sum_row_f32_vec(const float* x, int64_t n, float* log_sum);

}  // namespace tl::native
