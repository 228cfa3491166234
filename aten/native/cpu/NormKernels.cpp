// Vector norms on the reduction engine (ReduceEngine.h): linalg_vector_norm, the aten `norm`
// overloads that PyTorch computes with it, and renorm (which scales the slices of a tensor whose
// norm exceeds a bound).
//
// As in PyTorch's CPU kernels the accumulator is the input's opmath type (float for float32 and
// the 16-bit floats, double for float64), so overflow behaves the same (the 2-norm of float32
// [1e30, 1e30] is inf), and a reduction over dimensions of size 1 only is |x| itself (x != 0 for
// ord 0), not a power and its root.
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/NormDtype.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/ReduceEngine.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/abs.h"
#include "generated/ops/copy.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/norm.h"
#include "generated/ops/renorm.h"
#include "generated/ops/reshape.h"

namespace tl::native {

namespace {

// ------------------------------------------------------------------------------------ op structs

template <typename T>
struct NormZeroOp {  // the number of non-zero elements
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return acc_t(0); }
  acc_t combine(acc_t a, acc_t b) const { return a + b; }
  acc_t reduce(acc_t a, in_t x) const { return a + static_cast<acc_t>(to_opmath(x) != acc_t(0)); }
};
template <typename T>
struct NormOneOp {
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return acc_t(0); }
  acc_t combine(acc_t a, acc_t b) const { return a + b; }
  acc_t reduce(acc_t a, in_t x) const { return a + std::abs(to_opmath(x)); }
};
template <typename T>
struct NormTwoOp {  // the sum of squares; the projection takes the root
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return acc_t(0); }
  acc_t combine(acc_t a, acc_t b) const { return a + b; }
  acc_t reduce(acc_t a, in_t x) const {
    const acc_t v = to_opmath(x);
    return a + v * v;
  }
};
template <typename T>
struct NormPOp {  // the sum of |x|^p; the projection takes the p-th root
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t p;
  acc_t identity() const { return acc_t(0); }
  acc_t combine(acc_t a, acc_t b) const { return a + b; }
  acc_t reduce(acc_t a, in_t x) const { return a + std::pow(std::abs(to_opmath(x)), p); }
};
template <typename T>
struct AbsMaxOp {  // NaN wins
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return acc_t(0); }
  acc_t combine(acc_t a, acc_t b) const { return ((b > a) | (b != b)) ? b : a; }
  acc_t reduce(acc_t a, in_t x) const { return combine(a, std::abs(to_opmath(x))); }
};
template <typename T>
struct AbsMinOp {  // NaN wins
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return std::numeric_limits<acc_t>::infinity(); }
  acc_t combine(acc_t a, acc_t b) const { return ((b < a) | (b != b)) ? b : a; }
  acc_t reduce(acc_t a, in_t x) const { return combine(a, std::abs(to_opmath(x))); }
};

// Folds `src` over `mask` with `op` and writes project(acc) into the contiguous `buf`.
template <typename Op, typename F>
void fold_into(const Op& op, const Tensor& src, uint64_t mask, const Tensor& buf, F project) {
  using T = typename Op::in_t;
  const reduce::Geometry g = reduce::make_geometry(src.sizes(), src.strides(), mask);
  if (g.outputs == 0) return;
  std::vector<reduce::acc_of<Op>> acc(static_cast<size_t>(g.outputs), op.identity());
  if (g.length > 0) reduce::reduce_values(op, src.data_ptr<T>(), g, acc.data());
  T* out = buf.data_ptr<T>();
  for (int64_t k = 0; k < g.outputs; ++k) out[k] = from_opmath<T>(project(acc[static_cast<size_t>(k)]));
}

// The 2-norm where each output's elements are one contiguous run, as PyTorch's vectorized
// last-dim path computes it: one run per output on one thread, threads over outputs only (a single
// norm of a large tensor stays on the calling thread, as in PyTorch).
template <typename T>
bool two_norm_of_rows(const Tensor& src, uint64_t mask, const Tensor& buf) {
  const reduce::Geometry g = reduce::make_geometry(src.sizes(), src.strides(), mask);
  if (g.outputs == 0 || g.length == 0 || g.red.size() != 1 || g.red[0].stride != 1) return false;
  const T* base = src.data_ptr<T>();
  T* out = buf.data_ptr<T>();
  const int64_t n = g.length;
  parallel_for(0, g.outputs, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    reduce::Walker w(g.kept_in, b);
    for (int64_t o = b; o < e; ++o, w.next())
      out[o] = from_opmath<T>(std::sqrt(reduce::fold_contiguous(NormTwoOp<T>{}, base + w.offset, n)));
  });
  return true;
}

template <typename T>
void vector_norm_values(const Tensor& src, double ord, uint64_t mask, const Tensor& buf, bool rows_path) {
  using A = opmath_t<T>;
  auto same = [](A a) { return a; };
  if (ord == 2 && rows_path && two_norm_of_rows<T>(src, mask, buf)) return;
  if (ord == 0) fold_into(NormZeroOp<T>{}, src, mask, buf, same);
  else if (ord == 1) fold_into(NormOneOp<T>{}, src, mask, buf, same);
  else if (ord == 2) fold_into(NormTwoOp<T>{}, src, mask, buf, [](A a) { return std::sqrt(a); });
  else if (std::isinf(ord) && ord > 0) fold_into(AbsMaxOp<T>{}, src, mask, buf, same);
  else if (std::isinf(ord)) fold_into(AbsMinOp<T>{}, src, mask, buf, same);
  else {
    const A p = static_cast<A>(ord), inv = A(1) / p;
    fold_into(NormPOp<T>{p}, src, mask, buf, [inv](A a) { return std::pow(a, inv); });
  }
}

// Where a message names the op: "linalg.vector_norm", or "norm()" for the aten norm overloads.
struct NormNames {
  const char* op;            // prefix of the dim errors and the output checks
  const char* dtype_error;   // the message for a non-floating input, up to the dtype's name
  const char* dtype_suffix;  // what follows the dtype's name
};
constexpr NormNames kVectorNorm{"linalg.vector_norm",
                                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", ""};
constexpr NormNames kAtenNorm{"norm", "norm(): input dtype should be either floating point or complex. Got ",
                              " instead."};

// linalg_vector_norm with PyTorch's checks, in its order; `names` picks the messages.
void vector_norm(const Tensor& self, const Scalar& ord_s, OptionalIntArrayRef dim, bool keepdim,
                 std::optional<ScalarType> dtype, Tensor& out, const NormNames& names) {
  if (is_complex_type(self.dtype())) {
    // The norm of a complex tensor is that of its moduli, in the real type (complex64 -> float32);
    // a `dtype` must then be complex and is the precision the moduli are taken in.
    check_linalg_norm_dtype(dtype, self.dtype(), "linalg.vector_norm");
    const Tensor src = dtype && *dtype != self.dtype() ? tl::_to_copy(self, *dtype) : self;
    if (src.dtype() == ScalarType::Complex32) {
      // PyTorch takes complex32 moduli in float (not rounded to float16) and rounds only the norm.
      Tensor norm32;
      vector_norm(tl::abs(tl::_to_copy(src, ScalarType::Complex64)), ord_s, dim, keepdim, std::nullopt, norm32, names);
      prepare_output(out, {names.op, norm32.sizes(), ScalarType::Float16, self.device(), OutDtype::Exact});
      if (!self.is_meta()) copy_kernel(out, norm32, false);
      return;
    }
    vector_norm(tl::abs(src), ord_s, dim, keepdim, std::nullopt, out, names);
    return;
  }
  TL_CHECK(is_floating_type(self.dtype()), names.dtype_error, legacy_type_name(self.dtype()), names.dtype_suffix);
  const double ord = ord_s.to_double();
  const bool all_dims = !dim || dim->empty();
  if (self.numel() == 0 && (ord < 0 || ord == std::numeric_limits<double>::infinity())) {
    TL_CHECK(!all_dims, "linalg.vector_norm cannot compute the ", ord_s,
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : *dim) {
      const int64_t w = maybe_wrap_dim(d, self.dim(), names.op);
      TL_CHECK(self.dim() == 0 || self.sizes()[w] != 0, "linalg.vector_norm cannot compute the ", ord_s,
               " norm on the dimension ", d, "because this dimension is empty and the operation does not have an ",
               "identity");
    }
  }
  check_linalg_norm_dtype(dtype, self.dtype(), "linalg.vector_norm");
  const uint64_t mask = reduce::reduce_mask(self, dim, names.op);
  const ScalarType st = dtype.value_or(self.dtype());
  const DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {names.op, shape, st, self.device(), OutDtype::Exact});
  if (self.is_meta()) return;

  const Tensor src = st == self.dtype() ? self : tl::_to_copy(self, st);
  // Every reduced dim has size 1: the norm of one element is |x|. (PyTorch reads a 0-d tensor's
  // size past its end when dims are given, and then takes the general path: so do we.)
  bool single = self.dim() > 0 || all_dims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if ((mask >> d & 1) && self.sizes()[d] != 1) single = false;
  if (single) {
    const Tensor v = ord == 0 ? tl::_to_copy(tl::ne(src, Scalar(0)), st) : tl::abs(src);
    tl::copy_(out, tl::reshape(v, shape));
    return;
  }
  Tensor buf = output_buffer(out, st, self);
  // PyTorch's last-dim path: float, double and bfloat16 computed in their own dtype.
  const bool rows_path = st == self.dtype() && (st == ScalarType::Float32 || st == ScalarType::Float64 ||
                                                st == ScalarType::BFloat16);
  TL_DISPATCH_FLOAT(st, names.op, [&] { vector_norm_values<scalar_t>(src, ord, mask, buf, rows_path); });
  commit_output(out, buf);
}

Tensor vector_norm_functional(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                              std::optional<ScalarType> dtype, const NormNames& names) {
  Tensor out;
  vector_norm(self, ord, dim, keepdim, dtype, out, names);
  return out;
}

}  // namespace

void linalg_vector_norm_kernel(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                               std::optional<ScalarType> dtype, Tensor& out) {
  vector_norm(self, ord, dim, keepdim, dtype, out, kVectorNorm);
}

Tensor norm_scalar_kernel(const Tensor& self, const Scalar& p) {
  return vector_norm_functional(self, p, std::nullopt, false, std::nullopt, kAtenNorm);
}

void norm_dim_kernel(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                     Tensor& out) {
  vector_norm(self, p.value_or(Scalar(2.0)), dim, keepdim, std::nullopt, out, kAtenNorm);
}

// PyTorch's aten norm overloads with `dtype` make their result in `dtype` and hand it to
// linalg_vector_norm's out=, which wants the real type: complex input (whose dtype must be complex)
// always fails there. torch.norm / Tensor.norm go to linalg.vector_norm instead and compute.
static void check_aten_norm_dtype(const Tensor& self, ScalarType dtype) {
  check_linalg_norm_dtype(dtype, self.dtype(), "linalg.vector_norm");
  TL_CHECK(!is_complex_type(self.dtype()), "norm: Expected out tensor to have dtype ",
           scalar_type_name(to_real_type(dtype)), ", but got ", scalar_type_name(dtype), " instead");
}

Tensor norm_dtype_kernel(const Tensor& self, const std::optional<Scalar>& p, ScalarType dtype) {
  check_aten_norm_dtype(self, dtype);
  return vector_norm_functional(self, p.value_or(Scalar(2.0)), std::nullopt, false, dtype, kVectorNorm);
}

void norm_dim_dtype_kernel(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                           ScalarType dtype, Tensor& out) {
  check_aten_norm_dtype(self, dtype);
  vector_norm(self, p.value_or(Scalar(2.0)), dim, keepdim, dtype, out, kVectorNorm);
}

// renorm: factor = maxnorm / (norm + 1e-7) where the norm over every dim but `dim` exceeds
// maxnorm, else 1; computed in float for 16-bit inputs, rounded to the input's dtype, multiplied in.
void renorm_kernel(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm, Tensor& out) {
  TL_CHECK(p.to_double() > 0, "renorm: non-positive-norm not supported");
  TL_CHECK(maxnorm.to_double() >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm);
  TL_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  prepare_output(out, {"renorm", self.sizes(), self.dtype(), self.device(), OutDtype::Exact, &self});
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "renorm");
  std::vector<int64_t> reduce_dims(static_cast<size_t>(self.dim()));
  std::iota(reduce_dims.begin(), reduce_dims.end(), 0);
  reduce_dims.erase(reduce_dims.begin() + d);
  const ScalarType acc = is_reduced_float(self.dtype()) ? ScalarType::Float32 : self.dtype();
  const std::optional<ScalarType> norm_dtype = acc == self.dtype() ? std::nullopt : std::optional<ScalarType>(acc);
  const Tensor norm = tl::linalg_vector_norm(self, p, IntArrayRef(reduce_dims), true, norm_dtype);
  if (self.is_meta()) return;
  // Complex: the norms and factors are real (the real dtype of self), multiplied into the complex elements.
  const ScalarType factor_type = is_complex_type(self.dtype()) ? to_real_type(self.dtype()) : self.dtype();
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32, "renorm: not implemented for dtype complex32");
  Tensor factor = empty_tensor(norm.sizes(), factor_type, self.device());
  TL_DISPATCH_FLOAT(factor_type, "renorm", [&] {
    using A = opmath_t<scalar_t>;
    const A bound = static_cast<A>(maxnorm.to_double()), eps = static_cast<A>(1e-7);
    const Tensor n = norm.is_contiguous() ? norm : tl::_to_copy(norm, acc);
    const A* pn = n.data_ptr<A>();
    scalar_t* f = factor.data_ptr<scalar_t>();
    for (int64_t i = 0; i < norm.numel(); ++i) f[i] = static_cast<scalar_t>(pn[i] > bound ? bound / (pn[i] + eps) : A(1));
  });
  tl::mul_out(out, self, factor);
}

}  // namespace tl::native
