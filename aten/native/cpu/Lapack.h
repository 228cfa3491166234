// The LAPACK behind torch.linalg's factorizations, chosen at build time like the BLAS (Blas.h):
//   TL_BLAS_SCIPY_OPENBLAS  the LAPACK inside the scipy-openblas32 wheel (symbols prefixed scipy_)
//   otherwise               none: tl::lapack::kAvailable is false and the linalg kernels raise
//                           "<op>: torchlite was built without LAPACK" (require_lapack)
// (lapack.h names routines with character arguments scipy_LAPACK_<name>: they pass the hidden
// Fortran string lengths.) Kernels call only the typed wrappers below, so they never see vendor symbol names.
//
// Layout: LAPACK is column-major. Kernels keep every matrix they hand to LAPACK in Fortran order
// (the last two dims transposed in memory), which is also the layout PyTorch gives the results of
// these ops, so a functional call needs no copy back. Integers are 32-bit (check_int).
//
// Threading: single-threaded calls (init_once through blas::init_once); kernels parallelise over
// the batch with tl::parallel_for.
#pragma once
#include <climits>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/cpu/Blas.h"

#if defined(TL_BLAS_SCIPY_OPENBLAS)
#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#include <lapack.h>
#define TL_HAVE_LAPACK 1
#endif

namespace tl::lapack {

#if defined(TL_HAVE_LAPACK)
constexpr bool kAvailable = true;
#else
constexpr bool kAvailable = false;
#endif

// Raises the error builds without LAPACK give for every factorization.
inline void require_lapack(const char* op) {
  TL_CHECK(kAvailable, op, ": torchlite was built without LAPACK");
}

// LAPACK takes 32-bit sizes: larger problems are refused rather than truncated.
inline int to_int(const char* op, int64_t v) {
  TL_CHECK(v <= INT_MAX, op, ": matrix dimension ", v, " is too large for the 32-bit LAPACK interface");
  return static_cast<int>(v);
}

#if defined(TL_HAVE_LAPACK)

// A = P L U of an m x n column-major matrix (lda >= max(1, m)); ipiv gets min(m, n) 1-based row
// interchanges; returns info (> 0: U[info-1, info-1] is exactly zero).
template <typename T>
int getrf(int m, int n, T* a, int lda, int* ipiv);
// Solves op(A) X = B with A's getrf factors; B is n x nrhs column-major. trans: 'N' or 'T'.
template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// Column-major triangular solve in place of B (m x n): op(A) X = B (left) or X op(A) = B.
template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, int lda, T* b, int ldb);

// Cholesky A = L L^T (upper: U^T U) in place of the triangle read; info > 0: not positive-definite.
template <typename T>
int potrf(bool upper, int n, T* a, int lda);
// Householder QR in place (R above the diagonal, reflectors below, scalars in tau[min(m, n)]).
template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau);
// The first n columns of the product of k reflectors (geqrf's) in place of a (m x n).
template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau);
// Symmetric eigendecomposition reading the upper or lower triangle: ascending eigenvalues in w,
// eigenvectors in place of a when `vectors`. Returns info (> 0: no convergence).
template <typename T>
int syevd(bool vectors, bool upper, int n, T* a, int lda, T* w);
// SVD by divide and conquer: jobz 'N' (values), 'S' (reduced U, Vt) or 'A' (full). a is destroyed.
template <typename T>
int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt);

// Workspace-query helper: LAPACK reports the optimal size in work[0] for lwork = -1.
inline int work_size(double w) { return std::max(1, static_cast<int>(w)); }

#define TL_DEFINE_LAPACK(T, p)                                                                          \
  template <>                                                                                           \
  inline int getrf<T>(int m, int n, T* a, int lda, int* ipiv) {                                         \
    blas::init_once();                                                                                  \
    int info = 0;                                                                                       \
    LAPACK_##p##getrf(&m, &n, a, &lda, ipiv, &info);                                                    \
    return info;                                                                                        \
  }                                                                                                     \
  template <>                                                                                           \
  inline void getrs<T>(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) { \
    blas::init_once();                                                                                  \
    int info = 0;                                                                                       \
    scipy_LAPACK_##p##getrs(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info);                                \
  }                                                                                                     \
  template <>                                                                                           \
  inline void trsm<T>(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, int lda, T* b, \
                      int ldb) {                                                                        \
    blas::init_once();                                                                                  \
    scipy_cblas_##p##trsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, \
                          trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, m, n, T(1), a, \
                          lda, b, ldb);                                                                 \
  }                                                                                                     \
  template <>                                                                                           \
  inline int potrf<T>(bool upper, int n, T* a, int lda) {                                               \
    blas::init_once();                                                                                  \
    char uplo = upper ? 'U' : 'L';                                                                      \
    int info = 0;                                                                                       \
    scipy_LAPACK_##p##potrf(&uplo, &n, a, &lda, &info);                                                 \
    return info;                                                                                        \
  }                                                                                                     \
  template <>                                                                                           \
  inline void geqrf<T>(int m, int n, T* a, int lda, T* tau) {                                           \
    blas::init_once();                                                                                  \
    int info = 0, lwork = -1;                                                                           \
    T q;                                                                                                \
    LAPACK_##p##geqrf(&m, &n, a, &lda, tau, &q, &lwork, &info);                                         \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    LAPACK_##p##geqrf(&m, &n, a, &lda, tau, work.data(), &lwork, &info);                                \
  }                                                                                                     \
  template <>                                                                                           \
  inline void orgqr<T>(int m, int n, int k, T* a, int lda, const T* tau) {                              \
    blas::init_once();                                                                                  \
    int info = 0, lwork = -1;                                                                           \
    T q;                                                                                                \
    LAPACK_##p##orgqr(&m, &n, &k, a, &lda, tau, &q, &lwork, &info);                                     \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    LAPACK_##p##orgqr(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);                            \
  }                                                                                                     \
  template <>                                                                                           \
  inline int syevd<T>(bool vectors, bool upper, int n, T* a, int lda, T* w) {                           \
    blas::init_once();                                                                                  \
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';                                          \
    int info = 0, lwork = -1, liwork = -1, iq = 0;                                                      \
    T q;                                                                                                \
    scipy_LAPACK_##p##syevd(&jobz, &uplo, &n, a, &lda, w, &q, &lwork, &iq, &liwork, &info);             \
    lwork = work_size(q), liwork = std::max(1, iq);                                                     \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    std::vector<int> iwork(static_cast<size_t>(liwork));                                                \
    scipy_LAPACK_##p##syevd(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info); \
    return info;                                                                                        \
  }                                                                                                     \
  template <>                                                                                           \
  inline int gesdd<T>(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt) {   \
    blas::init_once();                                                                                  \
    int info = 0, lwork = -1;                                                                           \
    T q;                                                                                                \
    std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, std::min(m, n))));                       \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &q, &lwork, iwork.data(), &info); \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), \
                            &info);                                                                     \
    return info;                                                                                        \
  }
TL_DEFINE_LAPACK(float, s)
TL_DEFINE_LAPACK(double, d)
#undef TL_DEFINE_LAPACK

#else  // builds without LAPACK: kernels call require_lapack first, so these never run

template <typename T>
int getrf(int, int, T*, int, int*) { TL_ERROR("getrf: torchlite was built without LAPACK"); }
template <typename T>
void getrs(char, int, int, const T*, int, const int*, T*, int) { TL_ERROR("getrs: torchlite was built without LAPACK"); }
template <typename T>
void trsm(bool, bool, bool, bool, int, int, const T*, int, T*, int) {
  TL_ERROR("trsm: torchlite was built without LAPACK");
}
template <typename T>
int potrf(bool, int, T*, int) { TL_ERROR("potrf: torchlite was built without LAPACK"); }
template <typename T>
void geqrf(int, int, T*, int, T*) { TL_ERROR("geqrf: torchlite was built without LAPACK"); }
template <typename T>
void orgqr(int, int, int, T*, int, const T*) { TL_ERROR("orgqr: torchlite was built without LAPACK"); }
template <typename T>
int syevd(bool, bool, int, T*, int, T*) { TL_ERROR("syevd: torchlite was built without LAPACK"); }
template <typename T>
int gesdd(char, int, int, T*, int, T*, T*, int, T*, int) { TL_ERROR("gesdd: torchlite was built without LAPACK"); }

#endif  // TL_HAVE_LAPACK

}  // namespace tl::lapack
