// layer_norm forward and backward rows of float32 written with AVX2/FMA intrinsics, for CPUs without AVX-512
// (those run LayerNormRowsAvx512.h's rows; NormalizationKernels.cpp picks). On the AVX2 host the generic rows'
// x86-64-v3 clones kept the moments' 2 x 64 lane accumulators (16 ymm registers, the whole register file) in a
// stack array that every step loaded and stored, and wrote a streamed output through StreamStore.h's L1 buffer
// (an extra pass); here the accumulators are registers (all but 3 of the moments' 16) and the output goes from
// registers to memory. Rows whose length is a multiple of 8 are pipelined: the next row's first read from memory
// runs in the current row's output loop, with software prefetch further ahead (docs/kernels/normalization.md has
// the measurements). Same algorithm, summation order and fused multiply-adds as the generic rows
// (NormalizationLoops.h's 4 blocks of 16 lanes, one block for the backward's sums), so the results are the same bit
// for bit (tests/test_layer_norm_avx2.py compares them with TORCHLITE_LAYER_NORM_ISA=generic).
#pragma once
#include <cstdint>

namespace tl::native {

// Whether this CPU runs these rows: AVX2 and FMA, and TORCHLITE_LAYER_NORM_ISA is not "generic" (read once).
bool layer_norm_rows_avx2();

// As layer_norm_row_f32_avx512 (LayerNormRowsAvx512.h): one row of n > 0 floats, its mean and rstd, and
// y = (x - mean) * rstd * w + b (w / b null when absent); with `stream`, y's 32-byte-aligned body is written
// with non-temporal stores and the caller fences (stream_fence) before its thread's work ends.
void layer_norm_row_f32_avx2(const float* x, float* y, const float* w, const float* b, int64_t n, double eps,
                             float* mean, float* rstd, bool stream);

// The rows [0, rows) of n > 0 floats at x + r * n, y + r * n (mean[r], rstd[r]), as layer_norm_row_f32_avx2 row by
// row, the next row's first read overlapped with the current row's output where n is a multiple of 8.
void layer_norm_rows_f32_avx2(const float* x, float* y, const float* w, const float* b, int64_t n, double eps,
                              float* mean, float* rstd, int64_t rows, bool stream);

// As layer_norm_backward_row_f32_avx512: dx = rstd * dy * w + c1 * x + c0 (dx null: none) over a row of n > 0
// floats (w: ones when the op has no weight), and with dw non-null dw += dy * xhat, db += dy. Streamed as above.
void layer_norm_backward_row_f32_avx2(const float* dy, const float* x, const float* w, float mean, float rstd,
                                      int64_t n, float* dx, float* dw, float* db, bool stream);

// The rows [0, rows) of the backward (row r at dy + r * n, x + r * n, dx + r * n with mean[r], rstd[r]; dw / db as
// above, shared by the rows), as layer_norm_backward_row_f32_avx2 row by row, the next row's first read overlapped
// with the current row's dx where n is a multiple of 8.
void layer_norm_backward_rows_f32_avx2(const float* dy, const float* x, const float* w, const float* mean,
                                       const float* rstd, int64_t n, int64_t rows, float* dx, float* dw, float* db,
                                       bool stream);

}  // namespace tl::native
