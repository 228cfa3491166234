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
#include "generated/ops/linalg_cholesky_ex.h"

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

}  // namespace tl::native
