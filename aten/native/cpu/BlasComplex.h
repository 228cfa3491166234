// tl::blas::gemm / gemv for complex64 and complex128 (cgemm/zgemm, cgemv/zgemv of the BLAS that
// Blas.h selects). Kept apart from Blas.h so that only the matrix-product kernels that take
// complex operands include it. std::complex<T> is the BLAS's complex layout (real, imaginary).
#pragma once
#include <complex>

#include "aten/native/cpu/Blas.h"

namespace tl::blas {

#if defined(TL_CBLAS_FN)
#define TL_DEFINE_COMPLEX_GEMM(T, fn)                                                                         \
  template <>                                                                                                 \
  inline void gemm<T>(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,       \
                      int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {                      \
    init_once();                                                                                              \
    for (int64_t v : {m, n, k, lda, ldb, ldc}) check_int(v);                                                  \
    TL_CBLAS_FN(fn)(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,  \
                    static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,                 \
                    static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c, static_cast<int>(ldc));        \
  }
TL_DEFINE_COMPLEX_GEMM(std::complex<float>, cgemm)
TL_DEFINE_COMPLEX_GEMM(std::complex<double>, zgemm)
#undef TL_DEFINE_COMPLEX_GEMM

#define TL_DEFINE_COMPLEX_GEMV(T, fn)                                                                          \
  template <>                                                                                                  \
  inline void gemv<T>(bool trans, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x,     \
                      int64_t incx, T beta, T* y, int64_t incy) {                                              \
    init_once();                                                                                               \
    for (int64_t v : {rows, cols, lda, incx, incy}) check_int(v);                                              \
    TL_CBLAS_FN(fn)(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, static_cast<int>(rows),                  \
                    static_cast<int>(cols), &alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), &beta, \
                    y, static_cast<int>(incy));                                                                \
  }
TL_DEFINE_COMPLEX_GEMV(std::complex<float>, cgemv)
TL_DEFINE_COMPLEX_GEMV(std::complex<double>, zgemv)
#undef TL_DEFINE_COMPLEX_GEMV
#endif

}  // namespace tl::blas
