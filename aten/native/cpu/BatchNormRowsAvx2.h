// batch_norm's float32 output loops written with AVX2/FMA intrinsics, for CPUs without AVX-512 (the AVX-512 rows
// are BatchNormRowsAvx512.h): the 2-d layout's normalizing (forward) and dx (backward) rows, and the contiguous
// runs of the [N, C, S] layout (S > 1) with per-channel scalars.
//
// The generic loops compute 1024-element pieces into an L1 buffer that StreamStore.h's stream_copy then writes
// out with 16-byte non-temporal stores; here the output goes from registers to memory, streamed or not. Same
// arithmetic as the generic loops (the same fused multiply-adds as their x86-64-v3 clones), so the results are
// the same bit for bit (tests/test_norm_avx512_rows.py compares them with TORCHLITE_BATCH_NORM_ISA=generic).
#pragma once
#include <cstdint>

namespace tl::native {

// Whether this CPU runs these loops: AVX2 and FMA, and TORCHLITE_BATCH_NORM_ISA is not "generic" (read once).
bool batch_norm_rows_avx2();

// out[c] = (x[c] - mean[c]) * scale[c] + bias[c] over one row of C > 0 floats. With `stream`, out's 32-byte
// aligned body is written with non-temporal stores; the caller fences (stream_fence) before its work ends.
void batch_norm_row_f32_avx2(const float* x, const float* mean, const float* scale, const float* bias, int64_t C,
                             float* out, bool stream);

// out[c] = a[c] * p[c] + b[c] * q[c] + r[c] (b null: a[c] * p[c] + r[c]) over one row of C > 0 floats. Streamed as
// above.
void batch_norm_affine_row_f32_avx2(const float* a, const float* b, const float* p, const float* q, const float* r,
                                    int64_t C, float* out, bool stream);

// out[i] = a[i] * p + b[i] * q + r (b null: a[i] * p + r) over a contiguous run of n > 0 floats: NormalizationLoops.h's
// affine_run for one channel's plane. Streamed as above.
void batch_norm_affine_run_f32_avx2(const float* a, const float* b, float p, float q, float r, int64_t n, float* out,
                                    bool stream);

}  // namespace tl::native
