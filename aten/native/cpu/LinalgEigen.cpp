// Spectral decompositions: linalg_eigh (LAPACK's syevd: symmetric eigenvalues ascending and
// orthonormal eigenvectors, reading the triangle UPLO names) and linalg_svd (gesdd, divide and
// conquer, as PyTorch's CPU default). Each matrix is decomposed from a Fortran-ordered copy
// (cpu/Lapack.h); results are written in Fortran order, as PyTorch lays them out. The batch is
// split across threads, each LAPACK call single-threaded.
#include <cmath>
#include <limits>
#include <algorithm>
#include <string>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/FortranCopy.h"
#include "aten/native/cpu/Lapack.h"
#include "aten/native/cpu/SvdThreaded.h"
#include "generated/ops/copy.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_svd.h"

namespace tl::native {

using namespace linalg;

namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (lapack::is_complex_v<T>) return std::isnan(v.real()) || std::isnan(v.imag());
  else return std::isnan(v);
}
template <typename T>
bool is_inf(T v) {
  if constexpr (lapack::is_complex_v<T>) return std::isinf(v.real()) || std::isinf(v.imag());
  else return std::isinf(v);
}

int64_t grain_for(int64_t flops) { return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(flops, 1)); }

DimVector with_tail(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector s(batch);
  for (int64_t t : tail) s.push_back(t);
  return s;
}

}  // namespace

void linalg_eigh_kernel(const Tensor& A, std::string_view UPLO, Tensor& eigenvalues, Tensor& eigenvectors) {
  const char* op = "linalg.eigh";
  TL_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", "Expected UPLO argument to be 'L' or 'U', but got ",
           UPLO);
  check_ge2(op, A);
  check_square(op, A);
  if (A.numel() > 0) check_lapack_dtype(op, "linalg_eigh_cpu", A);  // PyTorch: any dtype when empty
  lapack::require_lapack(op);
  const bool upper = UPLO == "U" || UPLO == "u";
  const int64_t n = A.size(-1);
  DimVector batch(batch_dims(A));
  // Hermitian eigenvalues are real: complex input gives real values and complex vectors.
  Tensor w = empty_tensor(with_tail(batch, {n}), to_real_type(A.scalar_type()), A.device());
  Tensor v = empty_fortran(A.sizes(), A.scalar_type(), A.device());
  if (!A.is_meta()) {
    ops::copy_::call(v, A, false);
    const int64_t nb = batch_count(batch);
    std::vector<int> info(static_cast<size_t>(nb), 0);
    if (n > 0 && nb > 0) {  // (an empty input of any dtype: PyTorch checks none)
      const int in = lapack::to_int(op, n);
      dispatch_lapack(A.scalar_type(), op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* vp = v.data_ptr<T>();
        lapack::real_t<T>* wp = w.data_ptr<lapack::real_t<T>>();
        parallel_for(0, nb, grain_for(n * n * n), [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b) info[b] = lapack::syevd<T>(true, upper, in, vp + b * n * n, in, wp + b * n);
        });
      });
    }
    for (int64_t b = 0; b < nb; ++b)
      if (info[b] > 0)
        raise_info(op, true, b, A.dim() > 2,
                   str("The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                       "repeated eigenvalues (error code: ", info[b], ")."));
  }
  assign_output(op, eigenvalues, w);
  assign_output(op, eigenvectors, v);
}

void linalg_svd_kernel(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver, Tensor& U,
                       Tensor& S, Tensor& Vh) {
  const char* op = "linalg.svd";
  check_ge2(op, A);
  TL_CHECK((is_floating_type(A.scalar_type()) || is_complex_type(A.scalar_type())), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(A.scalar_type()));
  TL_CHECK(!driver.has_value(), "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
           "cuSOLVER backend.");
  check_lapack_dtype(op, "linalg_svd_cpu", A);
  lapack::require_lapack(op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  DimVector batch(batch_dims(A));
  Tensor u = empty_fortran(with_tail(batch, {m, ucols}), A.scalar_type(), A.device());
  Tensor s = empty_tensor(with_tail(batch, {k}), to_real_type(A.scalar_type()), A.device());  // real
  Tensor vh = empty_fortran(with_tail(batch, {vrows, n}), A.scalar_type(), A.device());
  if (!A.is_meta()) {
    const int64_t nb = batch_count(batch);
    if (k == 0) {
      // No singular values: U and Vh are identities (of their square part), as LAPACK would give.
      auto eye_fill = [&](Tensor& t, int64_t r, int64_t c) {
        TL_DISPATCH_FLOAT_AND_COMPLEX(t.scalar_type(), op, [&] {
          scalar_t* p = t.data_ptr<scalar_t>();
          for (int64_t b = 0; b < nb; ++b)
            for (int64_t j = 0; j < c; ++j)
              for (int64_t i = 0; i < r; ++i) p[b * r * c + i + j * r] = i == j ? scalar_t(1) : scalar_t(0);
        });
      };
      eye_fill(u, m, ucols);
      eye_fill(vh, vrows, n);
    } else {
      // gesdd destroys its input: each matrix is copied into `af` by the thread that decomposes it
      // (cpu/FortranCopy.h), not by a copy_ of the batch (a parallel region of its own).
      Tensor af = empty_fortran(A.sizes(), A.scalar_type(), A.device());
      std::vector<int> info(static_cast<size_t>(nb), 0);
      const char jobz = full_matrices ? 'A' : 'S';
      const int im = lapack::to_int(op, m), in = lapack::to_int(op, n);
      const int iu = static_cast<int>(std::max<int64_t>(m, 1)), iv = static_cast<int>(std::max<int64_t>(vrows, 1));
      const int64_t sr = A.stride(-2), sc = A.stride(-1);
      // gesdd does not return on NaN/inf input (it can loop forever), so it never sees one: a matrix with a
      // NaN fails with PyTorch's message; one with an infinity (and no NaN) gets NaN factors, as PyTorch's.
      std::vector<char> skip(static_cast<size_t>(nb), 0);
      auto screen = [&](const auto* src, auto* up, auto* sp, auto* vp) {
        using T = std::remove_pointer_t<decltype(up)>;
        using R = std::remove_pointer_t<decltype(sp)>;
        for (int64_t b = 0; b < nb; ++b) {
          const T* a = src + matrix_offset(b, A.sizes(), A.strides());
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
              const T v = a[i * sr + j * sc];
              if (is_nan(v))
                raise_info(op, true, b, A.dim() > 2,
                           "The algorithm failed to converge because the input matrix contained non-finite values.");
              if (is_inf(v)) skip[b] = 1;
            }
          if (skip[b]) {
            const R nan = std::numeric_limits<R>::quiet_NaN();
            std::fill(up + b * m * ucols, up + (b + 1) * m * ucols, T(nan));
            std::fill(sp + b * k, sp + (b + 1) * k, nan);
            std::fill(vp + b * vrows * n, vp + (b + 1) * vrows * n, T(nan));
          }
        }
      };
      dispatch_lapack(A.scalar_type(), op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = lapack::real_t<T>;
        screen(A.data_ptr<T>(), u.data_ptr<T>(), s.data_ptr<R>(), vh.data_ptr<T>());
      });
      auto run = [&](const auto* src, auto* ap, auto* up, auto* sp, auto* vp) {
        using T = std::remove_pointer_t<decltype(ap)>;
        auto one = [&](int64_t b) {
          columns_to_fortran(src + matrix_offset(b, A.sizes(), A.strides()), sr, sc, ap + b * m * n, m, m, 0, n);
          info[b] = lapack::gesdd<T>(jobz, im, in, ap + b * m * n, im, sp + b * k, up + b * m * ucols, iu,
                                     vp + b * vrows * n, iv);
        };
        if (nb < get_num_threads() && lapack::svd_threaded_applies<T>(m, n)) {
          // Fewer large square matrices than threads: each one's back-transformations use every thread.
          for (int64_t b = 0; b < nb; ++b) {
            if (skip[b]) continue;
            columns_to_fortran(src + matrix_offset(b, A.sizes(), A.strides()), sr, sc, ap + b * m * n, m, m, 0, n);
            if (!lapack::svd_threaded<T>(in, ap + b * m * n, im, sp + b * k, up + b * m * ucols, iu,
                                         vp + b * vrows * n, iv, &info[b]))
              one(b);
          }
          return;
        }
        parallel_for(0, nb, grain_for(m * n * k), [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b)
            if (!skip[b]) one(b);
        });
      };
      dispatch_lapack(A.scalar_type(), op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = lapack::real_t<T>;
        run(A.data_ptr<T>(), af.data_ptr<T>(), u.data_ptr<T>(), s.data_ptr<R>(), vh.data_ptr<T>());
      });
      for (int64_t b = 0; b < nb; ++b)
        if (info[b] > 0)
          raise_info(op, true, b, A.dim() > 2,
                     str("The algorithm failed to converge because the input matrix is ill-conditioned or has too "
                         "many repeated singular values (error code: ", info[b], ")."));
    }
  }
  assign_output(op, U, u);
  assign_output(op, S, s);
  assign_output(op, Vh, vh);
}

}  // namespace tl::native
