// The four LAPACK least-squares drivers behind linalg_lstsq (cpu/LinalgLstsq.cpp), typed wrappers in
// the style of cpu/Lapack.h (same vendor, same column-major layout and 32-bit integers):
//   gels   QR (or LQ) of a full-rank A: no rank, no singular values; info > 0 when A is rank-deficient
//   gelsy  complete orthogonal factorization with column pivoting: the rank (below rcond)
//   gelsd  SVD by divide and conquer: rank and singular values
//   gelss  SVD: rank and singular values
// Each solves min ||B - A X|| in place: B is ldb x nrhs with ldb >= max(m, n); on return its first
// n rows hold X and (gels, full-rank gelsd/gelss with m > n) rows n..m-1 the residual components.
// Workspaces are queried (lwork = -1) and held by the caller's LstsqWork across a batch.
#pragma once
#include <vector>

#include "aten/native/cpu/Lapack.h"

namespace tl::lapack {

enum class LstsqDriver { Gels, Gelsy, Gelsd, Gelss };

// Per-thread workspace reused across the matrices of a batch (sizes only grow).
template <typename T>
struct LstsqWork {
  std::vector<T> work;
  std::vector<int> iwork;
  std::vector<int> jpvt;
  std::vector<real_t<T>> rwork;  // complex drivers only
};

#if defined(TL_HAVE_LAPACK)

namespace detail {
// One signature for the four types: `rw` (real workspace) is read by the complex routines only.
#define TL_LSTSQ_CALLS(T, p)                                                                                 \
  inline void gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* w, int lw, int* info) {          \
    char trans = 'N';                                                                                        \
    scipy_LAPACK_##p##gels(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, w, &lw, info);                           \
  }                                                                                                          \
  inline void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, T rcond, int* rank, T* w, \
                    int lw, T*, int* info) {                                                                 \
    LAPACK_##p##gelsy(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, w, &lw, info);                    \
  }                                                                                                          \
  inline void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* w,    \
                    int lw, T*, int* iw, int* info) {                                                        \
    LAPACK_##p##gelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, w, &lw, iw, info);                   \
  }                                                                                                          \
  inline void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* w,    \
                    int lw, T*, int* info) {                                                                 \
    LAPACK_##p##gelss(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, w, &lw, info);                       \
  }
TL_LSTSQ_CALLS(float, s)
TL_LSTSQ_CALLS(double, d)
#undef TL_LSTSQ_CALLS
#define TL_LSTSQ_CALLS_COMPLEX(T, R, p)                                                                      \
  inline void gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* w, int lw, int* info) {          \
    char trans = 'N';                                                                                        \
    scipy_LAPACK_##p##gels(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, w, &lw, info);                           \
  }                                                                                                          \
  inline void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, R rcond, int* rank, T* w, \
                    int lw, R* rw, int* info) {                                                              \
    LAPACK_##p##gelsy(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, w, &lw, rw, info);                \
  }                                                                                                          \
  inline void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, R* s, R rcond, int* rank, T* w,    \
                    int lw, R* rw, int* iw, int* info) {                                                     \
    LAPACK_##p##gelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, w, &lw, rw, iw, info);               \
  }                                                                                                          \
  inline void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, R* s, R rcond, int* rank, T* w,    \
                    int lw, R* rw, int* info) {                                                              \
    LAPACK_##p##gelss(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, w, &lw, rw, info);                   \
  }
TL_LSTSQ_CALLS_COMPLEX(std::complex<float>, float, c)
TL_LSTSQ_CALLS_COMPLEX(std::complex<double>, double, z)
#undef TL_LSTSQ_CALLS_COMPLEX
}  // namespace detail

// Solves one problem (m, n, nrhs >= 1). `s` (min(m, n) values) is written by gelsd/gelss only;
// `rank` by all but gels. Returns LAPACK's info.
template <typename T>
int lstsq(LstsqDriver driver, int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_t<T> rcond, int* rank,
          real_t<T>* s, LstsqWork<T>& ws) {
  using R = real_t<T>;
  blas::init_once();
  int info = 0, lwork = -1;
  T q = T(0);
  R rq = R(0);
  int iq = 0;
  // The workspace query, then the call with at least the optimal size.
  auto run = [&](T* w, int lw, R* rw, int* iw) {
    switch (driver) {
      case LstsqDriver::Gels: detail::gels(m, n, nrhs, a, lda, b, ldb, w, lw, &info); break;
      case LstsqDriver::Gelsy:
        detail::gelsy(m, n, nrhs, a, lda, b, ldb, ws.jpvt.data(), rcond, rank, w, lw, rw, &info);
        break;
      case LstsqDriver::Gelsd: detail::gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, w, lw, rw, iw, &info); break;
      case LstsqDriver::Gelss: detail::gelss(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, w, lw, rw, &info); break;
    }
  };
  if (driver == LstsqDriver::Gelsy) ws.jpvt.assign(static_cast<size_t>(std::max(1, n)), 0);  // all columns free
  run(&q, lwork, &rq, &iq);
  lwork = work_size(q);
  if (ws.work.size() < static_cast<size_t>(lwork)) ws.work.resize(static_cast<size_t>(lwork));
  if (driver == LstsqDriver::Gelsd && ws.iwork.size() < static_cast<size_t>(std::max(1, iq)))
    ws.iwork.resize(static_cast<size_t>(std::max(1, iq)));
  if constexpr (is_complex_v<T>) {
    // Real workspace: gelsy 2n, gelss 5 min(m, n), gelsd as its query reports.
    const size_t mn = static_cast<size_t>(std::max(1, std::min(m, n)));
    size_t lrw = driver == LstsqDriver::Gelsy ? 2 * static_cast<size_t>(std::max(1, n))
                 : driver == LstsqDriver::Gelss ? 5 * mn
                 : static_cast<size_t>(std::max<double>(1.0, static_cast<double>(rq)));
    if (ws.rwork.size() < lrw) ws.rwork.resize(lrw);
  }
  run(ws.work.data(), static_cast<int>(ws.work.size()), ws.rwork.data(), ws.iwork.data());
  return info;
}

#else  // builds without LAPACK: the kernel calls require_lapack first

template <typename T>
int lstsq(LstsqDriver, int, int, int, T*, int, T*, int, real_t<T>, int*, real_t<T>*, LstsqWork<T>&) {
  TL_ERROR("lstsq: torchlite was built without LAPACK");
}

#endif  // TL_HAVE_LAPACK

}  // namespace tl::lapack
