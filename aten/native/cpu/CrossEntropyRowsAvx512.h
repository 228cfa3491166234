// The fused cross_entropy kernel's float32 gradient rows (CrossEntropyKernels.cpp) in AVX-512 intrinsics, with
// non-temporal stores that the caller fences once per block of rows: the rows of the same names in
// SoftmaxRowsAvx512.cpp fence after every row, which stalls the next row's stores until the streamed lines have
// drained to memory (the softmax backward rows measured 10-20% slower that way on one thread).
#pragma once
#include <cstdint>

namespace tl::native {

// Whether these rows run here (an AVX-512 CPU, and TORCHLITE_SOFTMAX_ISA is not "generic": the same switch as the
// softmax rows, so one variable turns every hand-written cross_entropy row off).
bool cross_entropy_rows_avx512();

// gi[c] = a * exp((x[c] - lse) - lse_lo) - b * (w ? w[c] : 1), minus `at_target` more at column t (t outside
// [0, n): none), for one contiguous row of n > 0 floats. With `stream`, the 64-byte aligned lines are written with
// non-temporal stores and NOT fenced: the caller calls stream_fence() (StreamStore.h) after its last row.
void cross_entropy_grad_row_f32(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a, float b,
                                const float* w, int64_t t, float at_target, bool stream);
// The probability-target row: gi[c] = g * (Q * exp((x[c] - lse) - lse_lo) - q_c), q_c = (w ? w[c] : 1) *
// (a * p[c] + b), Q = sum_c q_c; streamed and fenced as above.
void cross_entropy_prob_grad_row_f32(const float* x, const float* p, const float* w, float* gi, int64_t n, float lse,
                                     float lse_lo, float g, float a, float b, bool stream);

}  // namespace tl::native
