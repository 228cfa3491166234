// tl::blas::gemm / gemv for complex64 and complex128 (cgemm/zgemm, cgemv/zgemv of the BLAS that
// Blas.h selects), and gemm_op / gemv_op, which also take the conjugate-transpose operation (the
// lazy conjugate bit of a transposed operand is read by the BLAS itself, as PyTorch's addmm does).
// Kept apart from Blas.h so that only the matrix-product kernels that take complex operands include
// it. std::complex<T> is the BLAS's complex layout (real, imaginary).
#pragma once
#include <complex>
#include <type_traits>

#include "aten/core/ScalarType.h"  // is_complex_v

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

// What the BLAS applies to a stored operand: nothing, the transpose, or the conjugate transpose.
enum class Op : uint8_t { None, Trans, ConjTrans };

#if defined(TL_CBLAS_FN)
inline CBLAS_TRANSPOSE cblas_op(Op op) {
  return op == Op::None ? CblasNoTrans : op == Op::Trans ? CblasTrans : CblasConjTrans;
}

// gemm / gemv with an Op per operand; ConjTrans is for complex T only (real T read it as Trans).
template <typename T>
inline void gemm_op(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                    int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (!is_complex_v<T>) {
    gemm<T>(op_a != Op::None, op_b != Op::None, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    init_once();
    for (int64_t v : {m, n, k, lda, ldb, ldc}) check_int(v);
    auto fn = [] {
      if constexpr (std::is_same_v<T, std::complex<float>>) return TL_CBLAS_FN(cgemm);
      else return TL_CBLAS_FN(zgemm);
    }();
    fn(CblasRowMajor, cblas_op(op_a), cblas_op(op_b), static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
       &alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), &beta, c, static_cast<int>(ldc));
  }
}

template <typename T>
inline void gemv_op(Op op, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x, int64_t incx,
                    T beta, T* y, int64_t incy) {
  if constexpr (!is_complex_v<T>) {
    gemv<T>(op != Op::None, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
  } else {
    init_once();
    for (int64_t v : {rows, cols, lda, incx, incy}) check_int(v);
    auto fn = [] {
      if constexpr (std::is_same_v<T, std::complex<float>>) return TL_CBLAS_FN(cgemv);
      else return TL_CBLAS_FN(zgemv);
    }();
    fn(CblasRowMajor, cblas_op(op), static_cast<int>(rows), static_cast<int>(cols), &alpha, a, static_cast<int>(lda), x,
       static_cast<int>(incx), &beta, y, static_cast<int>(incy));
  }
}
#else
template <typename T>
void gemm_op(Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, int64_t) {
  TL_ERROR("gemm: torchlite was built without a BLAS");
}
template <typename T>
void gemv_op(Op, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, int64_t) {
  TL_ERROR("gemv: torchlite was built without a BLAS");
}
#endif

}  // namespace tl::blas
