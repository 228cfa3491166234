// layer_norm forward and backward rows of float32 written with AVX-512 intrinsics (NormalizationKernels.cpp).
//
// The generic row (norm::run_moments + layer_norm_apply, auto-vectorized) kept its 64 accumulators in
// a stack array that every step loaded and stored, so on a 4 KiB row that sits in L1 after its first
// read the three loops were compute bound (1.7 ms against PyTorch's 1.3 ms for 4096x1024 on one
// thread). Here the accumulators are registers and the output goes straight from registers to memory
// (non-temporal when streamed, without StreamStore.h's L1 buffer). Same algorithm and rounding order
// as the generic row (sums in 4 blocks of 16 lanes, corrected two-pass moments, rstd in double,
// ((x - mean) * rstd) * w + b with one fused multiply-add); other dtypes and ISAs keep the generic loops.
#pragma once
#include <cstdint>

namespace tl::native {

// Whether this CPU runs the AVX-512 rows (read once; TORCHLITE_LAYER_NORM_ISA=generic turns them off).
bool layer_norm_rows_avx512();

// One row of n > 0 floats: *mean, *rstd = 1 / sqrt(var + eps) (biased variance), and
// y = (x - mean) * rstd * w + b (w / b null when absent). With `stream`, y's 64-byte-aligned body is
// written with non-temporal stores; the caller fences (stream_fence) before its thread's work ends.
void layer_norm_row_f32_avx512(const float* x, float* y, const float* w, const float* b, int64_t n, double eps,
                               float* mean, float* rstd, bool stream);

// One row of n > 0 floats of the backward, with g = dy * w and xhat = (x - mean) * rstd (w: n floats, ones
// when the op has no weight): dx = rstd * g + c1 * x + c0 (dx null: none), and with dw non-null the row's
// share of the parameter gradients added in place (dw += dy * xhat, db += dy). With `stream`, as above.
void layer_norm_backward_row_f32_avx512(const float* dy, const float* x, const float* w, float mean, float rstd,
                                        int64_t n, float* dx, float* dw, float* db, bool stream);

}  // namespace tl::native
