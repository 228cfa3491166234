// Solves from factorizations: linalg_lu_solve (LAPACK's getrs on linalg_lu_factor's output) and
// linalg_solve_triangular (the BLAS's trsm). Batch dims of the factor and of B broadcast.
//
// The right-hand sides are copied into the result, laid out so that LAPACK sees a column-major
// matrix it can overwrite: X itself in Fortran order for `A X = B`, and for `X A = B` the
// row-major X, which is X^T in column-major order (X op(A) = B is op(A)^T X^T = B^T). The batch
// is split across threads, each LAPACK/BLAS call single-threaded.
#include <algorithm>
#include <complex>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/FortranCopy.h"
#include "aten/native/cpu/Lapack.h"
#include "generated/ops/copy.h"
#include "generated/ops/expand.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/transpose.h"

namespace tl::native {

using namespace linalg;

namespace {

DimVector with_matrix(IntArrayRef batch, int64_t r, int64_t c) {
  DimVector s(batch);
  s.push_back(r);
  s.push_back(c);
  return s;
}

int64_t solve_grain(int64_t flops) { return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(flops, 1)); }

// `t` broadcast to `shape` and stored as empty_fortran stores it (no copy when it already is).
Tensor fortran_expanded(const Tensor& t, IntArrayRef shape, ScalarType dtype) {
  if (t.sizes() == shape && t.scalar_type() == dtype) return fortran_copy(t);
  Tensor r = empty_fortran(shape, dtype, t.device());
  ops::copy_::call(r, ops::expand::call(t, shape, false), false);
  return r;
}

std::string shape_pair(const Tensor& A, const Tensor& B) {
  return str("(", A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
}

}  // namespace

void linalg_lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint,
                            Tensor& out) {
  const char* op = "linalg.lu_solve";
  check_ge2(op, LU, "LU");
  check_ge2(op, B, "B");
  check_square(op, LU, "LU");
  const int64_t n = LU.size(-1);
  TL_CHECK(left ? B.size(-2) == n : B.size(-1) == n, op, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B " : "XA = B ", shape_pair(LU, B));
  TL_CHECK(pivots.scalar_type() == ScalarType::Int32, op, ": pivots should be a Tensor of scalar type torch.int32");
  TL_CHECK(pivots.dim() >= 1 && pivots.size(-1) == n, op,
           ": Number of pivots per batch should be same as the dimension of the matrix");
  TL_CHECK(pivots.sizes().slice(0, pivots.dim() - 1) == batch_dims(LU), op,
           ": Expected LU.shape[:-2] == pivots.shape[:-1], but got ", batch_dims(LU), " and ",
           pivots.sizes().slice(0, pivots.dim() - 1));
  TL_CHECK(LU.scalar_type() == B.scalar_type(), op, ": Expected LU and B to have the same dtype, but found LU of type ",
           legacy_type_name(LU.scalar_type()), " and B of type ", legacy_type_name(B.scalar_type()), " instead");
  TL_CHECK((is_floating_type(LU.scalar_type()) || is_complex_type(LU.scalar_type())), "torch.linalg.lu_solve: Expected a floating point or complex tensor "
           "as input. Got ", legacy_type_name(LU.scalar_type()));
  check_lapack_dtype(op, "linalg.lu_solve_cpu", LU);
  lapack::require_lapack(op);
  const DimVector batch = broadcast_shapes(batch_dims(B), batch_dims(LU));
  const int64_t rhs = left ? B.size(-1) : B.size(-2);
  const ScalarType dt = LU.scalar_type();
  // Fortran X for A X = B; row-major X (X^T in Fortran order) for X A = B.
  Tensor x = left ? empty_fortran(with_matrix(batch, n, rhs), dt, B.device())
                  : empty_tensor(with_matrix(batch, rhs, n), dt, B.device());
  if (!B.is_meta() && n > 0 && rhs > 0) {
    Tensor lu = fortran_expanded(LU, with_matrix(batch, n, n), dt);
    DimVector piv_shape(batch);
    piv_shape.push_back(n);
    Tensor piv = empty_tensor(piv_shape, ScalarType::Int32, B.device());
    ops::copy_::call(piv, ops::expand::call(pivots, piv_shape, false), false);
    // X A = B is A^T X^T = B^T (a plain transpose); A^H X = B is 'C'. X A^H = B is conj(A) X^T = B^T,
    // which getrs cannot take: A conj(X^T) = conj(B^T) instead (the right-hand sides conjugated
    // before and after the solve).
    const bool is_cplx = is_complex_type(dt);
    const bool conj_rhs = is_cplx && !left && adjoint;
    const char trans = conj_rhs ? 'N' : (left != adjoint) ? 'N' : (left && is_cplx ? 'C' : 'T');
    const int in = lapack::to_int(op, n);
    lapack::to_int(op, rhs);
    const int64_t nb = batch_count(batch);
    const int* pp = piv.data_ptr<int>();
    // B's matrices seen as x's column-major n x rhs buffers: X for A X = B, X^T for X A = B.
    const Tensor be = ops::expand::call(B, x.sizes(), false);
    const int64_t sr = left ? be.stride(-2) : be.stride(-1), sc = left ? be.stride(-1) : be.stride(-2);
    // A task is a whole matrix or, with fewer matrices than threads, a block of its columns (getrs
    // solves each column on its own), so that one large solve uses every thread.
    const int64_t threads = get_num_threads();
    // (Only for many right-hand sides, as inv's: a parallel region costs more than it saves on the loaded
    // machine when the solve is a small part of the call, as solve's 512 x 16 after the LU.)
    const int64_t splits = nb < threads && n * n * rhs >= (int64_t(1) << 25) ? std::min<int64_t>(threads, rhs) : 1;
    auto run = [&](auto* lup, auto* xp) {
      using T = std::remove_pointer_t<decltype(xp)>;
      const T* bp = be.data_ptr<T>();
      parallel_for(0, nb * splits, splits > 1 ? 1 : solve_grain(n * n * rhs), [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t b = t / splits, part = t % splits;
          const int64_t c0 = rhs * part / splits, c1 = rhs * (part + 1) / splits;
          T* xb = xp + b * n * rhs;
          columns_to_fortran(bp + matrix_offset(b, be.sizes(), be.strides()), sr, sc, xb, n, n, c0, c1);
          if constexpr (lapack::is_complex_v<T>)
            if (conj_rhs) for (T* p = xb + c0 * n, *e = xb + c1 * n; p != e; ++p) *p = std::conj(*p);
          lapack::getrs<T>(trans, in, static_cast<int>(c1 - c0), lup + b * n * n, in, pp + b * n, xb + c0 * n, in);
          if constexpr (lapack::is_complex_v<T>)
            if (conj_rhs) for (T* p = xb + c0 * n, *e = xb + c1 * n; p != e; ++p) *p = std::conj(*p);
        }
      });
    };
    dispatch_lapack(dt, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      run(lu.data_ptr<T>(), x.data_ptr<T>());
    });
  }
  assign_output(op, out, x);
}

void linalg_solve_triangular_kernel(const Tensor& self, const Tensor& B, bool upper, bool left, bool unitriangular,
                                    Tensor& out) {
  const char* op = "linalg.solve_triangular";
  check_ge2(op, self);
  check_ge2(op, B, "B");
  check_square(op, self);
  const int64_t n = self.size(-1);
  TL_CHECK(left ? B.size(-2) == n : B.size(-1) == n, op, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B " : "XA = B ", shape_pair(self, B));
  const ScalarType dt = promote_types(self.scalar_type(), B.scalar_type());
  if (!is_lapack_type(dt))
    throw NotImplementedError(str(op, ": \"triangular_solve_cpu\" not implemented for '", legacy_type_name(dt), "'"));
  lapack::require_lapack(op);
  const DimVector batch = broadcast_shapes(batch_dims(B), batch_dims(self));
  const int64_t rhs = left ? B.size(-1) : B.size(-2);
  const DimVector xshape = left ? with_matrix(batch, n, rhs) : with_matrix(batch, rhs, n);
  Tensor x = empty_fortran(xshape, dt, B.device());
  if (!B.is_meta()) {
    ops::copy_::call(x, ops::expand::call(B, xshape, false), false);
    if (n > 0 && rhs > 0) {
      // A row-major A is a Fortran-ordered A^T: solve with op(A) = (A^T)^T and the other triangle.
      const DimVector ashape = with_matrix(batch, n, n);
      bool trans = false, up = upper;
      Tensor a;
      Tensor at = ops::transpose_int::call(self, -2, -1);
      if (self.sizes() == ashape && self.scalar_type() == dt && !is_fortran(self) && is_fortran(at)) {
        a = at, trans = true, up = !upper;
      } else {
        a = fortran_expanded(self, ashape, dt);
      }
      const int in = lapack::to_int(op, n), irhs = lapack::to_int(op, rhs);
      const int64_t nb = batch_count(batch);
      auto run = [&](auto* ap, auto* xp) {
        using T = std::remove_pointer_t<decltype(xp)>;
        parallel_for(0, nb, solve_grain(n * n * rhs), [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b) {
            if (left)
              lapack::trsm<T>(true, up, trans, unitriangular, in, irhs, ap + b * n * n, in, xp + b * n * rhs, in);
            else
              lapack::trsm<T>(false, up, trans, unitriangular, irhs, in, ap + b * n * n, in, xp + b * n * rhs, irhs);
          }
        });
      };
      dispatch_lapack(dt, op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run(a.data_ptr<T>(), x.data_ptr<T>());
      });
    }
  }
  assign_output(op, out, x);
}

}  // namespace tl::native
