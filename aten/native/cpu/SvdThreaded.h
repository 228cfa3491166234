#pragma once
// One large real square SVD on several threads. gesdd runs on one thread (the BLAS is pinned to one,
// cpu/Blas.h); for a square matrix it is gebrd (bidiagonal form), bdsdc (divide and conquer on the
// bidiagonal) and two ormbr calls that apply the Householder reflectors to the bidiagonal's singular
// vectors: U = Q U_b, Vt = Vt_b P^T (reference LAPACK's gesdd, path 5, jobz 'S' = 'A' when m == n).
// The two back-transformations are ~40% of the flops, and the columns of U (rows of Vt) are
// independent: here they are split across tl::parallel_for, each thread's ormbr on its own block. The
// steps and their order are gesdd's, so the results are gesdd's up to rounding.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/native/cpu/Lapack.h"

namespace tl::lapack {

#if defined(TL_HAVE_LAPACK)
namespace svd_detail {

#define TL_SVD_STEPS(T, p)                                                                                   \
  inline int gebrd(int m, int n, T* a, int lda, T* d, T* e, T* tauq, T* taup) {                             \
    int info = 0, lwork = -1;                                                                                \
    T q;                                                                                                     \
    LAPACK_##p##gebrd(&m, &n, a, &lda, d, e, tauq, taup, &q, &lwork, &info);                                 \
    lwork = work_size(q);                                                                                    \
    std::vector<T> work(static_cast<size_t>(lwork));                                                         \
    LAPACK_##p##gebrd(&m, &n, a, &lda, d, e, tauq, taup, work.data(), &lwork, &info);                        \
    return info;                                                                                             \
  }                                                                                                          \
  inline int bdsdc(int n, T* d, T* e, T* u, int ldu, T* vt, int ldvt) {                                      \
    char uplo = 'U', compq = 'I';                                                                            \
    int info = 0, iq = 0;                                                                                    \
    T q = 0;                                                                                                 \
    const size_t sn = static_cast<size_t>(n);                                                                \
    std::vector<T> work(3 * sn * sn + 4 * sn);                                                               \
    std::vector<int> iwork(8 * sn);                                                                          \
    scipy_LAPACK_##p##bdsdc(&uplo, &compq, &n, d, e, u, &ldu, vt, &ldvt, &q, &iq, work.data(), iwork.data(), \
                            &info);                                                                          \
    return info;                                                                                             \
  }                                                                                                          \
  inline void ormbr(char vect, char side, char trans, int m, int n, int k, const T* a, int lda,              \
                    const T* tau, T* c, int ldc) {                                                           \
    int info = 0, lwork = -1;                                                                                \
    T q;                                                                                                     \
    scipy_LAPACK_##p##ormbr(&vect, &side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &q, &lwork, &info);     \
    lwork = work_size(q);                                                                                    \
    std::vector<T> work(static_cast<size_t>(lwork));                                                         \
    scipy_LAPACK_##p##ormbr(&vect, &side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork,    \
                            &info);                                                                          \
  }

TL_SVD_STEPS(float, s)
TL_SVD_STEPS(double, d)
#undef TL_SVD_STEPS

}  // namespace svd_detail

// Whether svd_threaded takes an n x n matrix: real, large enough that the split pays for its parallel
// region, and more than one thread to split over.
template <typename T>
bool svd_threaded_applies(int64_t m, int64_t n) {
  return !is_complex_v<T> && m == n && n >= 160 && get_num_threads() > 1;
}

// gesdd(jobz 'S', n, n, ...) with the back-transformations threaded. Returns false without touching
// anything when gesdd would scale the matrix first (its largest |a_ij| outside [sqrt(safe min) / eps,
// its inverse], or 0): the caller then calls gesdd. Otherwise sets *info as gesdd does (> 0: bdsdc
// did not converge). a is destroyed.
template <typename T>
bool svd_threaded(int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  if constexpr (is_complex_v<T>) {
    return false;
  } else {
    blas::init_once();
    T amax = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) amax = std::max(amax, std::abs(a[i + size_t(j) * lda]));
    const T small = std::sqrt(std::numeric_limits<T>::min()) / std::numeric_limits<T>::epsilon();
    if (!(amax >= small && amax <= T(1) / small)) return false;  // also NaN: gesdd reports it
    const size_t sn = static_cast<size_t>(n);
    std::vector<T> e(sn), tauq(sn), taup(sn);
    svd_detail::gebrd(n, n, a, lda, s, e.data(), tauq.data(), taup.data());
    *info = svd_detail::bdsdc(n, s, e.data(), u, ldu, vt, ldvt);
    if (*info != 0) return true;
    // U = Q U_b (blocks of U's columns), Vt = Vt_b P^T (blocks of Vt's rows).
    parallel_for(0, n, 32, [&](int64_t c0, int64_t c1) {
      const int w = static_cast<int>(c1 - c0);
      svd_detail::ormbr('Q', 'L', 'N', n, w, n, a, lda, tauq.data(), u + size_t(c0) * ldu, ldu);
      svd_detail::ormbr('P', 'R', 'T', w, n, n, a, lda, taup.data(), vt + c0, ldvt);
    });
    return true;
  }
}
#else
template <typename T>
bool svd_threaded_applies(int64_t, int64_t) { return false; }
template <typename T>
bool svd_threaded(int, T*, int, real_t<T>*, T*, int, T*, int, int*) { return false; }
#endif

}  // namespace tl::lapack
