// Cholesky factorization (linalg_cholesky_ex, LAPACK's potrf): A = L L^H, or U^H U when `upper`.
// Each matrix is factored in place in a Fortran-ordered copy (cpu/Lapack.h), the triangle LAPACK
// leaves untouched is then zeroed; the batch is split across threads.
#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/Lapack.h"
#include "generated/ops/copy.h"
#include "generated/ops/cholesky_inverse.h"
#include "generated/ops/cholesky_solve.h"
#include "generated/ops/eye.h"
#include "generated/ops/linalg_cholesky_ex.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/transpose.h"

namespace tl::native {

using namespace linalg;

namespace {

template <typename T>
void cholesky_batches(T* a, int* info, int64_t nb, int64_t n, bool upper) {
  const int in = lapack::to_int("linalg.cholesky", n);
  parallel_for(0, nb, std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(n * n * n, 1)),
               [&](int64_t b0, int64_t b1) {
                 for (int64_t b = b0; b < b1; ++b) {
                   T* m = a + b * n * n;  // element (i, j) at i + j * n
                   info[b] = lapack::potrf<T>(upper, in, m, in);
                   for (int64_t j = 0; j < n; ++j)
                     for (int64_t i = 0; i < n; ++i)
                       if (upper ? i > j : i < j) m[i + j * n] = T(0);
                 }
               });
}

}  // namespace

void linalg_cholesky_ex_kernel(const Tensor& self, bool upper, bool check_errors, Tensor& L, Tensor& info) {
  const char* op = "linalg.cholesky";
  check_ge2(op, self);
  TL_CHECK(is_floating_type(self.scalar_type()), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(self.scalar_type()));
  check_square(op, self);
  check_lapack_dtype(op, "cholesky_cpu", self);
  lapack::require_lapack(op);
  const int64_t n = self.size(-1);
  DimVector batch(batch_dims(self));
  Tensor l = empty_fortran(self.sizes(), self.scalar_type(), self.device());
  Tensor inf = empty_tensor(batch, ScalarType::Int32, self.device());
  if (!self.is_meta()) {
    ops::copy_::call(l, self, false);
    const int64_t nb = batch_count(batch);
    if (n == 0) {
      std::fill_n(inf.data_ptr<int>(), nb, 0);
    } else if (self.scalar_type() == ScalarType::Float32) {
      cholesky_batches<float>(l.data_ptr<float>(), inf.data_ptr<int>(), nb, n, upper);
    } else {
      cholesky_batches<double>(l.data_ptr<double>(), inf.data_ptr<int>(), nb, n, upper);
    }
    if (check_errors)
      check_infos("linalg.cholesky_ex", inf, self.dim() > 2, true, cholesky_failure);
  }
  assign_output("linalg.cholesky_ex", L, l);
  assign_output("linalg.cholesky_ex", info, inf);
}

// cholesky_solve and cholesky_inverse are kernels (not composites of solve_triangular) only for their
// derivative formulas, which follow PyTorch's convention; the solves are two triangular solves.
void cholesky_solve_kernel(const Tensor& self, const Tensor& input2, bool upper, Tensor& out) {
  TL_CHECK(self.dim() >= 2, "b should have at least 2 dimensions, but has ", self.dim(), " dimensions instead");
  TL_CHECK(input2.dim() >= 2, "u should have at least 2 dimensions, but has ", input2.dim(), " dimensions instead");
  if (self.numel() > 0 || input2.numel() > 0) {
    const ScalarType t = promote_types(self.scalar_type(), input2.scalar_type());
    if (t != ScalarType::Float32 && t != ScalarType::Float64)
      throw NotImplementedError(str("cholesky_solve: \"cholesky_solve_cpu\" not implemented for '", legacy_type_name(t), "'"));
  }
  // A = L L^H: solve L Y = B, then L^H X = Y (with L = U^H when `upper`).
  Tensor lower = upper ? ops::transpose_int::call(input2, -2, -1) : input2;
  Tensor y = ops::linalg_solve_triangular::call(lower, self, /*upper=*/false, /*left=*/true, /*unitriangular=*/false);
  Tensor x = ops::linalg_solve_triangular::call(ops::transpose_int::call(lower, -2, -1), y, true, true, false);
  assign_output("cholesky_solve", out, x, OutDtype::CanCast);  // PyTorch casts into a float out
}

void cholesky_inverse_kernel(const Tensor& self, bool upper, Tensor& out) {
  check_square("cholesky_inverse", self, "input");
  Tensor I = ops::eye::call(self.size(-1), self.scalar_type(), std::nullopt, self.device(), std::nullopt);
  Tensor r;
  cholesky_solve_kernel(I, self, upper, r);
  assign_output("cholesky_inverse", out, r, OutDtype::CanCast);
}

}  // namespace tl::native
