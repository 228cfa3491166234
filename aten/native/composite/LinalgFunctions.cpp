// torch.linalg functions of matrices built on the factorizations (matrix_power, matrix_exp, pinv,
// matrix_rank, matrix_norm, norm, cond, tensorinv, tensorsolve) and vander, all composite: their
// gradients come from the ops they call (svd, eigh, inv, solve, matmul, ...).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgUtils.h"
#include "aten/native/NormDtype.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/cat.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/div.h"
#include "generated/ops/expand.h"
#include "generated/ops/eye.h"
#include "generated/ops/full.h"
#include "generated/ops/gt.h"
#include "generated/ops/linalg_cond.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_eigvalsh.h"
#include "generated/ops/linalg_inv.h"
#include "generated/ops/linalg_inv_ex.h"
#include "generated/ops/linalg_matrix_exp.h"
#include "generated/ops/linalg_matrix_norm.h"
#include "generated/ops/linalg_matrix_power.h"
#include "generated/ops/linalg_matrix_rank.h"
#include "generated/ops/linalg_norm.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/linalg_solve.h"
#include "generated/ops/linalg_svd.h"
#include "generated/ops/linalg_svdvals.h"
#include "generated/ops/linalg_tensorinv.h"
#include "generated/ops/linalg_tensorsolve.h"
#include "generated/ops/linalg_vander.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/matmul.h"
#include "generated/ops/matrix_exp.h"
#include "generated/ops/matrix_power.h"
#include "generated/ops/movedim.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/pinverse.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/reshape.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

using namespace linalg;

namespace {

Tensor mH(const Tensor& t) { return transpose(t, -2, -1); }

double epsilon(ScalarType t) {
  return (t == ScalarType::Float32 || t == ScalarType::Complex64) ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

// The value of a 0-d tensor computed on the CPU (as double); `fallback` on Meta.
double read_scalar(const Tensor& t, double fallback) {
  if (t.is_meta()) return fallback;
  Tensor d = to(t, ScalarType::Float64);
  return *d.data_ptr<double>();
}

// PyTorch's tolerance rule for pinv and matrix_rank: rtol defaults to eps * max(m, n) unless a positive
// atol is given; the cut is max(atol, rtol * largest).
Tensor cutoff(const Tensor& largest, std::optional<double> atol, std::optional<double> rtol, const Tensor& A) {
  const double a = atol.value_or(0.0);
  const double r = rtol.has_value() ? *rtol
                   : (atol.has_value() && *atol > 0.0) ? 0.0
                   : epsilon(A.scalar_type()) * static_cast<double>(std::max(A.size(-1), A.size(-2)));
  return clamp_min(mul(largest, r), a);
}

void check_float_or_double(const char* what, const Tensor& A) {
  const ScalarType t = A.scalar_type();
  TL_CHECK(A.dim() >= 2 && is_lapack_type(t), what, "(",
           legacy_type_name(t), "{", A.sizes(), "}): expected a tensor with 2 or more dimensions of float, double, "
           "cfloat or cdouble types");
}

}  // namespace

// ---------------------------------------------------------------- matrix_power, matrix_exp

Tensor linalg_matrix_power_composite(const Tensor& self, int64_t n) {
  check_square("linalg.matrix_power", self);
  if (n == 0) {
    // As PyTorch: the identity copied into a clone of A, so the result has a graph (a zero gradient).
    Tensor I = eye(self.size(-1), self.scalar_type(), std::nullopt, self.device());
    return copy_(clone(self), expand(I, self.sizes()));
  }
  Tensor a = n < 0 ? linalg_inv(self) : self;
  uint64_t k = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  if (k == 1) return clone(a);
  // Binary powering: ceil(log2 k) squarings and one product per set bit.
  Tensor result, base = a;
  while (k > 0) {
    if (k & 1) result = result.defined() ? matmul(result, base) : base;
    k >>= 1;
    if (k > 0) base = matmul(base, base);
  }
  return result;
}

Tensor matrix_power_composite(const Tensor& self, int64_t n) { return linalg_matrix_power(self, n); }

Tensor linalg_matrix_exp_composite(const Tensor& self) {
  const char* op = "linalg.matrix_exp";
  check_square(op, self);
  TL_CHECK((is_floating_type(self.scalar_type()) || is_complex_type(self.scalar_type())), op, ": Expected a floating point or complex tensor as input. Got ",
           legacy_type_name(self.scalar_type()));
  // 16-bit floats are computed in float32, as PyTorch.
  const bool reduced = self.scalar_type() == ScalarType::Float16 || self.scalar_type() == ScalarType::BFloat16;
  Tensor A = reduced ? to(self, ScalarType::Float32) : self;
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return clone(self);
  // Scaling and squaring: X = A / 2^s with ||X||_1 <= 1/2, exp(X) by its Taylor series to degree 18
  // (truncation below 1e-22, Horner's scheme: 18 products), then squared s times.
  const double norm = read_scalar(amax(sum(abs(A), IntArrayRef{-2})), 0.0);
  int s = 0;
  if (std::isfinite(norm) && norm > 0.5) s = std::min(1000, static_cast<int>(std::ceil(std::log2(norm / 0.5))));
  Tensor X = s > 0 ? mul(A, std::ldexp(1.0, -s)) : A;
  Tensor I = eye(n, A.scalar_type(), std::nullopt, A.device());
  Tensor E = add(I, div(X, 18.0));
  for (int k = 17; k >= 1; --k) E = add(I, div(matmul(X, E), static_cast<double>(k)));
  for (int i = 0; i < s; ++i) E = matmul(E, E);
  return reduced ? to(E, self.scalar_type()) : E;
}

Tensor matrix_exp_composite(const Tensor& self) { return linalg_matrix_exp(self); }

// ---------------------------------------------------------------- pinv, matrix_rank

Tensor linalg_pinv_atol_rtol_float_composite(const Tensor& self, std::optional<double> atol, std::optional<double> rtol,
                                             bool hermitian) {
  if (atol.has_value() && !rtol.has_value() && self.dim() < 2) {
    // PyTorch reads the matrix sizes for the default rtol before its dtype and rank checks.
    TL_CHECK_INDEX(self.dim() != 0, "Dimension specified as -2 but tensor has no dimensions");
    TL_CHECK_INDEX(false, "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  }
  check_float_or_double("linalg.pinv", self);
  // As PyTorch: the tolerances as float64 tensors, for the overload that holds the computation and
  // PyTorch's gradient formula (cpu/LinalgPinv.cpp).
  const double a = atol.value_or(0.0);
  const double r = rtol.has_value() ? *rtol
                   : (atol.has_value() && *atol > 0.0) ? 0.0
                   : epsilon(self.scalar_type()) * static_cast<double>(std::max(self.size(-1), self.size(-2)));
  return linalg_pinv(self, std::optional<Tensor>(full(IntArrayRef{}, a, ScalarType::Float64, self.device())),
                     std::optional<Tensor>(full(IntArrayRef{}, r, ScalarType::Float64, self.device())), hermitian);
}

Tensor linalg_pinv_composite(const Tensor& self, double rcond, bool hermitian) {
  check_float_or_double("linalg.pinv", self);
  return linalg_pinv(self, 0.0, rcond, hermitian);
}

Tensor pinverse_composite(const Tensor& self, double rcond) { return linalg_pinv(self, rcond); }

Tensor linalg_matrix_rank_atol_rtol_float_composite(const Tensor& self, std::optional<double> atol,
                                                    std::optional<double> rtol, bool hermitian) {
  check_ge2("linalg.matrix_rank", self);
  const ScalarType t = self.scalar_type();
  // An empty input with a tolerance given skips PyTorch's dtype check.
  if (self.numel() == 0 && (atol.has_value() || rtol.has_value()))
    return zeros(batch_dims(self), ScalarType::Int64, self.device());
  TL_CHECK(is_lapack_type(t), "linalg.matrix_rank: This function doesn't handle types other than float and double");
  Tensor S = hermitian ? abs(linalg_eigvalsh(self)) : linalg_svdvals(self);
  if (S.size(-1) == 0) return zeros(batch_dims(self), ScalarType::Int64, self.device());
  Tensor tol = cutoff(amax(S, IntArrayRef{-1}, true), atol, rtol, self);
  return sum(gt(S, tol), IntArrayRef{-1}, false, ScalarType::Int64);
}

Tensor linalg_matrix_rank_composite(const Tensor& self, double tol, bool hermitian) {
  return linalg_matrix_rank(self, tol, 0.0, hermitian);
}

// ---------------------------------------------------------------- norms, cond

namespace {

// Checks A, matrix_norm's two dims (wrapped) and `dtype`, PyTorch's order of checks; the norms
// computed through singular values (2, -2, 'nuc') refuse 16-bit floats.
std::pair<int64_t, int64_t> matrix_dims(const Tensor& A, IntArrayRef dim, std::optional<ScalarType> dtype,
                                        bool low_precision) {
  const char* op = "linalg.matrix_norm";
  TL_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  if (low_precision)
    TL_CHECK((is_floating_type(A.scalar_type()) || is_complex_type(A.scalar_type())), op,
             ": Expected a floating point or complex tensor as input. Got ", legacy_type_name(A.scalar_type()));
  else
    check_floating(op, A);
  TL_CHECK(dim.size() == 2, op, ": dim must be a 2-tuple. Got ", dim);
  const int64_t nd = A.dim();
  int64_t d[2];
  for (int i = 0; i < 2; ++i) {
    TL_CHECK_INDEX(dim[i] >= -nd && dim[i] < nd, "Dimension out of range (expected to be in range of [", -nd, ", ",
                   nd - 1, "], but got ", dim[i], ")");
    d[i] = dim[i] < 0 ? dim[i] + nd : dim[i];
  }
  TL_CHECK(d[0] != d[1], op, ": dims must be different. Got (", d[0], ", ", d[1], ")");
  check_linalg_norm_dtype(dtype, A.scalar_type(), op);
  return {d[0], d[1]};
}

// The singular values of A's matrices spanned by dims (d0, d1).
Tensor svdvals_over(const Tensor& A, int64_t d0, int64_t d1) {
  return linalg_svdvals(movedim(A, IntArrayRef{d0, d1}, IntArrayRef{-2, -1}));
}

// Puts back the two reduced dims of size 1 (keepdim), in increasing order.
Tensor keep_dims(Tensor r, int64_t d0, int64_t d1) {
  r = unsqueeze(r, std::min(d0, d1));
  return unsqueeze(r, std::max(d0, d1));
}

std::string ord_name(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  if (ord == std::floor(ord)) return std::to_string(static_cast<int64_t>(ord));
  return str(ord);
}

}  // namespace

Tensor linalg_matrix_norm_composite(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                                    std::optional<ScalarType> dtype) {
  const double o = ord.to_double();
  const double ao = std::abs(o);
  TL_CHECK(ao == 2 || ao == 1 || std::isinf(o), "linalg.matrix_norm: Order ", ord_name(o), " not supported.");
  auto [d0, d1] = matrix_dims(self, dim, dtype, /*low_precision=*/ao != 2);
  Tensor A = dtype ? to(self, *dtype) : self;
  if (ao == 2) {
    Tensor S = svdvals_over(A, d0, d1);
    if (o > 0 && S.size(-1) == 0) {  // no singular values: PyTorch's largest is 0 (the smallest raises)
      Tensor z = sum(S, IntArrayRef{-1});
      return keepdim ? keep_dims(z, d0, d1) : z;
    }
    Tensor r = o > 0 ? amax(S, IntArrayRef{-1}) : amin(S, IntArrayRef{-1});
    return keepdim ? keep_dims(r, d0, d1) : r;
  }
  // 1-norms: the largest column sum (dim d0 summed); inf-norms: the largest row sum.
  const int64_t summed = ao == 1 ? d0 : d1, reduced = ao == 1 ? d1 : d0;
  Tensor sums = sum(abs(A), IntArrayRef{summed}, true);
  Tensor r = o > 0 ? amax(sums, IntArrayRef{reduced}, true) : amin(sums, IntArrayRef{reduced}, true);
  return keepdim ? r : squeeze(r, IntArrayRef{d0, d1});
}

Tensor linalg_matrix_norm_str_ord_composite(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                                            std::optional<ScalarType> dtype) {
  TL_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  auto [d0, d1] = matrix_dims(self, dim, dtype, /*low_precision=*/ord != "nuc");
  if (ord == "fro") return linalg_vector_norm(self, 2, IntArrayRef{d0, d1}, keepdim, dtype);
  Tensor A = dtype ? to(self, *dtype) : self;
  Tensor r = sum(svdvals_over(A, d0, d1), IntArrayRef{-1});
  return keepdim ? keep_dims(r, d0, d1) : r;
}

Tensor linalg_norm_composite(const Tensor& self, const std::optional<Scalar>& ord, OptionalIntArrayRef dim,
                             bool keepdim, std::optional<ScalarType> dtype) {
  if (dim.has_value()) {
    TL_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
             *dim);
  } else if (ord.has_value()) {
    TL_CHECK(self.dim() == 1 || self.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be "
             "1D or 2D. Got ", self.dim(), "D.");
  }
  const bool matrix = ord.has_value() && ((dim.has_value() && dim->size() == 2) || (!dim.has_value() && self.dim() == 2));
  if (matrix) {
    DimVector d = dim.has_value() ? DimVector(*dim) : DimVector{-2, -1};
    return linalg_matrix_norm(self, *ord, d, keepdim, dtype);
  }
  return linalg_vector_norm(self, ord.value_or(2), dim, keepdim, dtype);
}

Tensor linalg_norm_ord_str_composite(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim, bool keepdim,
                                     std::optional<ScalarType> dtype) {
  if (dim.has_value()) {
    TL_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
             *dim);
  } else {
    TL_CHECK(self.dim() == 1 || self.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be "
             "1D or 2D. Got ", self.dim(), "D.");
  }
  DimVector d = dim.has_value() ? DimVector(*dim) : DimVector{-2, -1};
  return linalg_matrix_norm(self, ord, d, keepdim, dtype);
}

namespace {

// cond is real for complex input too.
ScalarType real_of(const Tensor& t) {
  return is_complex_type(t.scalar_type()) ? to_real_type(t.scalar_type()) : t.scalar_type();
}

// cond for the norms other than 2: ||A|| ||A^-1|| over square matrices, inf where A is singular.
Tensor cond_by_inverse(const Tensor& A, const std::string& name, const std::function<Tensor(const Tensor&)>& norm) {
  check_square(str("linalg.cond(ord=", name, ")").c_str(), A);
  auto [inv, info] = linalg_inv_ex(A);
  Tensor r = mul(norm(A), norm(inv));
  return where(gt(info, 0), std::numeric_limits<double>::infinity(), r);
}

}  // namespace

Tensor linalg_cond_composite(const Tensor& self, const std::optional<Scalar>& p) {
  check_ge2("linalg.cond", self);
  if (self.numel() == 0) return zeros(batch_dims(self), real_of(self), self.device());  // as PyTorch, any dtype
  const double o = p.has_value() ? p->to_double() : 2.0;
  if (std::abs(o) == 2) {
    check_ge2("linalg.cond", self);
    Tensor S = linalg_svdvals(self);
    if (S.size(-1) == 0) return zeros(batch_dims(self), real_of(self), self.device());
    Tensor big = narrow(S, -1, 0, 1), small = narrow(S, -1, S.size(-1) - 1, 1);
    return squeeze(o > 0 ? div(big, small) : div(small, big), -1);
  }
  TL_CHECK(std::abs(o) == 1 || std::isinf(o), "linalg.cond got an invalid norm type: ", ord_name(o));
  return cond_by_inverse(self, ord_name(o), [&](const Tensor& m) { return linalg_matrix_norm(m, *p); });
}

Tensor linalg_cond_p_str_composite(const Tensor& self, std::string_view p) {
  TL_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  check_ge2("linalg.cond", self);
  if (self.numel() == 0) return zeros(batch_dims(self), real_of(self), self.device());
  const std::string name(p);
  return cond_by_inverse(self, name, [&](const Tensor& m) { return linalg_matrix_norm(m, name); });
}

// ---------------------------------------------------------------- tensorinv, tensorsolve, vander

Tensor linalg_tensorinv_composite(const Tensor& self, int64_t ind) {
  TL_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  IntArrayRef shape = self.sizes();
  TL_CHECK(ind <= self.dim(), "Expected a strictly positive integer for 'ind' at most the number of dimensions, but "
           "got ", ind);
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < ind; ++i) rows *= shape[i];
  for (int64_t i = ind; i < self.dim(); ++i) cols *= shape[i];
  TL_CHECK(rows == cols, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
           "but got ", cols, " != ", rows);
  DimVector out_shape;
  for (int64_t i = ind; i < self.dim(); ++i) out_shape.push_back(shape[i]);
  for (int64_t i = 0; i < ind; ++i) out_shape.push_back(shape[i]);
  return reshape(linalg_inv(reshape(self, IntArrayRef{rows, cols})), out_shape);
}

Tensor linalg_tensorsolve_composite(const Tensor& self, const Tensor& other, OptionalIntArrayRef dims) {
  Tensor A = self;
  if (dims.has_value() && !dims->empty()) {
    DimVector dest;
    for (size_t i = 0; i < dims->size(); ++i) dest.push_back(self.dim() - static_cast<int64_t>(dims->size()) + i);
    A = movedim(self, *dims, dest);
  }
  const int64_t nb = other.dim();
  int64_t rows = 1, cols = 1;
  DimVector out_shape;
  for (int64_t i = 0; i < A.dim(); ++i) {
    if (i < nb) rows *= A.size(i);
    else cols *= A.size(i), out_shape.push_back(A.size(i));
  }
  TL_CHECK(rows == cols, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
           "prod(self.shape[:other.ndim]), but got ", cols, " != ", rows);
  Tensor x = linalg_solve(reshape(A, IntArrayRef{rows, cols}), reshape(other, IntArrayRef{rows}));
  return reshape(x, out_shape);
}

Tensor linalg_vander_composite(const Tensor& x, std::optional<int64_t> N) {
  // PyTorch refuses bool and the 16-bit floats alike.
  const ScalarType t = x.scalar_type();
  TL_CHECK(t != ScalarType::Bool && t != ScalarType::Float16 && t != ScalarType::BFloat16,
           "linalg.vander supports floating point, complex, and integer tensors, but got ", legacy_type_name(t));
  const int64_t n = N.value_or(x.dim() >= 1 ? x.size(-1) : 1);
  TL_CHECK(n > 1, "N must be greater than 1.");
  // Powers 0..N-1 by a running product (no pow: its gradient at x = 0 would be NaN). A 0-d x is one point.
  Tensor x1 = x.dim() == 0 ? reshape(x, IntArrayRef{1}) : x;
  Tensor col = unsqueeze(x1, -1);
  DimVector rest(x1.sizes());
  rest.push_back(n - 1);
  Tensor parts = cat({ones_like(col), expand(col, rest)}, -1);
  return cumprod(parts, -1);  // integers accumulate in int64, as PyTorch
}

}  // namespace tl::native
