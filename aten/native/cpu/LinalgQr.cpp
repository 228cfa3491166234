// QR factorization (linalg_qr: LAPACK's geqrf, then orgqr to form Q) in the modes 'reduced'
// (Q m x k, R k x n), 'complete' (Q m x m, R m x n) and 'r' (R only, Q empty), k = min(m, n).
// Each matrix is factored in a Fortran-ordered scratch of m x max(k, q) columns (q: Q's columns),
// so orgqr can form Q in place; R is read off its upper triangle. The batch is split across threads.
#include <algorithm>
#include <string>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/Lapack.h"
#include "generated/ops/copy.h"
#include "generated/ops/linalg_qr.h"

namespace tl::native {

using namespace linalg;

namespace {

template <typename T>
void qr_batches(const Tensor& af, int64_t nb, int64_t m, int64_t n, int64_t qcols, bool want_q, T* Q, T* R,
                int64_t rrows) {
  const int64_t k = std::min(m, n), w = std::max(n, qcols);
  const T* a = af.data_ptr<T>();
  parallel_for(0, nb, std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(m * n * k, 1)),
               [&](int64_t b0, int64_t b1) {
                 std::vector<T> work(static_cast<size_t>(m * w)), tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
                 const int im = lapack::to_int("linalg.qr", m), lda = std::max(im, 1);
                 for (int64_t b = b0; b < b1; ++b) {
                   std::copy_n(a + b * m * n, m * n, work.data());  // Fortran m x n, then spare columns
                   if (m > 0 && n > 0) lapack::geqrf<T>(im, static_cast<int>(n), work.data(), lda, tau.data());
                   T* r = R + b * rrows * n;  // Fortran rrows x n
                   for (int64_t j = 0; j < n; ++j)
                     for (int64_t i = 0; i < rrows; ++i) r[i + j * rrows] = i <= j && i < m ? work[i + j * m] : T(0);
                   if (!want_q) continue;
                   T* q = Q + b * m * qcols;  // Fortran m x qcols
                   if (m > 0 && qcols > 0) {
                     lapack::orgqr<T>(im, static_cast<int>(qcols), static_cast<int>(k), work.data(), lda, tau.data());
                     std::copy_n(work.data(), m * qcols, q);
                   }
                 }
               });
}

}  // namespace

void linalg_qr_kernel(const Tensor& A, std::string_view mode, Tensor& Q, Tensor& R) {
  const char* op = "linalg.qr";
  check_ge2(op, A);
  TL_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  TL_CHECK((is_floating_type(A.scalar_type()) || is_complex_type(A.scalar_type())), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(A.scalar_type()));
  check_lapack_dtype(op, "geqrf_cpu", A);
  lapack::require_lapack(op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool want_q = mode != "r";
  const int64_t qcols = mode == "complete" ? m : k;
  const int64_t rrows = mode == "complete" ? m : k;
  DimVector batch(batch_dims(A));
  auto shape = [&](int64_t r, int64_t c) {
    DimVector s(batch);
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  Tensor q = want_q ? empty_fortran(shape(m, qcols), A.scalar_type(), A.device())
                    : empty_tensor({0}, A.scalar_type(), A.device());
  Tensor r = empty_fortran(shape(rrows, n), A.scalar_type(), A.device());
  if (!A.is_meta()) {
    Tensor af = fortran_copy(A);
    const int64_t nb = batch_count(batch);
    dispatch_lapack(A.scalar_type(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      qr_batches<T>(af, nb, m, n, qcols, want_q, want_q ? q.data_ptr<T>() : nullptr, r.data_ptr<T>(), rrows);
    });
  }
  assign_output(op, Q, q);
  assign_output(op, R, r);
}

}  // namespace tl::native
