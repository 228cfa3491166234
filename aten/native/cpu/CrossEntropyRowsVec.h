// The fused cross_entropy gradient row for class indices (CrossEntropyKernels.cpp) in GCC vector types, compiled per
// ISA: the row of CPUs without AVX-512 (CrossEntropyRowsAvx512.h has theirs), where the scalar loop's libm exp per
// logit made 4096x32000 forward+backward 1.09x PyTorch's time on AVX2. Same coefficients, exp of ExpVec8.h.
#pragma once
#include <cstdint>

namespace tl::native {

// gi[c] = a * exp((x[c] - lse) - lse_lo) - b * (w ? w[c] : 1), less at_target at c = t; a row of n > 0 floats.
void cross_entropy_grad_row_f32_vec(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a, float b,
                                    const float* w, int64_t t, float at_target);

}  // namespace tl::native
