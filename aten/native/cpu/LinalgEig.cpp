// The general (non-symmetric) eigendecomposition: linalg_eig (LAPACK's geev: sgeev/dgeev/cgeev/zgeev),
// and the values-only call linalg_eigvals uses when no gradient is needed (geev without vectors).
// Results are complex for every input (a real matrix's eigenvalues come in conjugate pairs); the
// eigenvectors are LAPACK's: each column of unit Euclidean norm (PyTorch returns them so, and its
// backward formula assumes it). Each matrix is copied into a Fortran buffer by the thread that
// decomposes it (cpu/FortranCopy.h); the batch is split across threads.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/FortranCopy.h"
#include "aten/native/cpu/LinalgEig.h"
#include "aten/native/cpu/Lapack.h"
#include "generated/ops/linalg_eig.h"

namespace tl::native {

using namespace linalg;

namespace {

DimVector with_tail(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector s(batch);
  for (int64_t t : tail) s.push_back(t);
  return s;
}

// PyTorch's refusals, in its order: shape, then the dtype (its complex result type is looked up
// first: integers fail there; 16-bit floats reach a kernel that has no instance for them).
void check_eig_input(const char* op, const Tensor& A) {
  check_square(op, A);
  const ScalarType t = A.scalar_type();
  TL_CHECK(is_floating_type(t) || is_complex_type(t), "Unknown Complex ScalarType for ", legacy_type_name(t));
  if (!is_lapack_type(t))
    throw NotImplementedError(str("\"linalg_eig_out_cpu\" not implemented for '", legacy_type_name(t), "'"));
}

template <typename T>
bool finite(T v) {
  if constexpr (lapack::is_complex_v<T>) return std::isfinite(v.real()) && std::isfinite(v.imag());
  else return std::isfinite(v);
}

// geev on every matrix of A into w (batch x n) and, when v is given, v (Fortran batch x n x n).
template <typename T>
void eig_batches(const Tensor& A, std::complex<lapack::real_t<T>>* w, std::complex<lapack::real_t<T>>* v,
                 int64_t nb, int64_t n, bool batched) {
  const int in = lapack::to_int("linalg.eig", n);
  const T* src = A.data_ptr<T>();
  const int64_t sr = A.stride(-2), sc = A.stride(-1);
  // linalg.eig refuses NaN/inf before LAPACK sees them; eigvals without vectors does not (PyTorch's
  // eigvals hands them to geev, whose iteration count is bounded).
  for (int64_t b = 0; v != nullptr && b < nb; ++b) {
    const T* a = src + matrix_offset(b, A.sizes(), A.strides());
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        TL_CHECK(finite(a[i * sr + j * sc]), "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  }
  std::vector<int> info(static_cast<size_t>(nb), 0);
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(10 * n * n * n, 1));
  parallel_for(0, nb, grain, [&](int64_t b0, int64_t b1) {
    std::vector<T> buf(static_cast<size_t>(n * n));
    for (int64_t b = b0; b < b1; ++b) {
      columns_to_fortran(src + matrix_offset(b, A.sizes(), A.strides()), sr, sc, buf.data(), n, n, 0, n);
      info[size_t(b)] = lapack::geev<T>(v != nullptr, in, buf.data(), in, w + b * n, v ? v + b * n * n : nullptr, in);
    }
  });
  for (int64_t b = 0; b < nb; ++b)
    if (info[size_t(b)] > 0)
      raise_info("torch.linalg.eig", true, b, batched,
                 str("The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                     "repeated eigenvalues (error code: ", info[size_t(b)], ")."));
}

std::pair<Tensor, Tensor> eig_compute(const char* op, const Tensor& A, bool vectors) {
  check_eig_input(op, A);
  lapack::require_lapack(op);
  const int64_t n = A.size(-1);
  const ScalarType ct = to_complex_type(A.scalar_type());
  DimVector batch(batch_dims(A));
  Tensor w = empty_tensor(with_tail(batch, {n}), ct, A.device());
  Tensor v = vectors ? empty_fortran(A.sizes(), ct, A.device()) : Tensor();
  if (!A.is_meta() && n > 0) {
    const int64_t nb = batch_count(batch);
    const bool batched = A.dim() > 2;
    switch (A.scalar_type()) {
      case ScalarType::Float32:
        eig_batches<float>(A, w.data_ptr<std::complex<float>>(),
                           vectors ? v.data_ptr<std::complex<float>>() : nullptr, nb, n, batched);
        break;
      case ScalarType::Float64:
        eig_batches<double>(A, w.data_ptr<std::complex<double>>(),
                            vectors ? v.data_ptr<std::complex<double>>() : nullptr, nb, n, batched);
        break;
      case ScalarType::Complex64:
        eig_batches<std::complex<float>>(A, w.data_ptr<std::complex<float>>(),
                                         vectors ? v.data_ptr<std::complex<float>>() : nullptr, nb, n, batched);
        break;
      default:
        eig_batches<std::complex<double>>(A, w.data_ptr<std::complex<double>>(),
                                          vectors ? v.data_ptr<std::complex<double>>() : nullptr, nb, n, batched);
    }
  }
  return {w, v};
}

}  // namespace

void linalg_eig_kernel(const Tensor& A, Tensor& eigenvalues, Tensor& eigenvectors) {
  auto [w, v] = eig_compute("linalg.eig", A, true);
  assign_output("linalg.eig", eigenvalues, w, OutDtype::CanCast);
  assign_output("linalg.eig", eigenvectors, v, OutDtype::CanCast);
}

Tensor linalg_eigvals_values(const Tensor& A) { return eig_compute("linalg.eigvals", A, false).first; }

}  // namespace tl::native
