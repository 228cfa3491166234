// softmax / log_softmax rows of float32 and their backward, written with AVX-512 intrinsics.
//
// These kernels' time is their exps: on a 4 KiB row (in L1 after the first pass) the generic loops
// (SoftmaxKernels.cpp, exp_float_lanes) were compute bound at ~22 vector instructions per exp, mostly
// the integer steps building 2^k in two halves. Here 2^k is applied by one vscalefps (exact, with
// correct subnormal results and overflow) and the polynomial is plain Horner: ~14 instructions, worst
// error 0.9 ulp over every float (checked against double exp). The generic loops stay for other
// dtypes, other ISAs and TORCHLITE_SOFTMAX_ISA=generic (tests run both).
#pragma once
#include <cstdint>

namespace tl::native {

// Whether this CPU runs the AVX-512 rows (read once; TORCHLITE_SOFTMAX_ISA=generic turns them off).
bool softmax_rows_avx512();

// y = softmax(x) or log_softmax(x) over one contiguous row of n > 0 floats (y may be x).
void softmax_row_f32_avx512(const float* x, float* y, int64_t n);
void log_softmax_row_f32_avx512(const float* x, float* y, int64_t n);
// log_softmax over `rows` consecutive rows (row r at x + r * n, y + r * n; y may be x), the next row's max taken
// during each row's exp pass (see the .cpp); the same results as row by row.
void log_softmax_rows_f32_avx512(const float* x, float* y, int64_t rows, int64_t n);
// gi = y * (g - sum(g * y)) and gi = g - exp(y) * sum(g), one contiguous row (gi may be g or y). With
// `stream`, gi is written with non-temporal stores: for outputs that do not fit in the cache beside their
// two inputs, it saves reading each line of gi before writing it.
void softmax_backward_row_f32_avx512(const float* g, const float* y, float* gi, int64_t n, bool stream);
void log_softmax_backward_row_f32_avx512(const float* g, const float* y, float* gi, int64_t n, bool stream);
// These two rows do not fence their streamed stores: a caller that streams calls stream_fence()
// (StreamStore.h) after its last row, before its thread's work ends.
// The fused cross_entropy forward rows (CrossEntropyKernels.cpp; its gradient rows are CrossEntropyRowsAvx512.h):
// the max of a row of n > 0 floats, returned, and log(sum(exp(x - max))) in *log_sum (NaN where log_softmax is NaN).
float max_log_sum_row_f32_avx512(const float* x, int64_t n, float* log_sum);
// With q_c = (w ? w[c] : 1) * (p ? a * p[c] + b : 1) (class weights, smoothed probabilities): the row's
// sum_c q_c * (log_sum - (x[c] - mx)), and sum_c q_c in *q_sum (n > 0).
float cross_entropy_weighted_row_f32_avx512(const float* x, const float* w, const float* p, int64_t n, float mx,
                                            float log_sum, float a, float b, float* q_sum);

}  // namespace tl::native
