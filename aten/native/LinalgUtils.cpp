#include "aten/native/LinalgUtils.h"

#include <string>

#include "aten/core/Exception.h"
#include "aten/core/LinAlgError.h"
#include "aten/native/OutputUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty_strided.h"

namespace tl::native::linalg {

void check_ge2(const char* op, const Tensor& A, const char* name) {
  TL_CHECK(A.dim() >= 2, op, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* op, const Tensor& A, const char* name) {
  check_ge2(op, A, name);
  TL_CHECK(A.size(-1) == A.size(-2), op, ": ", name, " must be batches of square matrices, but they are ",
           A.size(-2), " by ", A.size(-1), " matrices");
}

void check_floating(const char* op, const Tensor& A) {
  const ScalarType t = A.scalar_type();
  TL_CHECK(is_floating_type(t) || is_complex_type(t), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(t));
  // complex32: PyTorch's CPU kernels have no ComplexHalf instance (NotImplementedError, not the Half message).
  TL_CHECK_AS(NotImplementedError, t != ScalarType::Complex32, op, ": not implemented for 'ComplexHalf'");
  TL_CHECK(is_lapack_type(t), op, ": Low precision dtypes not supported. Got ", legacy_type_name(t));
}

void check_lapack_dtype(const char* op, const char* kernel, const Tensor& A) {
  const ScalarType t = A.scalar_type();
  if (!is_lapack_type(t))
    throw NotImplementedError(str(op, ": \"", kernel, "\" not implemented for '", legacy_type_name(t), "'"));
}

int64_t batch_count(IntArrayRef batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

Tensor empty_fortran(IntArrayRef shape, ScalarType dtype, Device device) {
  const size_t nd = shape.size();
  DimVector strides(nd);
  const int64_t m = shape[nd - 2], n = shape[nd - 1];
  strides[nd - 2] = 1;
  strides[nd - 1] = std::max<int64_t>(m, 1);
  int64_t step = std::max<int64_t>(m, 1) * std::max<int64_t>(n, 1);
  for (size_t i = nd - 2; i-- > 0;) {
    strides[i] = step;
    step *= std::max<int64_t>(shape[i], 1);
  }
  return ops::empty_strided::call(shape, strides, dtype, device);
}

bool is_fortran(const Tensor& t) {
  if (t.dim() < 2) return false;
  const int64_t nd = t.dim(), m = t.size(-2), n = t.size(-1);
  if (m > 1 && t.stride(-2) != 1) return false;
  if (n > 1 && t.stride(-1) != m) return false;
  int64_t step = m * n;
  for (int64_t i = nd - 3; i >= 0; --i) {
    if (t.size(i) > 1 && t.stride(i) != step) return false;
    step *= t.size(i);
  }
  return true;
}

Tensor fortran_copy(const Tensor& t) {
  if (is_fortran(t)) return t;
  Tensor r = empty_fortran(t.sizes(), t.scalar_type(), t.device());
  if (!t.is_meta()) ops::copy_::call(r, t, false);
  return r;
}

void assign_output(const char* op, Tensor& out, const Tensor& result, OutDtype rule) {
  if (!out.defined()) {
    out = result;
    return;
  }
  prepare_output(out, {op, result.sizes(), result.scalar_type(), result.device(), rule});
  if (!result.is_meta()) commit_output(out, result);
}

std::string cholesky_failure(int info) {
  return str("The factorization could not be completed because the input is not positive-definite (the leading "
             "minor of order ", info, " is not positive-definite).");
}

void raise_info(const char* op, bool linalg_error, int64_t batch_index, bool batched, const std::string& why) {
  std::string msg = batched ? str(op, ": (Batch element ", batch_index, "): ", why) : str(op, ": ", why);
  if (linalg_error) throw LinAlgError(msg);
  throw RuntimeError(msg);
}

}  // namespace tl::native::linalg
