// softmax / log_softmax backward rows of float32 with AVX2 intrinsics, for CPUs with AVX2 + FMA and without AVX-512
// (those run SoftmaxRowsAvx512.h's rows). What they add over the generic slice loops of SoftmaxKernels.cpp is the
// streaming store of gI: the rows are memory bound (a 4096x1024 backward reads g and y and writes gI, 3 x 16 MB), an
// ordinary store first reads each line of gI (read-for-ownership: 64 MB of traffic in all, what PyTorch's kernel
// moves) and a non-temporal one does not (48 MB). GCC's vector types cannot express that store, which is why the
// vector-type rows tried before measured no better than the slice loops.
#pragma once
#include <cstdint>

namespace tl::native {

// Whether these rows run (read once): an AVX2 + FMA CPU that does not run the AVX-512 rows, unless
// TORCHLITE_SOFTMAX_ISA=generic (the tests then reach the slice loops).
bool softmax_backward_rows_avx2();

// gi = y * (g - sum(g * y)) and gi = g - exp(y) * sum(g) over `rows` consecutive contiguous rows of n floats (row r at
// g + r * n, y + r * n, gi + r * n; gi may be g or y), each row's write pass taking the next row's sum (see the .cpp).
// With `stream`, gi is written with non-temporal stores (where its rows are 32-byte aligned), left unfenced: a caller
// that streams calls stream_fence() (StreamStore.h) once after its last row, before its thread's work ends.
void softmax_backward_rows_f32_avx2(const float* g, const float* y, float* gi, int64_t rows, int64_t n, bool stream);
void log_softmax_backward_rows_f32_avx2(const float* g, const float* y, float* gi, int64_t rows, int64_t n,
                                        bool stream);

}  // namespace tl::native
