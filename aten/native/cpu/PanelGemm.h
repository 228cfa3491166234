// C (+)= A @ B where B is packed once into column panels and then multiplied many times: the LSTM
// steps' products (LstmLayerKernels.cpp), 16-32 batch rows against the same 256 x 1024 weight at
// every one of the sequence's steps.
//
// Why not the BLAS: OpenBLAS packs both operands on every call, and a product of few rows uses each
// weight element only m times, so the per-step packing cost about as much as the arithmetic. Its
// small-matrix kernels, which read the operands in place, exist only in its AVX-512 (SkylakeX) build;
// on an AVX2 CPU (Haswell/Zen kernels) every step's piece took the packing path, and with two threads
// each thread packed the whole weight for its half of the rows, which is why a second thread helped
// the LSTM less than it helps PyTorch. Here the weight is packed once per layer call and every step
// of every thread reads the same panels.
//
// Layout: panels of kPanelWidth<T> columns (64 bytes: 16 floats or 8 doubles), each k x width,
// row after row; the last panel is padded with zeros. Each C element is a k-long sum taken in order
// (an FMA per term on CPUs with FMA), the same for whichever rows a thread is given: the result does
// not depend on the number of threads.
#pragma once
#include <cstdint>

namespace tl::native {

template <typename T>
constexpr int64_t kPanelWidth = 64 / static_cast<int64_t>(sizeof(T));

// Elements of the packed form of a k x n matrix.
template <typename T>
constexpr int64_t panel_packed_size(int64_t k, int64_t n) {
  return (n + kPanelWidth<T> - 1) / kPanelWidth<T> * kPanelWidth<T> * k;
}

// Packs B (k x n), element (p, j) at b[p * row_stride + j * col_stride], into `out`
// (panel_packed_size(k, n) elements): a transposed weight is packed by swapping the strides.
template <typename T>
void pack_panels(int64_t k, int64_t n, const T* b, int64_t row_stride, int64_t col_stride, T* out) {
  constexpr int64_t W = kPanelWidth<T>;
  for (int64_t j0 = 0; j0 < n; j0 += W)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t c = 0; c < W; ++c) *out++ = j0 + c < n ? b[p * row_stride + (j0 + c) * col_stride] : T(0);
}

// C[m x n] = init + A[m x k] @ B, B packed by pack_panels(k, n, ...); init (m x n, row stride ldi) may be
// C itself (C += A @ B) or null (C = A @ B). Each sum starts from init's element and adds the k terms in
// order. lda and ldc are row strides. Runs on the calling thread.
void panel_gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed_b, const float* init,
                int64_t ldi, float* c, int64_t ldc);
void panel_gemm(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* packed_b,
                const double* init, int64_t ldi, double* c, int64_t ldc);

}  // namespace tl::native
