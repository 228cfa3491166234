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
#include "generated/ops/bmm.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/real.h"
#include "generated/ops/reshape.h"
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

namespace {

template <typename T>
T conj_of(T x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

// LAPACK's potri (what PyTorch calls) computes Li^H Li, Li = L^-1, with lauum, which reads each
// diagonal element of Li as its real part (the factor of a Hermitian positive-definite matrix has a
// real diagonal): row i of the lower triangle is Re(Li_ii) Li_ij + sum_{k>i} conj(Li_ki) Li_kj, the
// diagonal before the last is real, the last is Re(Li_nn) Li_nn. `r` holds D^H Li (D = Li with a
// real diagonal, so the off-diagonal entries are already those); this makes the diagonal potri's and
// fills the upper triangle from the lower one, as PyTorch does after potri. `upper` (U = L^H) gives
// the conjugate diagonal (lauum's upper branch is this one mirrored). For a real diagonal (every
// genuine Cholesky factor) this is the exact (L L^H)^-1, Hermitian with a real diagonal.
template <typename T>
void potri_layout(T* r, int64_t nb, int64_t n, bool upper) {
  for (int64_t b = 0; b < nb; ++b) {
    T* m = r + b * n * n;  // row-major
    for (int64_t i = 0; i < n; ++i) {
      T& d = m[i * n + i];
      if (i + 1 < n) d = T(std::real(d));
      else if (upper) d = conj_of(d);
      for (int64_t j = 0; j < i; ++j) m[j * n + i] = conj_of(m[i * n + j]);
    }
  }
}

}  // namespace

void cholesky_inverse_kernel(const Tensor& self, bool upper, Tensor& out) {
  check_square("cholesky_inverse", self, "A");
  const ScalarType t = self.scalar_type();
  if (self.numel() > 0 && !is_lapack_type(t))
    throw NotImplementedError(str("cholesky_inverse: \"cholesky_inverse_out_cpu\" not implemented for '",
                                  legacy_type_name(t), "'"));
  const int64_t n = self.size(-1);
  auto adjoint = [](const Tensor& x) {
    Tensor xt = ops::transpose_int::call(x, -2, -1);
    return is_complex_type(x.scalar_type()) ? ops::conj_physical::call(xt) : xt;
  };
  // Li = L^-1 (L = U^H when `upper`), lower triangular; D = Li with its diagonal's real parts.
  const Tensor lower = upper ? adjoint(self) : self;
  const Tensor I = ops::eye::call(n, t, std::nullopt, self.device(), std::nullopt);
  const Tensor Li = tl::contiguous(
      ops::linalg_solve_triangular::call(lower, I, /*upper=*/false, /*left=*/true, /*unitriangular=*/false));
  const int64_t nb = batch_count(batch_dims(Li));
  const Tensor Li3 = tl::reshape(Li, IntArrayRef{nb, n, n});
  Tensor D3 = Li3;
  if (is_complex_type(t)) {
    D3 = ops::clone::call(Li3, std::nullopt);
    ops::copy_::call(ops::diagonal::call(D3, 0, -2, -1), tl::real(ops::diagonal::call(Li3, 0, -2, -1)), false);
  }
  Tensor r = tl::contiguous(ops::bmm::call(adjoint(D3), Li3));
  if (!self.is_meta())
    dispatch_lapack(t, "cholesky_inverse", [&](auto tag) {
      using T = typename decltype(tag)::type;
      potri_layout<T>(r.data_ptr<T>(), nb, n, upper);
    });
  assign_output("cholesky_inverse", out, tl::reshape(r, Li.sizes()), OutDtype::CanCast);
}

}  // namespace tl::native
