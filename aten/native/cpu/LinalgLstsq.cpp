// linalg_lstsq: min ||B - A X|| through LAPACK's gels / gelsy / gelsd / gelss (cpu/LapackLstsq.h), as
// PyTorch's CPU path:
//   * B is a batch of vectors when it is 1-D or has A's shape without A's last dim, else of matrices;
//     the batch is A's batch broadcast with B's first A.dim() - 2 dims (PyTorch's own rule, which
//     refuses some shapes ordinary broadcasting would take);
//   * `solution` is the first n rows of an (max(m, n), k) Fortran-ordered work matrix per batch (a
//     view, with PyTorch's strides); `rank` (all but gels) and `singular_values` (gelsd, gelss) follow
//     A's own batch shape; `residuals` (the squared norms of rows n..m-1 per column) only when m > n,
//     the driver is not gelsy, and for gelsd/gelss only when every matrix has rank n; else empty.
// The batch is split across threads, each LAPACK call single-threaded, a workspace per thread.
#include <algorithm>
#include <complex>
#include <cctype>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/LapackLstsq.h"
#include "generated/ops/copy.h"
#include "generated/ops/expand.h"
#include "generated/ops/linalg_lstsq.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

using namespace linalg;

namespace {

constexpr const char* kOp = "torch.linalg.lstsq";

lapack::LstsqDriver parse_driver(std::optional<std::string_view> driver) {
  if (!driver) return lapack::LstsqDriver::Gelsy;  // PyTorch's CPU default
  std::string d(*driver);
  std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (d == "gels") return lapack::LstsqDriver::Gels;
  if (d == "gelsy") return lapack::LstsqDriver::Gelsy;
  if (d == "gelsd") return lapack::LstsqDriver::Gelsd;
  if (d == "gelss") return lapack::LstsqDriver::Gelss;
  TL_ERROR(kOp, ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
}

// For each matrix of the broadcast batch, the linear index of its matrix in A's own batch (A's batch
// has as many dims as the broadcast one, each equal to it or 1).
std::vector<int64_t> a_batch_index(IntArrayRef a_batch, IntArrayRef batch) {
  const int64_t total = batch_count(batch);
  std::vector<int64_t> idx(static_cast<size_t>(total));
  const size_t nd = batch.size();
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, a = 0, a_stride = 1;
    for (size_t d = nd; d-- > 0;) {
      const int64_t pos = rest % batch[d];
      rest /= batch[d];
      if (a_batch[d] != 1) a += pos * a_stride;
      a_stride *= a_batch[d];
    }
    idx[static_cast<size_t>(i)] = a;
  }
  return idx;
}

struct Problem {
  int64_t nb, m, n, k, ldb;
  lapack::LstsqDriver driver;
  double rcond;
};

// Solves every matrix of the broadcast batch in place of `a` (nb Fortran m x n) and `b` (nb Fortran
// ldb x k); rank and s per broadcast matrix, info per broadcast matrix.
template <typename T>
void solve_batches(const Problem& p, T* a, T* b, std::vector<int>& rank, std::vector<lapack::real_t<T>>& s,
                   std::vector<int>& info) {
  const int m = lapack::to_int(kOp, p.m), n = lapack::to_int(kOp, p.n), ldb = lapack::to_int(kOp, p.ldb);
  const int lda = std::max(1, m);
  const int64_t mn = std::min(p.m, p.n);
  // LAPACK's gelsd/gelss refuse nrhs = 0: a zero right-hand side gives the same rank and values
  // (gels and gelsy take nrhs = 0: gelsy then returns rank 0, as in PyTorch).
  const bool svd_driver = p.driver == lapack::LstsqDriver::Gelsd || p.driver == lapack::LstsqDriver::Gelss;
  const int64_t k = svd_driver ? std::max<int64_t>(p.k, 1) : p.k;
  const int64_t flops = std::max<int64_t>(1, p.m * p.n * std::max(p.m, p.n));
  parallel_for(0, p.nb, std::max<int64_t>(1, (int64_t(1) << 16) / flops), [&](int64_t b0, int64_t b1) {
    lapack::LstsqWork<T> ws;
    std::vector<T> zero_rhs;
    for (int64_t i = b0; i < b1; ++i) {
      T* ai = a + i * p.m * p.n;
      T* bi = b + i * p.ldb * p.k;
      if (p.k == 0 && svd_driver) {
        zero_rhs.assign(static_cast<size_t>(p.ldb), T(0));
        bi = zero_rhs.data();
      }
      int r = 0;
      info[static_cast<size_t>(i)] = lapack::lstsq<T>(p.driver, m, n, static_cast<int>(k), ai, lda, bi, ldb,
                                                      static_cast<lapack::real_t<T>>(p.rcond), &r, s.data() + i * mn, ws);
      rank[static_cast<size_t>(i)] = r;
    }
  });
}

// Per column of each (ldb x k) work matrix: the sum of squared moduli of rows n..m-1 (real).
template <typename T>
void residual_sums(const T* b, int64_t nb, int64_t m, int64_t n, int64_t k, int64_t ldb, lapack::real_t<T>* out) {
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const T* col = b + i * ldb * k + j * ldb;
      lapack::real_t<T> acc(0);
      for (int64_t r = n; r < m; ++r) acc += std::norm(col[r]);
      out[i * k + j] = acc;
    }
}

}  // namespace

void linalg_lstsq_kernel(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                         std::optional<std::string_view> driver, Tensor& solution, Tensor& residuals, Tensor& rank,
                         Tensor& singular_values) {
  // PyTorch's checks, in its order.
  TL_CHECK(self.dim() >= 2, kOp, ": input must have at least 2 dimensions.");
  TL_CHECK(b.dim() >= 1, kOp, ": other must have at least 1 dimension.");
  TL_CHECK(self.scalar_type() == b.scalar_type(), kOp,
           ": Expected input and other to have the same dtype, but got input's dtype ",
           legacy_type_name(self.scalar_type()), " and other's dtype ", legacy_type_name(b.scalar_type()));
  const int64_t dim_diff = self.dim() - b.dim();
  TL_CHECK(dim_diff >= 0 && dim_diff <= 1, kOp,
           ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const bool vector_case =
      b.dim() == 1 || (dim_diff == 1 && b.sizes() == self.sizes().slice(0, static_cast<size_t>(self.dim() - 1)));
  const Tensor b2 = vector_case ? ops::unsqueeze::call(b, -1) : b;
  TL_CHECK(self.size(-2) == b2.size(-2), kOp,
           vector_case ? ": input.size(-2) should match other.size(-1)" : ": input.size(-2) should match other.size(-2)");
  const lapack::LstsqDriver drv = parse_driver(driver);
  const ScalarType dt = self.scalar_type();
  TL_CHECK(is_lapack_type(dt), "This function doesn't handle types other than float and double");
  const ScalarType rt = is_complex_type(dt) ? to_real_type(dt) : dt;  // of rank's tolerance, s, residuals
  lapack::require_lapack(kOp);

  const int64_t m = self.size(-2), n = self.size(-1), k = b2.size(-1), ldb = std::max(m, n);
  const IntArrayRef a_batch = batch_dims(self);
  const DimVector batch = broadcast_shapes(a_batch, b2.sizes().slice(0, a_batch.size()));
  const int64_t nb = batch_count(batch), na = batch_count(a_batch);
  const double rc = rcond.has_value()
                        ? *rcond
                        : (rt == ScalarType::Float32 ? std::numeric_limits<float>::epsilon()
                                                     : std::numeric_limits<double>::epsilon()) *
                              static_cast<double>(std::max(m, n));

  // Work matrices: A broadcast to the batch (LAPACK overwrites it), B in rows 0..m-1 of (ldb x k).
  DimVector a_shape(batch), w_shape(batch);
  a_shape.push_back(m), a_shape.push_back(n);
  w_shape.push_back(ldb), w_shape.push_back(k);
  Tensor a = empty_fortran(a_shape, dt, self.device());
  Tensor w = empty_fortran(w_shape, dt, self.device());
  ops::copy_::call(a, ops::expand::call(self, a_shape, false), false);
  if (w.numel() > 0) {
    DimVector b_shape(batch);
    b_shape.push_back(m), b_shape.push_back(k);
    Tensor top = make_view(w, b_shape, w.strides(), 0);
    ops::copy_::call(top, ops::expand::call(b2, b_shape, false), false);
  }

  const bool has_rank = drv != lapack::LstsqDriver::Gels;
  const bool has_sv = drv == lapack::LstsqDriver::Gelsd || drv == lapack::LstsqDriver::Gelss;
  const int64_t mn = std::min(m, n);
  std::vector<int> ranks(static_cast<size_t>(nb), 0), infos(static_cast<size_t>(nb), 0);
  Tensor sv_all = empty_tensor(DimVector{nb * mn}, rt, self.device());
  if (m == 0 || n == 0) {
    // LAPACK's quick returns: gels zeroes B, the others leave it (and report rank 0).
    if (drv == lapack::LstsqDriver::Gels && w.numel() > 0) std::memset(w.data_ptr(), 0, w.nbytes());
  } else {
    const Problem p{nb, m, n, k, ldb, drv, rc};
    dispatch_lapack(dt, kOp, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using R = lapack::real_t<T>;
      std::vector<R> s(static_cast<size_t>(nb * mn));
      solve_batches<T>(p, a.data_ptr<T>(), w.data_ptr<T>(), ranks, s, infos);
      std::copy(s.begin(), s.end(), sv_all.data_ptr<R>());
    });
  }
  // Errors, rank and singular values by A's own batch element (the first broadcast copy of each).
  const std::vector<int64_t> a_index = a_batch_index(a_batch, batch);
  std::vector<int64_t> first(static_cast<size_t>(na), -1);
  for (int64_t i = 0; i < nb; ++i)
    if (first[static_cast<size_t>(a_index[static_cast<size_t>(i)])] < 0)
      first[static_cast<size_t>(a_index[static_cast<size_t>(i)])] = i;
  for (int64_t j = 0; j < na; ++j) {
    const int64_t i = first[static_cast<size_t>(j)];
    if (i >= 0 && infos[static_cast<size_t>(i)] > 0)
      raise_info(kOp, true, j, self.dim() > 2,
                 str("The least squares solution could not be computed because the input matrix does not have full "
                     "rank (error code: ", infos[static_cast<size_t>(i)], ")."));
  }
  Tensor rk = empty_tensor(has_rank ? DimVector(a_batch) : DimVector{0}, ScalarType::Int64, self.device());
  DimVector sv_shape(a_batch);
  sv_shape.push_back(mn);
  Tensor sv = empty_tensor(has_sv ? sv_shape : DimVector{0}, rt, self.device());
  bool all_full_rank = true;
  for (int64_t j = 0; j < na; ++j) {
    const int64_t i = first[static_cast<size_t>(j)];
    const int r = i >= 0 ? ranks[static_cast<size_t>(i)] : 0;
    all_full_rank = all_full_rank && r == n;
    if (has_rank) rk.data_ptr<int64_t>()[j] = r;
    if (has_sv && mn > 0) {
      const size_t elt = rt == ScalarType::Float32 ? sizeof(float) : sizeof(double);
      std::memcpy(static_cast<char*>(sv.data_ptr()) + j * mn * elt,
                  static_cast<const char*>(sv_all.data_ptr()) + std::max<int64_t>(i, 0) * mn * elt, mn * elt);
    }
  }

  // Residuals: gels always (m > n), gelsd/gelss when every matrix has full column rank, gelsy never.
  const bool want_residuals =
      m > n && drv != lapack::LstsqDriver::Gelsy && (!has_sv || all_full_rank);
  DimVector r_shape(batch);
  r_shape.push_back(k);
  Tensor res = empty_tensor(want_residuals ? r_shape : DimVector{0}, rt, self.device());
  if (want_residuals && res.numel() > 0) {
    dispatch_lapack(dt, kOp, [&](auto tag) {
      using T = typename decltype(tag)::type;
      residual_sums<T>(w.data_ptr<T>(), nb, m, n, k, ldb, res.data_ptr<lapack::real_t<T>>());
    });
  }

  // The solution: rows 0..n-1 of the work matrices (zeros when A has no rows), squeezed for vectors.
  DimVector x_shape(batch);
  x_shape.push_back(n);
  if (!vector_case) x_shape.push_back(k);
  DimVector x_strides;
  for (int64_t d = 0; d < w.dim() - (vector_case ? 1 : 0); ++d) x_strides.push_back(w.stride(d));
  Tensor x = make_view(w, x_shape, x_strides, 0);
  if (m == 0 && w.numel() > 0) std::fill_n(static_cast<char*>(w.data_ptr()), w.nbytes(), 0);

  assign_output("linalg.lstsq", solution, x, OutDtype::CanCast);
  assign_output("linalg.lstsq", residuals, res, OutDtype::CanCast);
  assign_output("linalg.lstsq", rank, rk, OutDtype::CanCast);
  assign_output("linalg.lstsq", singular_values, sv, OutDtype::CanCast);
}

}  // namespace tl::native
