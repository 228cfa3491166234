// LU factorization (linalg_lu_factor_ex, LAPACK's getrf) and its unpacking (lu_unpack).
//
// Each matrix is factored in place in a Fortran-ordered copy (cpu/Lapack.h: LAPACK is
// column-major), which is also the layout PyTorch returns LU in; the batch is split across threads
// with tl::parallel_for, each LAPACK call single-threaded; a single large matrix is factored by
// cpu/LuBlocked.h with its update split across the threads.
#include <algorithm>
#include <numeric>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/FortranCopy.h"
#include "aten/native/cpu/Lapack.h"
#include "aten/native/cpu/LuBlocked.h"
#include "generated/ops/copy.h"
#include "generated/ops/linalg_lu_factor_ex.h"
#include "generated/ops/lu_unpack.h"

namespace tl::native {

using namespace linalg;

namespace {

// Batches are given whole to threads; small matrices are grouped so each task has real work.
int64_t batch_grain(int64_t flops_per_matrix) {
  return std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(flops_per_matrix, 1));
}

// Each matrix is copied into its Fortran buffer by the thread that factors it (cpu/FortranCopy.h).
// Fewer matrices than threads, each large: one at a time, its update split across the threads
// (cpu/LuBlocked.h), which also copies it.
template <typename T>
void lu_factor_batches(const Tensor& A, T* lu, int* piv, int* info, int64_t nb, int64_t m, int64_t n) {
  const int64_t k = std::min(m, n);
  const int im = lapack::to_int("linalg.lu_factor", m), in = lapack::to_int("linalg.lu_factor", n);
  const int lda = std::max(im, 1);
  const T* src = A.data_ptr<T>();
  const int64_t sr = A.stride(-2), sc = A.stride(-1);
  const IntArrayRef sizes = A.sizes(), strides = A.strides();
  if (nb < get_num_threads() && k >= kLuParallelMin && !in_parallel_region()) {
    for (int64_t b = 0; b < nb; ++b) {
      const T* s = src + matrix_offset(b, sizes, strides);
      T* a = lu + b * m * n;
      info[b] = lu_parallel<T>(m, n, a, lda, piv + b * k,
                               [&](int64_t c0, int64_t c1) { columns_to_fortran(s, sr, sc, a, m, m, c0, c1); });
    }
    return;
  }
  parallel_for(0, nb, batch_grain(m * n * k), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      T* a = lu + b * m * n;
      columns_to_fortran(src + matrix_offset(b, sizes, strides), sr, sc, a, m, m, 0, n);
      info[b] = lapack::getrf<T>(im, in, a, lda, piv + b * k);
    }
  });
}

}  // namespace

void linalg_lu_factor_ex_kernel(const Tensor& A, bool pivot, bool check_errors, Tensor& LU, Tensor& pivots,
                                Tensor& info) {
  if (A.dim() < 2)
    TL_ERROR("torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ", A.sizes(), " instead");
  // PyTorch's dtype dispatch is never reached for an empty input: any dtype passes.
  if (A.numel() > 0) check_lapack_dtype("linalg.lu_factor_ex", "lu_cpu", A);
  TL_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  lapack::require_lapack("linalg.lu_factor_ex");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  DimVector batch(batch_dims(A));
  DimVector piv_shape(batch);
  piv_shape.push_back(k);

  Tensor lu = empty_fortran(A.sizes(), A.scalar_type(), A.device());
  Tensor piv = empty_tensor(piv_shape, ScalarType::Int32, A.device());
  Tensor inf = empty_tensor(batch, ScalarType::Int32, A.device());
  if (!A.is_meta()) {
    const int64_t nb = batch_count(batch);
    if (nb == 0 || m == 0 || n == 0) {  // (an empty input of any dtype: PyTorch checks none)
      std::fill_n(inf.data_ptr<int>(), nb, 0);
    } else {
      dispatch_lapack(A.scalar_type(), "linalg.lu_factor_ex", [&](auto tag) {
        using T = typename decltype(tag)::type;
        lu_factor_batches<T>(A, lu.data_ptr<T>(), piv.data_ptr<int>(), inf.data_ptr<int>(), nb, m, n);
      });
    }
    if (check_errors)
      check_infos("torch.linalg.lu_factor_ex", inf, A.dim() > 2, false, [](int i) {
        return str("U[", i, ",", i, "] is zero and using it on lu_solve would result in a division by zero. "
                   "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                   "linalg.lu_factor_ex(A, pivot)");
      });
  }
  assign_output("linalg.lu_factor_ex", LU, lu);
  assign_output("linalg.lu_factor_ex", pivots, piv);
  assign_output("linalg.lu_factor_ex", info, inf);
}

namespace {

// P (m x m) with A = P L U from getrf's 1-based interchanges: row i was swapped with row piv[i].
void permutation_from_pivots(const int* piv, int64_t m, int64_t k, std::vector<int64_t>& perm) {
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = 0; i < k; ++i) {
    const int64_t j = piv[i] - 1;
    TL_CHECK(j >= i && j < m, "lu_unpack: invalid pivot ", piv[i], " at position ", i,
             " (pivots must be in [i + 1, m] for a factorization from linalg.lu_factor)");
    std::swap(perm[i], perm[j]);
  }
}

template <typename T>
void unpack_batches(const Tensor& lu_f, const int* piv, int64_t nb, int64_t m, int64_t n, bool data, bool pivots,
                    T* P, T* L, T* U) {
  const int64_t k = std::min(m, n);
  const T one = static_cast<T>(1.0f), zero = static_cast<T>(0.0f);
  const T* lu = lu_f.data_ptr<T>();  // Fortran order: element (i, j) at i + j * m
  parallel_for(0, nb, batch_grain(m * n), [&](int64_t b0, int64_t b1) {
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t b = b0; b < b1; ++b) {
      const T* a = lu + b * m * n;
      if (data) {
        T* l = L + b * m * k;  // row-major m x k
        T* u = U + b * k * n;  // row-major k x n
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j) l[i * k + j] = i > j ? a[i + j * m] : (i == j ? one : zero);
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) u[i * n + j] = j >= i ? a[i + j * m] : zero;
      }
      if (pivots) {
        permutation_from_pivots(piv + b * k, m, k, perm);
        T* p = P + b * m * m;
        std::fill_n(p, m * m, zero);
        for (int64_t i = 0; i < m; ++i) p[perm[i] * m + i] = one;  // (P^T A)[i] = A[perm[i]]
      }
    }
  });
}

}  // namespace

void lu_unpack_kernel(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data, bool unpack_pivots, Tensor& P,
                      Tensor& L, Tensor& U) {
  TL_CHECK(LU_data.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
           LU_data.sizes(), " instead");
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  // PyTorch unpacks L and U with tril/triu, which have no uint16/uint32/uint64 instances.
  const ScalarType data_type = LU_data.scalar_type();
  TL_CHECK_AS(NotImplementedError,
              !unpack_data || (data_type != ScalarType::UInt16 && data_type != ScalarType::UInt32 &&
                               data_type != ScalarType::UInt64),
              "lu_unpack: not implemented for dtype ", scalar_type_name(data_type));
  if (unpack_pivots) {
    TL_CHECK(LU_pivots.scalar_type() == ScalarType::Int32,
             "lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
             "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor");
  }
  // PyTorch reads nothing of the pivots of an empty LU, so checks nothing else about them.
  if (unpack_pivots && LU_data.numel() > 0) {
    TL_CHECK(LU_pivots.dim() >= 1 && LU_pivots.size(-1) == k,
             "lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), LU_data.size(-2)) but got ",
             LU_pivots.dim() >= 1 ? LU_pivots.size(-1) : 0, " vs ", k);
    TL_CHECK(LU_pivots.sizes().slice(0, LU_pivots.dim() - 1) == batch_dims(LU_data),
             "lu_unpack: Expected LU_pivots.shape[:-1] to be the same as LU_data.shape[:-2] but got ",
             LU_pivots.sizes().slice(0, LU_pivots.dim() - 1), " vs ", batch_dims(LU_data));
  }
  DimVector batch(batch_dims(LU_data));
  auto shape = [&](int64_t r, int64_t c) {
    DimVector s(batch);
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  const ScalarType dt = LU_data.scalar_type();
  const Device dev = LU_data.device();
  Tensor p = unpack_pivots ? empty_tensor(shape(m, m), dt, dev) : empty_tensor({0}, dt, dev);
  Tensor l = unpack_data ? empty_tensor(shape(m, k), dt, dev) : empty_tensor({0}, dt, dev);
  Tensor u = unpack_data ? empty_tensor(shape(k, n), dt, dev) : empty_tensor({0}, dt, dev);
  if (!LU_data.is_meta() && (unpack_data || unpack_pivots)) {
    Tensor lu_f = fortran_copy(LU_data);
    Tensor piv;
    if (unpack_pivots) {
      piv = empty_tensor(LU_pivots.sizes(), ScalarType::Int32, dev);
      ops::copy_::call(piv, LU_pivots, false);
    }
    const int* pp = unpack_pivots ? piv.data_ptr<int>() : nullptr;
    const int64_t nb = batch_count(batch);
    // Any dtype, as PyTorch (only the factorization itself needs float32/float64).
    TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(dt, "lu_unpack", [&] {
      unpack_batches<scalar_t>(lu_f, pp, nb, m, n, unpack_data, unpack_pivots, p.data_ptr<scalar_t>(),
                               l.data_ptr<scalar_t>(), u.data_ptr<scalar_t>());
    });
  }
  assign_output("lu_unpack", P, p);
  assign_output("lu_unpack", L, l);
  assign_output("lu_unpack", U, u);
}

}  // namespace tl::native
