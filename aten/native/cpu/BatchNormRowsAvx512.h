// batch_norm's 2-d ([N, C], channel contiguous) float32 loops written with AVX-512 intrinsics
// (BatchNormKernels.cpp, ColumnStats.h).
//
// The generic rows (the forward's normalizing pass, the backward's dx pass) computed 1024-element pieces
// into an L1 buffer that StreamStore.h's stream_copy then wrote out (a second pass over every piece); here
// the output goes from registers to memory, streamed or not. Same arithmetic as the generic rows (the same
// fused multiply-adds), so the results are the same bit for bit; other dtypes and ISAs keep the generic loops.
#pragma once
#include <cstdint>

namespace tl::native {

// Whether this CPU runs the AVX-512 loops (read once; TORCHLITE_BATCH_NORM_ISA=generic turns them off).
bool batch_norm_rows_avx512();

// out[c] = (x[c] - mean[c]) * scale[c] + bias[c] over one row of C > 0 floats. With `stream`, out's 64-byte
// aligned body is written with non-temporal stores; the caller fences (stream_fence) before its work ends.
void batch_norm_row_f32_avx512(const float* x, const float* mean, const float* scale, const float* bias, int64_t C,
                               float* out, bool stream);

// out[c] = a[c] * p[c] + b[c] * q[c] + r[c] (b null: a[c] * p[c] + r[c]) over one row of C > 0 floats: the
// backward's dx pass. Streamed as above.
void batch_norm_affine_row_f32_avx512(const float* a, const float* b, const float* p, const float* q, const float* r,
                                      int64_t C, float* out, bool stream);

}  // namespace tl::native
