// The BLAS behind mm/bmm, chosen at build time (build_support/blas.py sets the macro):
//   TL_BLAS_SCIPY_OPENBLAS  OpenBLAS from the scipy-openblas32 wheel (symbols prefixed scipy_)
//   TL_BLAS_CBLAS           any other CBLAS with the standard names (system OpenBLAS, MKL's cblas)
//   neither                 no BLAS: tl::blas::kAvailable is false and kernels use their own loops
// Kernels call only tl::blas::gemm/gemv, so they never see vendor symbol names.
//
// Threading: the BLAS always runs single-threaded; kernels split work across tl::parallel_for
// (OpenMP). One thread pool per process, so BLAS worker threads never spin against OpenMP ones
// on a small machine (measured: a 2-thread OpenBLAS call slowed the next OpenMP loop ~10x).
#pragma once
#include <climits>
#include <cstdint>
#include <mutex>

#include "aten/core/Exception.h"

#if defined(TL_BLAS_SCIPY_OPENBLAS)
#include <cblas.h>  // scipy_openblas32's header: declares the scipy_-prefixed functions
#define TL_CBLAS_FN(name) scipy_cblas_##name
#define TL_BLAS_SET_THREADS(n) scipy_openblas_set_num_threads(n)
#define TL_BLAS_NAME "scipy-openblas32"
#elif defined(TL_BLAS_CBLAS)
#include <cblas.h>
#define TL_CBLAS_FN(name) cblas_##name
#define TL_BLAS_SET_THREADS(n) ((void)(n))
#define TL_BLAS_NAME "cblas"
#endif

namespace tl::blas {

#if defined(TL_CBLAS_FN)
constexpr bool kAvailable = true;
constexpr const char* kName = TL_BLAS_NAME;

inline void init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { TL_BLAS_SET_THREADS(1); });
}

inline void check_int(int64_t v) {
  TL_CHECK(v <= INT_MAX, "gemm: matrix dimension ", v, " is too large for the 32-bit BLAS interface");
}

// Row-major C[m x n] = alpha * op(A) * op(B) + beta * C, where op(A) is m x k and op(B) is k x n.
// A is stored m x k with row stride lda (trans_a false) or k x m with row stride lda (trans_a true);
// likewise B. Runs on the calling thread only. Requires m, n, k >= 1.
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

#define TL_DEFINE_GEMM(T, fn)                                                                                \
  template <>                                                                                                \
  inline void gemm<T>(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,      \
                      int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {                     \
    init_once();                                                                                             \
    for (int64_t v : {m, n, k, lda, ldb, ldc}) check_int(v);                                                 \
    TL_CBLAS_FN(fn)(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, \
                    static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a,                 \
                    static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));        \
  }
TL_DEFINE_GEMM(float, sgemm)
TL_DEFINE_GEMM(double, dgemm)
#undef TL_DEFINE_GEMM

// y = alpha * op(A) * x + beta * y, A stored row-major rows x cols with row stride lda; op(A) is A
// (y has rows elements) or A^T (trans: y has cols elements). incx/incy must be nonzero.
template <typename T>
void gemv(bool trans, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x, int64_t incx,
          T beta, T* y, int64_t incy);

#define TL_DEFINE_GEMV(T, fn)                                                                                  \
  template <>                                                                                                  \
  inline void gemv<T>(bool trans, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x,     \
                      int64_t incx, T beta, T* y, int64_t incy) {                                              \
    init_once();                                                                                               \
    for (int64_t v : {rows, cols, lda, incx, incy}) check_int(v);                                              \
    TL_CBLAS_FN(fn)(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, static_cast<int>(rows),                  \
                    static_cast<int>(cols), alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), beta, y, \
                    static_cast<int>(incy));                                                                   \
  }
TL_DEFINE_GEMV(float, sgemv)
TL_DEFINE_GEMV(double, dgemv)
#undef TL_DEFINE_GEMV

#else
constexpr bool kAvailable = false;
constexpr const char* kName = "none";
template <typename T>
void gemm(bool, bool, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, int64_t) {
  TL_ERROR("gemm: torchlite was built without a BLAS");
}
template <typename T>
void gemv(bool, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, int64_t) {
  TL_ERROR("gemv: torchlite was built without a BLAS");
}
#endif

}  // namespace tl::blas
