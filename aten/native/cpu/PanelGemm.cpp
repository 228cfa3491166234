// panel_gemm (PanelGemm.h) in GCC vector types, compiled per ISA (TL_TARGET_CLONES): a block of up to
// 6 rows of C times one 64-byte panel is held in 12 32-byte registers while the k terms are added in
// (per term: two panel loads, one broadcast per row, two FMAs per row), the classic AVX2 block shape
// that keeps both FMA units busy without spilling the 16 vector registers.
#include "aten/native/cpu/PanelGemm.h"

#include <algorithm>
#include <cstring>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native {

namespace {

typedef float vf8 __attribute__((vector_size(32)));
typedef double vd4 __attribute__((vector_size(32)));
template <typename T>
struct Vec32;
template <>
struct Vec32<float> {
  using type = vf8;
};
template <>
struct Vec32<double> {
  using type = vd4;
};

constexpr int kMaxRows = 6;

// C rows [0, R) x panel columns [0, w) (w <= the panel width; narrower only in the last panel).
template <typename T, int R>
TL_ALWAYS_INLINE void block(int64_t k, const T* a, int64_t lda, const T* panel, const T* init, int64_t ldi, T* c,
                            int64_t ldc, int64_t w) {
  using V = typename Vec32<T>::type;
  constexpr int64_t L = 32 / sizeof(T), W = 2 * L;
  V s0[R], s1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    s0[r] = V{};
    s1[r] = V{};
    if (!init) continue;
    if (w == W) {
      std::memcpy(&s0[r], init + r * ldi, sizeof(V));
      std::memcpy(&s1[r], init + r * ldi + L, sizeof(V));
    } else {
      for (int64_t j = 0; j < w; ++j) {
        if (j < L) s0[r][j] = init[r * ldi + j];
        else s1[r][j - L] = init[r * ldi + j];
      }
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    V b0, b1;
    std::memcpy(&b0, panel + p * W, sizeof(V));
    std::memcpy(&b1, panel + p * W + L, sizeof(V));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const T x = a[r * lda + p];
      s0[r] += x * b0;
      s1[r] += x * b1;
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    if (w == W) {
      std::memcpy(c + r * ldc, &s0[r], sizeof(V));
      std::memcpy(c + r * ldc + L, &s1[r], sizeof(V));
    } else {
      for (int64_t j = 0; j < w; ++j) c[r * ldc + j] = j < L ? s0[r][j] : s1[r][j - L];
    }
  }
}

template <typename T>
TL_ALWAYS_INLINE void gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* packed_b,
                           const T* init, int64_t ldi, T* c, int64_t ldc) {
  constexpr int64_t W = 64 / sizeof(T);
  // Panel by panel: a panel (k x 64 bytes, 16 KB for k = 256) stays in L1 while every row block reads it.
  for (int64_t j0 = 0; j0 < n; j0 += W) {
    const T* panel = packed_b + j0 * k;
    const int64_t w = std::min(W, n - j0);
    // Row blocks of even size (32 rows: 5 5 5 5 6 6, not 6 x 5 + 2): a block of 1-2 rows has too few
    // independent sums to hide the FMA latency.
    const int64_t blocks = (m + kMaxRows - 1) / kMaxRows;
    for (int64_t b = 0, i = 0; b < blocks; ++b) {
      const int64_t rows = (m - i) / (blocks - b);
      const T* ai = a + i * lda;
      const T* ii = init ? init + i * ldi + j0 : nullptr;
      T* ci = c + i * ldc + j0;
      switch (rows) {
        case 6: block<T, 6>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
        case 5: block<T, 5>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
        case 4: block<T, 4>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
        case 3: block<T, 3>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
        case 2: block<T, 2>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
        default: block<T, 1>(k, ai, lda, panel, ii, ldi, ci, ldc, w); break;
      }
      i += rows;
    }
  }
}

TL_TARGET_CLONES void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed_b,
                               const float* init, int64_t ldi, float* c, int64_t ldc) {
  gemm<float>(m, n, k, a, lda, packed_b, init, ldi, c, ldc);
}
TL_TARGET_CLONES void gemm_f64(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* packed_b,
                               const double* init, int64_t ldi, double* c, int64_t ldc) {
  gemm<double>(m, n, k, a, lda, packed_b, init, ldi, c, ldc);
}

}  // namespace

void panel_gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* packed_b, const float* init,
                int64_t ldi, float* c, int64_t ldc) {
  gemm_f32(m, n, k, a, lda, packed_b, init, ldi, c, ldc);
}
void panel_gemm(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* packed_b,
                const double* init, int64_t ldi, double* c, int64_t ldc) {
  gemm_f64(m, n, k, a, lda, packed_b, init, ldi, c, ldc);
}

}  // namespace tl::native
