// Shared by the LAPACK-backed linalg kernels (cpu/LinalgFactorizations.cpp, cpu/LinalgSolve.cpp)
// and the composites built on them (composite/LinalgLapack.cpp): PyTorch's argument checks, the
// Fortran-ordered (column-major) batches LAPACK works on, and the reading of `info`.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "aten/core/ArrayRef.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/OutputUtils.h"

namespace tl::native::linalg {

// "<op>: The input tensor <name> must have at least 2 dimensions."
void check_ge2(const char* op, const Tensor& A, const char* name = "A");
// "<op>: A must be batches of square matrices, but they are m by n matrices"
void check_square(const char* op, const Tensor& A, const char* name = "A");
// float32/float64/complex64/complex128, the types LAPACK computes in.
inline bool is_lapack_type(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Complex64 ||
         t == ScalarType::Complex128;
}
// The LAPACK types only: integers "<op>: Expected a floating point or complex tensor
// as input. Got Long" and 16-bit floats "<op>: Low precision dtypes not supported. Got Half".
void check_floating(const char* op, const Tensor& A);
// The NotImplementedError PyTorch's LAPACK kernels give other dtypes: `<op>: "lu_cpu" not
// implemented for 'Long'`.
void check_lapack_dtype(const char* op, const char* kernel, const Tensor& A);

// Calls f(LapackTag<T>{}) with T the element type of t (float, double, std::complex<float>,
// std::complex<double>): the kernels' one generic body for the four LAPACK types.
template <typename T>
struct LapackTag {
  using type = T;
};
template <typename F>
void dispatch_lapack(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Float32: f(LapackTag<float>{}); break;
    case ScalarType::Float64: f(LapackTag<double>{}); break;
    case ScalarType::Complex64: f(LapackTag<std::complex<float>>{}); break;
    case ScalarType::Complex128: f(LapackTag<std::complex<double>>{}); break;
    default: TL_ERROR(op, ": unexpected dtype ", scalar_type_name(t), " for LAPACK");
  }
}

// The batch dims of a batch of matrices (all but the last two).
inline IntArrayRef batch_dims(const Tensor& A) { return A.sizes().slice(0, static_cast<size_t>(A.dim() - 2)); }
int64_t batch_count(IntArrayRef batch);

// A new batch of matrices of `shape` with each matrix column-major (Fortran order) and the
// batches one after another: the strides PyTorch's LAPACK results have.
Tensor empty_fortran(IntArrayRef shape, ScalarType dtype, Device device);
// Whether `t` has exactly empty_fortran's strides.
bool is_fortran(const Tensor& t);
// `t` itself when it is in Fortran order, else a Fortran-ordered copy (no autograd: kernels only).
Tensor fortran_copy(const Tensor& t);

// The functional call hands the kernel an undefined `out`: the computed `result` becomes it.
// out= hands a user tensor: checked (exact dtype, device) and resized by prepare_output, then
// `result` is copied in.
// `rule`: how out's dtype must relate to the result's (PyTorch's LAPACK outs: exact).
void assign_output(const char* op, Tensor& out, const Tensor& result, OutDtype rule = OutDtype::Exact);

// Raises for the first failing batch element of `info` (int32, one per matrix), when `info` is on
// the CPU: message(info_value) is the reason; the batch element is named "(Batch element i): "
// when `batched`. `linalg_error` picks torchlite.linalg.LinAlgError over a plain RuntimeError.
template <typename F>
void check_infos(const char* op, const Tensor& info, bool batched, bool linalg_error, F&& message);
// potrf's failure: "The factorization could not be completed because the input is not
// positive-definite (the leading minor of order k is not positive-definite)."
std::string cholesky_failure(int info);
void raise_info(const char* op, bool linalg_error, int64_t batch_index, bool batched, const std::string& why);

template <typename F>
void check_infos(const char* op, const Tensor& info, bool batched, bool linalg_error, F&& message) {
  if (info.is_meta()) return;
  const int* p = info.data_ptr<int>();
  for (int64_t i = 0, n = info.numel(); i < n; ++i)
    if (p[i] != 0) raise_info(op, linalg_error, i, batched, message(p[i]));
}

}  // namespace tl::native::linalg
