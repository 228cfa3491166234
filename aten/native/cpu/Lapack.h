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
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/cpu/Blas.h"

#if defined(TL_BLAS_SCIPY_OPENBLAS)
#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
// The c/z routines take std::complex (the Fortran COMPLEX layout), not C99's _Complex.
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>
#define TL_HAVE_LAPACK 1
#endif

namespace tl::lapack {

// The real type of a LAPACK element type (float for std::complex<float>): eigenvalues of Hermitian
// matrices and singular values are real for complex inputs too.
template <typename T>
struct RealOf { using type = T; };
template <typename T>
struct RealOf<std::complex<T>> { using type = T; };
template <typename T>
using real_t = typename RealOf<T>::type;
template <typename T>
inline constexpr bool is_complex_v = !std::is_same_v<T, real_t<T>>;

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
// Solves op(A) X = B with A's getrf factors; B is n x nrhs column-major. trans: 'N', 'T' or 'C'
// (the conjugate transpose; the same as 'T' for real types).
template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// Column-major triangular solve in place of B (m x n): op(A) X = B (left) or X op(A) = B; op is the
// plain transpose when `trans` (not the conjugate one).
template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, int lda, T* b, int ldb);

// Cholesky A = L L^H (upper: U^H U) in place of the triangle read; info > 0: not positive-definite.
template <typename T>
int potrf(bool upper, int n, T* a, int lda);
// Householder QR in place (R above the diagonal, reflectors below, scalars in tau[min(m, n)]).
template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau);
// The first n columns of the product of k reflectors (geqrf's) in place of a (m x n) (ungqr for complex).
template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau);
// Symmetric (Hermitian: heevd) eigendecomposition reading the upper or lower triangle: ascending
// real eigenvalues in w, eigenvectors in place of a when `vectors`. Returns info (> 0: no convergence).
template <typename T>
int syevd(bool vectors, bool upper, int n, T* a, int lda, real_t<T>* w);
// SVD by divide and conquer: jobz 'N' (values), 'S' (reduced U, Vt) or 'A' (full). a is destroyed;
// s is real; vt is V^H for complex types.
template <typename T>
int gesdd(char jobz, int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt);
// General (non-symmetric) eigendecomposition (geev): the eigenvalues in w and, when `vectors`, the
// right eigenvectors in the columns of the column-major n x n v (ldv), both complex for every T (a
// real matrix's conjugate pairs are expanded from LAPACK's packed real form). Each vector has unit
// Euclidean norm, as LAPACK returns it. a is destroyed. Returns info (> 0: QR did not converge).
template <typename T>
int geev(bool vectors, int n, T* a, int lda, std::complex<real_t<T>>* w, std::complex<real_t<T>>* v, int ldv);

// Workspace-query helper: LAPACK reports the optimal size in work[0] for lwork = -1.
inline int work_size(double w) { return std::max(1, static_cast<int>(w)); }
template <typename R>
inline int work_size(std::complex<R> w) { return work_size(static_cast<double>(w.real())); }

// The wrappers whose real (s/d) and complex (c/z) forms are the same code.
#define TL_DEFINE_LAPACK_SHARED(T, p)                                                                   \
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
    scipy_LAPACK_##p##getrs(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info);                          \
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
  }

#define TL_DEFINE_LAPACK(T, p)                                                                          \
  TL_DEFINE_LAPACK_SHARED(T, p)                                                                         \
  template <>                                                                                           \
  inline void trsm<T>(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, int lda, T* b, \
                      int ldb) {                                                                        \
    blas::init_once();                                                                                  \
    scipy_cblas_##p##trsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, \
                          trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, m, n, T(1), a, \
                          lda, b, ldb);                                                                 \
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
  }                                                                                                     \
  template <>                                                                                           \
  inline int geev<T>(bool vectors, int n, T* a, int lda, std::complex<T>* w, std::complex<T>* v, int ldv) { \
    blas::init_once();                                                                                  \
    char jobvl = 'N', jobvr = vectors ? 'V' : 'N';                                                      \
    int info = 0, lwork = -1, one = 1, ldvr = vectors ? n : 1;                                          \
    const size_t sn = static_cast<size_t>(n);                                                           \
    std::vector<T> wr(sn), wi(sn), vr(vectors ? sn * sn : 1);                                           \
    T q;                                                                                                \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), \
                           &ldvr, &q, &lwork, &info);                                                   \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), \
                           &ldvr, work.data(), &lwork, &info);                                          \
    for (int j = 0; j < n; ++j) w[j] = std::complex<T>(wr[size_t(j)], wi[size_t(j)]);                   \
    if (!vectors || info != 0) return info;                                                             \
    /* A pair (wi[j] > 0, wi[j+1] < 0) is stored as columns re, im: v_j = re + i im, v_j+1 its conjugate. */ \
    for (int j = 0; j < n; ++j) {                                                                       \
      const T* c = vr.data() + size_t(j) * size_t(n);                                                   \
      if (wi[size_t(j)] != T(0) && j + 1 < n) {                                                         \
        const T* d = c + n;                                                                             \
        for (int i = 0; i < n; ++i) {                                                                   \
          v[i + size_t(j) * ldv] = std::complex<T>(c[i], d[i]);                                         \
          v[i + size_t(j + 1) * ldv] = std::complex<T>(c[i], -d[i]);                                    \
        }                                                                                               \
        ++j;                                                                                            \
      } else {                                                                                          \
        for (int i = 0; i < n; ++i) v[i + size_t(j) * ldv] = std::complex<T>(c[i], T(0));               \
      }                                                                                                 \
    }                                                                                                   \
    return info;                                                                                        \
  }
TL_DEFINE_LAPACK(float, s)
TL_DEFINE_LAPACK(double, d)
#undef TL_DEFINE_LAPACK

// The complex instances: the c/z routines (ungqr for orgqr, heevd for syevd), cblas's ?trsm taking
// alpha by pointer, rwork for heevd/gesdd/geev.
#define TL_DEFINE_LAPACK_COMPLEX(T, R, p, orgqr_name, syevd_name)                                        \
  TL_DEFINE_LAPACK_SHARED(T, p)                                                                         \
  template <>                                                                                           \
  inline void trsm<T>(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, int lda, T* b, \
                      int ldb) {                                                                        \
    blas::init_once();                                                                                  \
    const T one(1);                                                                                     \
    scipy_cblas_##p##trsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, \
                          trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, m, n, &one, a, \
                          lda, b, ldb);                                                                 \
  }                                                                                                     \
  template <>                                                                                           \
  inline void orgqr<T>(int m, int n, int k, T* a, int lda, const T* tau) {                              \
    blas::init_once();                                                                                  \
    int info = 0, lwork = -1;                                                                           \
    T q;                                                                                                \
    LAPACK_##orgqr_name(&m, &n, &k, a, &lda, tau, &q, &lwork, &info);                                   \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    LAPACK_##orgqr_name(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);                          \
  }                                                                                                     \
  template <>                                                                                           \
  inline int syevd<T>(bool vectors, bool upper, int n, T* a, int lda, R* w) {                           \
    blas::init_once();                                                                                  \
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';                                          \
    int info = 0, lwork = -1, lrwork = -1, liwork = -1, iq = 0;                                         \
    T q;                                                                                                \
    R rq;                                                                                               \
    scipy_LAPACK_##syevd_name(&jobz, &uplo, &n, a, &lda, w, &q, &lwork, &rq, &lrwork, &iq, &liwork, &info); \
    lwork = work_size(q), lrwork = work_size(double(rq)), liwork = std::max(1, iq);                     \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    std::vector<R> rwork(static_cast<size_t>(lrwork));                                                  \
    std::vector<int> iwork(static_cast<size_t>(liwork));                                                \
    scipy_LAPACK_##syevd_name(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, \
                              iwork.data(), &liwork, &info);                                            \
    return info;                                                                                        \
  }                                                                                                     \
  template <>                                                                                           \
  inline int gesdd<T>(char jobz, int m, int n, T* a, int lda, R* s, T* u, int ldu, T* vt, int ldvt) {   \
    blas::init_once();                                                                                  \
    int info = 0, lwork = -1;                                                                           \
    T q;                                                                                                \
    const size_t mn = size_t(std::max(1, std::min(m, n))), mx = size_t(std::max(1, std::max(m, n)));    \
    /* rwork: LAPACK 3.7+'s bound (5 mn^2 + 5 mn for vectors, 7 mn for values only). */                 \
    std::vector<R> rwork(jobz == 'N' ? 7 * mn : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn)); \
    std::vector<int> iwork(8 * mn);                                                                     \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &q, &lwork, rwork.data(),    \
                            iwork.data(), &info);                                                       \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, rwork.data(), \
                            iwork.data(), &info);                                                       \
    return info;                                                                                        \
  }                                                                                                     \
  template <>                                                                                           \
  inline int geev<T>(bool vectors, int n, T* a, int lda, T* w, T* v, int ldv) {                         \
    blas::init_once();                                                                                  \
    char jobvl = 'N', jobvr = vectors ? 'V' : 'N';                                                      \
    int info = 0, lwork = -1, one = 1, ldvr = vectors ? ldv : 1;                                        \
    std::vector<R> rwork(2 * size_t(std::max(n, 1)));                                                   \
    T q, dummy;                                                                                         \
    T* vr = vectors ? v : &dummy;                                                                       \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, &q, &lwork,        \
                           rwork.data(), &info);                                                        \
    lwork = work_size(q);                                                                               \
    std::vector<T> work(static_cast<size_t>(lwork));                                                    \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work.data(), &lwork, \
                           rwork.data(), &info);                                                        \
    return info;                                                                                        \
  }
TL_DEFINE_LAPACK_COMPLEX(std::complex<float>, float, c, cungqr, cheevd)
TL_DEFINE_LAPACK_COMPLEX(std::complex<double>, double, z, zungqr, zheevd)
#undef TL_DEFINE_LAPACK_COMPLEX
#undef TL_DEFINE_LAPACK_SHARED

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
int syevd(bool, bool, int, T*, int, real_t<T>*) { TL_ERROR("syevd: torchlite was built without LAPACK"); }
template <typename T>
int gesdd(char, int, int, T*, int, real_t<T>*, T*, int, T*, int) {
  TL_ERROR("gesdd: torchlite was built without LAPACK");
}
template <typename T>
int geev(bool, int, T*, int, std::complex<real_t<T>>*, std::complex<real_t<T>>*, int) {
  TL_ERROR("geev: torchlite was built without LAPACK");
}

#endif  // TL_HAVE_LAPACK

}  // namespace tl::lapack
