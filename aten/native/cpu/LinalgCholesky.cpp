// Cholesky factorization (linalg_cholesky_ex, LAPACK's potrf): A = L L^H, or U^H U when `upper`.
// Each matrix is factored in place in a Fortran-ordered copy (cpu/Lapack.h); the batch is split
// across threads. The copy is made per matrix by the thread that factors it, reading only the
// triangle potrf reads and writing zeros in the other (the result's), in cache-sized tiles: a
// separate copy_ of the whole batch ran as its own parallel region, and on a loaded 2-core machine
// waiting for its second thread cost more than the factorization (512 x 512 float32: 0.6 ms of
// potrf, ~10 ms of copy).
#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/cpu/Lapack.h"
#include "generated/ops/copy.h"
#include "generated/ops/cholesky_inverse.h"
#include "generated/ops/cholesky_solve.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/eye.h"
#include "generated/ops/linalg_cholesky_ex.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/transpose.h"

namespace tl::native {

using namespace linalg;

namespace {

// The matrix at `src` (element (i, j) at i * sr + j * sc) into the column-major n x n `dst`: the
// lower triangle (upper: the upper one) copied, the other zeroed, tile by tile.
template <typename T>
void triangle_to_fortran(const T* src, int64_t sr, int64_t sc, T* dst, int64_t n, bool upper) {
  constexpr int64_t kTile = 32;
  for (int64_t j0 = 0; j0 < n; j0 += kTile) {
    const int64_t j1 = std::min(n, j0 + kTile);
    for (int64_t i0 = 0; i0 < n; i0 += kTile) {
      const int64_t i1 = std::min(n, i0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        T* col = dst + j * n;
        const T* s = src + j * sc;
        for (int64_t i = i0; i < i1; ++i) col[i] = (upper ? i <= j : i >= j) ? s[i * sr] : T(0);
      }
    }
  }
}

template <typename T>
void cholesky_batches(const Tensor& self, T* a, int* info, int64_t nb, int64_t n, bool upper) {
  const int in = lapack::to_int("linalg.cholesky", n);
  const T* src = self.data_ptr<T>();
  const int64_t sr = self.stride(-2), sc = self.stride(-1);
  const IntArrayRef sizes = self.sizes(), strides = self.strides();
  const int64_t nbd = self.dim() - 2;
  parallel_for(0, nb, std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(n * n * n, 1)),
               [&](int64_t b0, int64_t b1) {
                 for (int64_t b = b0; b < b1; ++b) {
                   int64_t offset = 0;  // matrix b of the input, through its batch strides
                   for (int64_t d = nbd - 1, rest = b; d >= 0; --d) {
                     offset += (rest % sizes[d]) * strides[d];
                     rest /= sizes[d];
                   }
                   T* m = a + b * n * n;  // element (i, j) at i + j * n
                   triangle_to_fortran(src + offset, sr, sc, m, n, upper);
                   info[b] = lapack::potrf<T>(upper, in, m, in);
                 }
               });
}

}  // namespace

void linalg_cholesky_ex_kernel(const Tensor& self, bool upper, bool check_errors, Tensor& L, Tensor& info) {
  const char* op = "linalg.cholesky";
  check_ge2(op, self);
  TL_CHECK((is_floating_type(self.scalar_type()) || is_complex_type(self.scalar_type())), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(self.scalar_type()));
  check_square(op, self);
  check_lapack_dtype(op, "cholesky_cpu", self);
  lapack::require_lapack(op);
  const int64_t n = self.size(-1);
  DimVector batch(batch_dims(self));
  Tensor l = empty_fortran(self.sizes(), self.scalar_type(), self.device());
  Tensor inf = empty_tensor(batch, ScalarType::Int32, self.device());
  if (!self.is_meta()) {
    const int64_t nb = batch_count(batch);
    if (n == 0) {
      std::fill_n(inf.data_ptr<int>(), nb, 0);
    } else {
      dispatch_lapack(self.scalar_type(), op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cholesky_batches<T>(self, l.data_ptr<T>(), inf.data_ptr<int>(), nb, n, upper);
      });
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
    if (!is_lapack_type(t))
      throw NotImplementedError(str("cholesky_solve: \"cholesky_solve_cpu\" not implemented for '", legacy_type_name(t), "'"));
  }
  // A = L L^H: solve L Y = B, then L^H X = Y (with L = U^H when `upper`).
  auto adjoint = [](const Tensor& t) {
    Tensor tt = ops::transpose_int::call(t, -2, -1);
    return is_complex_type(t.scalar_type()) ? ops::conj_physical::call(tt) : tt;
  };
  Tensor lower = upper ? adjoint(input2) : input2;
  Tensor y = ops::linalg_solve_triangular::call(lower, self, /*upper=*/false, /*left=*/true, /*unitriangular=*/false);
  Tensor x = ops::linalg_solve_triangular::call(adjoint(lower), y, true, true, false);
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
