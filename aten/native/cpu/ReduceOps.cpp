// Reductions on the reduction engine (ReduceEngine.h): prod, amax/amin, max/min (all and
// .dim with indices), argmax/argmin, aminmax, any/all, count_nonzero, var/std (and _mean),
// logsumexp. Each is an op struct (identity, reduce, combine) and a kernel that parses the
// arguments, checks them as PyTorch does, prepares the outputs (OutputUtils.h) and projects the
// accumulators into them. sum and mean live in Reduce.cpp (cascade summation).
#include <cmath>
#include <limits>
#include <memory>

#include "aten/core/Exception.h"
#include "aten/core/Warning.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/ReduceEngine.h"
#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_clone_contiguous.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/all.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/any.h"
#include "generated/ops/argmax.h"
#include "generated/ops/argmin.h"
#include "generated/ops/complex.h"
#include "generated/ops/copy.h"
#include "generated/ops/count_nonzero.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/log.h"
#include "generated/ops/logsumexp.h"
#include "generated/ops/max.h"
#include "generated/ops/mean.h"
#include "generated/ops/min.h"
#include "generated/ops/nansum.h"
#include "generated/ops/ne.h"
#include "generated/ops/prod.h"
#include "generated/ops/real.h"
#include "generated/ops/reshape.h"
#include "generated/ops/select.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/to.h"
#include "generated/ops/std.h"
#include "generated/ops/std_mean.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/var.h"
#include "generated/ops/var_mean.h"
#include "generated/ops/view_as_real.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {

using reduce::Geometry;

namespace {

// ------------------------------------------------------------------------------------ op structs

template <typename A>
TL_ALWAYS_INLINE bool is_nan(A x) {
  if constexpr (std::is_floating_point_v<A>) return x != x;
  else return false;
}
template <typename A>
constexpr A lowest() {
  if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::lowest();
}
template <typename A>
constexpr A highest() {
  if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::max();
}

// Largest / smallest value; NaN wins.
template <typename T>
struct MaxOp {
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return lowest<acc_t>(); }
  acc_t combine(acc_t a, acc_t b) const { return ((b > a) | is_nan(b)) ? b : a; }
  acc_t reduce(acc_t a, in_t x) const { return combine(a, to_opmath(x)); }
};
template <typename T>
struct MinOp {
  using in_t = T;
  using acc_t = opmath_t<T>;
  acc_t identity() const { return highest<acc_t>(); }
  acc_t combine(acc_t a, acc_t b) const { return ((b < a) | is_nan(b)) ? b : a; }
  acc_t reduce(acc_t a, in_t x) const { return combine(a, to_opmath(x)); }
};

template <typename A>
struct MinMax {
  A lo, hi;
};
template <typename T>
struct MinMaxOp {
  using in_t = T;
  using acc_t = MinMax<opmath_t<T>>;
  acc_t identity() const { return {MinOp<T>{}.identity(), MaxOp<T>{}.identity()}; }
  acc_t combine(acc_t a, acc_t b) const { return {MinOp<T>{}.combine(a.lo, b.lo), MaxOp<T>{}.combine(a.hi, b.hi)}; }
  acc_t reduce(acc_t a, in_t x) const {
    const opmath_t<T> v = to_opmath(x);
    return {MinOp<T>{}.combine(a.lo, v), MaxOp<T>{}.combine(a.hi, v)};
  }
};

// Integers multiply in uint64 (two's complement wrap-around without signed-overflow UB).
template <typename T>
using prod_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>, uint64_t>;
template <typename T>
struct ProdOp {
  using in_t = T;
  using acc_t = prod_acc_t<T>;
  acc_t identity() const { return acc_t(1); }
  acc_t combine(acc_t a, acc_t b) const { return a * b; }
  acc_t reduce(acc_t a, in_t x) const {
    if constexpr (std::is_same_v<acc_t, uint64_t>) return a * static_cast<uint64_t>(static_cast<int64_t>(x));
    else return a * to_opmath(x);
  }
};

// Complex products: the schoolbook formula, in the element type (PyTorch's CPU prod of complex).
template <typename T>
struct ComplexProdOp {
  using in_t = T;
  using acc_t = T;
  acc_t identity() const { return acc_t(1, 0); }
  acc_t combine(acc_t a, acc_t b) const { return cmath::mul(a, b); }
  acc_t reduce(acc_t a, in_t x) const { return cmath::mul(a, x); }
};

template <typename T, bool kAny>
struct AnyAllOp {
  using in_t = T;
  using acc_t = bool;
  acc_t identity() const { return !kAny; }
  acc_t combine(acc_t a, acc_t b) const { return kAny ? (a | b) : (a & b); }
  acc_t reduce(acc_t a, in_t x) const { return combine(a, to_opmath(x) != opmath_t<T>(0)); }
};

template <typename T>
struct CountNonzeroOp {
  using in_t = T;
  using acc_t = int64_t;
  acc_t identity() const { return 0; }
  acc_t combine(acc_t a, acc_t b) const { return a + b; }
  acc_t reduce(acc_t a, in_t x) const { return a + (to_opmath(x) != opmath_t<T>(0)); }
};

// Welford's running mean and sum of squared deviations, in double; partial results merge with
// Chan et al.'s formula. Numerically stable whatever the mean's size.
struct Welford {
  double mean, m2, n;
};
template <typename T>
struct WelfordOp {
  using in_t = T;
  using acc_t = Welford;
  acc_t identity() const { return {0, 0, 0}; }
  acc_t reduce(acc_t a, in_t x) const {
    const double v = static_cast<double>(to_opmath(x));
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / a.n;
    a.m2 += d * (v - a.mean);
    return a;
  }
  acc_t combine(acc_t a, acc_t b) const {
    const double n = a.n + b.n;
    if (n == 0) return a;
    const double d = b.mean - a.mean, wb = b.n / n;
    return {a.mean + d * wb, a.m2 + b.m2 + d * d * a.n * wb, n};
  }
};

// argmax / argmin / max.dim / min.dim: strict order, NaN beats every number.
template <typename T>
struct ArgMaxOp {
  using in_t = T;
  using val_t = opmath_t<T>;
  val_t load(in_t x) const { return to_opmath(x); }
  bool better(val_t x, val_t cur) const { return (x > cur) | (is_nan(x) & !is_nan(cur)); }
};
template <typename T>
struct ArgMinOp {
  using in_t = T;
  using val_t = opmath_t<T>;
  val_t load(in_t x) const { return to_opmath(x); }
  bool better(val_t x, val_t cur) const { return (x < cur) | (is_nan(x) & !is_nan(cur)); }
};

// ------------------------------------------------------------------------------------ drivers

template <typename A>
using Buffer = std::unique_ptr<A[]>;

// Accumulators of every output of `op` over the dims in `mask` of `src`.
template <typename Op>
Buffer<reduce::acc_of<Op>> run_values(const Op& op, const Tensor& src, uint64_t mask, bool drop_broadcast,
                                      int64_t& outputs) {
  const Geometry g = reduce::make_geometry(src.sizes(), src.strides(), mask, drop_broadcast);
  outputs = g.outputs;
  Buffer<reduce::acc_of<Op>> acc(new reduce::acc_of<Op>[static_cast<size_t>(std::max<int64_t>(g.outputs, 1))]);
  if (g.outputs == 0) return acc;
  if (g.length == 0) {
    for (int64_t k = 0; k < g.outputs; ++k) acc[k] = op.identity();
    return acc;
  }
  reduce::reduce_values(op, src.data_ptr<typename Op::in_t>(), g, acc.get());
  return acc;
}

// Writes f(acc[k]) into the contiguous tensor `buf` of element type out_t.
template <typename out_t, typename A, typename F>
void project(const Tensor& buf, const A* acc, int64_t n, F f) {
  out_t* d = buf.data_ptr<out_t>();
  for (int64_t k = 0; k < n; ++k) d[k] = f(acc[k]);
}

uint64_t one_dim_mask(const Tensor& self, int64_t dim, const char* op) {
  return reduce::reduce_mask(self, IntArrayRef(&dim, 1), op);
}

// PyTorch's checks for reductions without an identity (max, amax, argmax...): reducing an empty
// tensor needs explicit dims, and no reduced dim may have size 0.
void check_has_elements(const Tensor& self, uint64_t mask, bool dims_given, const char* op, bool index_error_all) {
  if (self.numel() != 0) return;
  if (!dims_given) {
    if (index_error_all)
      throw IndexError(str(op, ": Expected reduction dim to be specified for input.numel() == 0."));
    throw RuntimeError(str(op, ": Expected reduction dim to be specified for input.numel() == 0. ",
                           "Specify the reduction dim with the 'dim' argument."));
  }
  for (int64_t d = 0; d < self.dim(); ++d)
    if ((mask >> d & 1) && self.sizes()[d] == 0)
      throw IndexError(str(op, ": Expected reduction dim ", d, " to have non-zero size."));
}

// ------------------------------------------------------------------------------------ amax / amin / max / min

template <template <typename> class Op>
void extremum(const Tensor& self, uint64_t mask, bool keepdim, Tensor& out, const char* op) {
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {op, shape, self.dtype(), self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  Tensor buf = output_buffer(out, self.dtype(), self);
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    int64_t n;
    auto acc = run_values(Op<scalar_t>{}, self, mask, /*drop_broadcast=*/true, n);
    project<scalar_t>(buf, acc.get(), n, [](opmath_t<scalar_t> v) { return from_opmath<scalar_t>(v); });
  });
  commit_output(out, buf);
}

template <template <typename> class Op>
void extremum_dims(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out, const char* op,
                   const char* op_paren) {
  uint64_t mask = reduce::reduce_mask(self, dim, op);
  check_has_elements(self, mask, !dim.empty(), op_paren, false);
  extremum<Op>(self, mask, keepdim, out, op);
}

template <template <typename> class Op>
Tensor extremum_all(const Tensor& self, const char* op, const char* op_paren) {
  check_has_elements(self, 0, false, op_paren, false);
  Tensor out;
  extremum<Op>(self, reduce::reduce_mask(self, std::nullopt, op), false, out, op);
  return out;
}

// values and first indices of the best element along `mask` (one dim, or every dim of a
// contiguous tensor).
template <template <typename> class Op>
void indexed(const Tensor& self, uint64_t mask, const Tensor& values_buf, const Tensor& indices_buf, const char* op) {
  const Geometry g = reduce::make_geometry(self.sizes(), self.strides(), mask);
  if (g.outputs == 0) return;
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    using val_t = opmath_t<scalar_t>;
    Buffer<val_t> vals(new val_t[static_cast<size_t>(g.outputs)]);
    reduce::reduce_with_index(Op<scalar_t>{}, self.data_ptr<scalar_t>(), g, vals.get(),
                              indices_buf.data_ptr<int64_t>());
    if (values_buf.defined())
      project<scalar_t>(values_buf, vals.get(), g.outputs, [](val_t v) { return from_opmath<scalar_t>(v); });
  });
}

template <template <typename> class Op>
void extremum_dim(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices, const char* op,
                  const char* op_paren) {
  // PyTorch refuses complex here with a RuntimeError (its all-dims form raises NotImplementedError).
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), op_paren, ": does not support complex input");
  uint64_t mask = one_dim_mask(self, dim, op);
  check_has_elements(self, mask, true, op_paren, false);
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(values, {op, shape, self.dtype(), self.device(), OutDtype::Exact});
  prepare_output(indices, {op, shape, ScalarType::Int64, self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  Tensor vbuf = output_buffer(values, self.dtype(), self);
  Tensor ibuf = output_buffer(indices, ScalarType::Int64, self);
  if (self.dim() == 0) {
    // A 0-d input is its own result: PyTorch passes it through without its kernel, for every dtype.
    TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), op, [&] { *vbuf.data_ptr<scalar_t>() = *self.data_ptr<scalar_t>(); });
    *ibuf.data_ptr<int64_t>() = 0;
  } else {
    indexed<Op>(self, mask, vbuf, ibuf, op);
  }
  commit_output(values, vbuf);
  commit_output(indices, ibuf);
}

template <template <typename> class Op>
void arg_extremum(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out, const char* op,
                  const char* op_paren) {
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), op_paren, ": does not support complex input");  // PyTorch's RuntimeError
  uint64_t mask = dim ? one_dim_mask(self, *dim, op) : reduce::reduce_mask(self, std::nullopt, op);
  check_has_elements(self, mask, dim.has_value(), op_paren, true);
  if (self.dtype() == ScalarType::Bool)
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {op, shape, ScalarType::Int64, self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  // Flat indices follow the logical order: reduce several dims only on a contiguous tensor.
  Tensor src = (dim || self.is_contiguous()) ? self : tl::_clone_contiguous(self);
  Tensor ibuf = output_buffer(out, ScalarType::Int64, self);
  indexed<Op>(src, mask, Tensor(), ibuf, op);
  commit_output(out, ibuf);
}

// ------------------------------------------------------------------------------------ prod

ScalarType prod_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (out.defined() && !dtype) return out.dtype();
  if (dtype) return *dtype;
  return is_integral_type(self.dtype(), /*include_bool=*/true) ? ScalarType::Int64 : self.dtype();
}

void prod_impl(const Tensor& self, uint64_t mask, bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  const ScalarType st = prod_result_dtype(self, dtype, out);
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {"prod", shape, st, self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  // As in PyTorch, the input is converted to the result dtype first.
  Tensor src = self.dtype() == st ? self : tl::_to_copy(self, st, std::nullopt);
  Tensor buf = output_buffer(out, st, self);
  if (is_complex_type(st)) {
    TL_DISPATCH_COMPLEX(st, "prod", [&] {
      int64_t n;
      auto acc = run_values(ComplexProdOp<scalar_t>{}, src, mask, false, n);
      project<scalar_t>(buf, acc.get(), n, [](scalar_t v) { return v; });
    });
    commit_output(out, buf);
    return;
  }
  TL_DISPATCH_ALL(st, "prod", [&] {
    int64_t n;
    auto acc = run_values(ProdOp<scalar_t>{}, src, mask, false, n);
    project<scalar_t>(buf, acc.get(), n, [](prod_acc_t<scalar_t> v) {
      if constexpr (std::is_same_v<prod_acc_t<scalar_t>, uint64_t>) {
        if constexpr (std::is_same_v<scalar_t, bool>) return v != 0;
        else return static_cast<scalar_t>(static_cast<int64_t>(v));
      } else {
        return from_opmath<scalar_t>(v);
      }
    });
  });
  commit_output(out, buf);
}

// ------------------------------------------------------------------------------------ any / all / count

// complex32 is nonzero where either part is (a NaN part too): `any` of its float16 parts, a bool tensor of
// self's shape that any/all/count_nonzero then reduce (PyTorch's CPU runs them on complex32).
Tensor complex32_nonzero(const Tensor& self) { return tl::any(view_as_real_kernel(self), -1); }

template <bool kAny>
void any_all(const Tensor& self, uint64_t mask, bool keepdim, Tensor& out, const char* op) {
  if (self.dtype() == ScalarType::Complex32) return any_all<kAny>(complex32_nonzero(self), mask, keepdim, out, op);
  const ScalarType st = self.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
  TL_CHECK(!out.defined() || out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::UInt8, op,
           ": only supports bool tensor for result, got: ", scalar_type_name(out.dtype()));
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {op, shape, st, self.device(), OutDtype::Any});
  if (self.is_meta()) return;
  Tensor buf = output_buffer(out, out.dtype(), self);  // bool and uint8 both hold 0 / 1 bytes
  // A complex element is true when either part is nonzero (PyTorch): reduce that bool mask instead.
  const Tensor in = is_complex_type(self.dtype()) ? tl::ne(self, Scalar(0.0)) : self;
  TL_DISPATCH_ALL_AND_UNSIGNED(in.dtype(), op, [&] {
    int64_t n;
    auto acc = run_values(AnyAllOp<scalar_t, kAny>{}, in, mask, true, n);
    uint8_t* d = static_cast<uint8_t*>(buf.data_ptr());
    for (int64_t k = 0; k < n; ++k) d[k] = acc[k] ? 1 : 0;
  });
  commit_output(out, buf);
}

void count_nonzero_impl(const Tensor& self, uint64_t mask, bool over_dims, Tensor& out) {
  if (self.dtype() == ScalarType::Complex32) return count_nonzero_impl(complex32_nonzero(self), mask, over_dims, out);
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, false);
  prepare_output(out, {"count_nonzero", shape, ScalarType::Int64, self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  // PyTorch counts over given dims as (self != 0).sum(dims), which runs for uint16/uint32/uint64;
  // its count over everything has no loop for them.
  TL_CHECK_AS(NotImplementedError, over_dims || !is_barebones_unsigned_type(self.dtype()),
              "count_nonzero: not implemented for dtype ", scalar_type_name(self.dtype()));
  Tensor buf = output_buffer(out, ScalarType::Int64, self);
  const Tensor in = is_complex_type(self.dtype()) ? tl::ne(self, Scalar(0.0)) : self;  // either part nonzero
  TL_DISPATCH_ALL_AND_UNSIGNED(in.dtype(), "count_nonzero", [&] {
    int64_t n;
    auto acc = run_values(CountNonzeroOp<scalar_t>{}, in, mask, false, n);
    project<int64_t>(buf, acc.get(), n, [](int64_t v) { return v; });
  });
  commit_output(out, buf);
}

// ------------------------------------------------------------------------------------ var / std

enum class Moments { Var, Std };

double correction_of(const std::optional<Scalar>& correction) {
  return correction ? correction->to_double() : 1.0;
}

// var or std into `out`, and the mean into `mean_out` when it is non-null.
void var_std(const Tensor& self, OptionalIntArrayRef dim, double correction, bool keepdim, Moments what,
             Tensor& out, Tensor* mean_out, const char* op);

// Complex: the variances of the real and the imaginary parts (views of view_as_real) added, in the real
// type (PyTorch's std_var_out); std is its square root; the mean is the complex mean.
void complex_var_std(const Tensor& self, OptionalIntArrayRef dim, double correction, bool keepdim, Moments what,
                     Tensor& out, Tensor* mean_out, const char* op) {
  const uint64_t mask = reduce::reduce_mask(self, dim, op);
  const DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  const ScalarType real = to_real_type(self.dtype());
  prepare_output(out, {op, shape, real, self.device(), OutDtype::CanCast});
  if (mean_out) prepare_output(*mean_out, {op, shape, self.dtype(), self.device(), OutDtype::CanCast});
  if (self.is_meta()) return;
  // PyTorch computes in the real type of a given out= (float64 out of a complex64 input: in double)
  const ScalarType compute = is_floating_type(out.dtype()) || is_complex_type(out.dtype()) ? to_real_type(out.dtype())
                                                                                            : real;
  const Tensor parts = tl::view_as_real(self);
  Tensor re = tl::select(parts, -1, 0), im = tl::select(parts, -1, 1);
  if (compute != real) re = tl::to(re, compute, false, false), im = tl::to(im, compute, false, false);
  // With mean_out, the parts' means come from the same passes and make the complex mean (PyTorch's
  // std_var_mean; complex32 has no mean of its own).
  Tensor var_re, var_im, mean_re, mean_im;
  var_std(re, dim, correction, keepdim, Moments::Var, var_re, mean_out ? &mean_re : nullptr, op);
  var_std(im, dim, correction, keepdim, Moments::Var, var_im, mean_out ? &mean_im : nullptr, op);
  Tensor v = tl::add(var_re, var_im);
  if (what == Moments::Std) v = tl::sqrt(v);
  Tensor buf = output_buffer(out, compute, self);
  copy_kernel(buf, v, false);
  commit_output(out, buf);
  if (mean_out) {
    Tensor mbuf = output_buffer(*mean_out, self.dtype(), self);
    copy_kernel(mbuf, tl::complex(mean_re, mean_im), false);
    commit_output(*mean_out, mbuf);
  }
}

void var_std(const Tensor& self, OptionalIntArrayRef dim, double correction, bool keepdim, Moments what,
             Tensor& out, Tensor* mean_out, const char* op) {
  if (is_complex_type(self.dtype())) return complex_var_std(self, dim, correction, keepdim, what, out, mean_out, op);
  TL_CHECK(is_floating_type(self.dtype()), op, ": std and var only support floating point and complex dtypes");
  uint64_t mask = reduce::reduce_mask(self, dim, op);
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(out, {op, shape, self.dtype(), self.device(), OutDtype::CanCast});
  if (mean_out) prepare_output(*mean_out, {op, shape, self.dtype(), self.device(), OutDtype::CanCast});
  if (self.is_meta()) return;
  Tensor buf = output_buffer(out, self.dtype(), self);
  Tensor mbuf = mean_out ? output_buffer(*mean_out, self.dtype(), self) : Tensor();
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    int64_t n;
    auto acc = run_values(WelfordOp<scalar_t>{}, self, mask, false, n);
    project<scalar_t>(buf, acc.get(), n, [&](const Welford& w) {
      const double v = w.m2 / std::max(0.0, w.n - correction);
      return static_cast<scalar_t>(what == Moments::Std ? std::sqrt(v) : v);
    });
    if (mean_out)
      project<scalar_t>(mbuf, acc.get(), n, [](const Welford& w) {
        return static_cast<scalar_t>(w.n == 0 ? std::numeric_limits<double>::quiet_NaN() : w.mean);
      });
  });
  commit_output(out, buf);
  if (mean_out) commit_output(*mean_out, mbuf);
}

}  // namespace

// ---------------------------------------------------------------------------------------- kernels

Tensor prod_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  Tensor out;
  prod_impl(self, reduce::reduce_mask(self, std::nullopt, "prod"), false, dtype, out);
  return out;
}

void prod_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  prod_impl(self, one_dim_mask(self, dim, "prod"), keepdim, dtype, out);
}

void amax_kernel(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  extremum_dims<MaxOp>(self, dim, keepdim, out, "amax", "amax()");
}

void amin_kernel(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  extremum_dims<MinOp>(self, dim, keepdim, out, "amin", "amin()");
}

Tensor max_all_kernel(const Tensor& self) { return extremum_all<MaxOp>(self, "max", "max()"); }

Tensor min_all_kernel(const Tensor& self) { return extremum_all<MinOp>(self, "min", "min()"); }

void max_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  extremum_dim<ArgMaxOp>(self, dim, keepdim, values, indices, "max", "max()");
}

void min_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  extremum_dim<ArgMinOp>(self, dim, keepdim, values, indices, "min", "min()");
}

void argmax_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  arg_extremum<ArgMaxOp>(self, dim, keepdim, out, "argmax", "argmax()");
}

void argmin_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  arg_extremum<ArgMinOp>(self, dim, keepdim, out, "argmin", "argmin()");
}

void aminmax_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& min, Tensor& max) {
  uint64_t mask = dim ? one_dim_mask(self, *dim, "aminmax") : reduce::reduce_mask(self, std::nullopt, "aminmax");
  if (!dim)
    TL_CHECK(self.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no ",
             "identity.");
  check_has_elements(self, mask, true, "aminmax", false);
  DimVector shape = reduce::reduced_shape(self.sizes(), mask, keepdim);
  prepare_output(min, {"aminmax", shape, self.dtype(), self.device(), OutDtype::Exact});
  prepare_output(max, {"aminmax", shape, self.dtype(), self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  Tensor lo = output_buffer(min, self.dtype(), self), hi = output_buffer(max, self.dtype(), self);
  TL_DISPATCH_ALL(self.dtype(), "aminmax", [&] {
    int64_t n;
    auto acc = run_values(MinMaxOp<scalar_t>{}, self, mask, true, n);
    using A = MinMax<opmath_t<scalar_t>>;
    project<scalar_t>(lo, acc.get(), n, [](const A& v) { return from_opmath<scalar_t>(v.lo); });
    project<scalar_t>(hi, acc.get(), n, [](const A& v) { return from_opmath<scalar_t>(v.hi); });
  });
  commit_output(min, lo);
  commit_output(max, hi);
}

void any_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  any_all<true>(self, one_dim_mask(self, dim, "any"), keepdim, out, "any");
}
void any_dims_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, Tensor& out) {
  any_all<true>(self, reduce::reduce_mask(self, dim, "any"), keepdim, out, "any");
}
void all_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  any_all<false>(self, one_dim_mask(self, dim, "all"), keepdim, out, "all");
}
void all_dims_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, Tensor& out) {
  any_all<false>(self, reduce::reduce_mask(self, dim, "all"), keepdim, out, "all");
}

void count_nonzero_kernel(const Tensor& self, std::optional<int64_t> dim, Tensor& out) {
  count_nonzero_impl(self, dim ? one_dim_mask(self, *dim, "count_nonzero")
                               : reduce::reduce_mask(self, std::nullopt, "count_nonzero"), dim.has_value(), out);
}
void count_nonzero_dims_kernel(const Tensor& self, IntArrayRef dim, Tensor& out) {
  count_nonzero_impl(self, reduce::reduce_mask(self, dim, "count_nonzero"), !dim.empty(), out);
}

Tensor var_kernel(const Tensor& self, bool unbiased) {
  Tensor out;
  var_std(self, std::nullopt, unbiased ? 1 : 0, false, Moments::Var, out, nullptr, "var");
  return out;
}
void var_dim_kernel(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim, Tensor& out) {
  var_std(self, dim, unbiased ? 1 : 0, keepdim, Moments::Var, out, nullptr, "var");
}
void var_correction_kernel(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                           bool keepdim, Tensor& out) {
  var_std(self, dim, correction_of(correction), keepdim, Moments::Var, out, nullptr, "var");
}
Tensor std_kernel(const Tensor& self, bool unbiased) {
  Tensor out;
  var_std(self, std::nullopt, unbiased ? 1 : 0, false, Moments::Std, out, nullptr, "std");
  return out;
}
void std_dim_kernel(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim, Tensor& out) {
  var_std(self, dim, unbiased ? 1 : 0, keepdim, Moments::Std, out, nullptr, "std");
}
void std_correction_kernel(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                           bool keepdim, Tensor& out) {
  var_std(self, dim, correction_of(correction), keepdim, Moments::Std, out, nullptr, "std");
}
std::tuple<Tensor, Tensor> var_mean_kernel(const Tensor& self, OptionalIntArrayRef dim,
                                           const std::optional<Scalar>& correction, bool keepdim) {
  Tensor v, m;
  var_std(self, dim, correction_of(correction), keepdim, Moments::Var, v, &m, "var_mean");
  return {v, m};
}
std::tuple<Tensor, Tensor> std_mean_kernel(const Tensor& self, OptionalIntArrayRef dim,
                                           const std::optional<Scalar>& correction, bool keepdim) {
  Tensor s, m;
  var_std(self, dim, correction_of(correction), keepdim, Moments::Std, s, &m, "std_mean");
  return {s, m};
}

// sum with NaNs replaced by zeros, so that it has sum's cascade accuracy and dtype rules.
void nansum_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                   Tensor& out) {
  TL_CHECK(!is_complex_type(self.dtype()), "nansum on CPU does not support complex inputs");
  // PyTorch runs a floating input's nansum in the out tensor's dtype, which has no integer kernel.
  if (out.defined() && is_floating_type(self.dtype()) && !is_floating_type(out.dtype()))
    throw NotImplementedError(str("nansum: \"nansum_cpu\" not implemented for '", legacy_type_name(out.dtype()), "'"));
  Tensor x = is_floating_type(self.dtype())
                 ? tl::where(tl::ne(self, self), tl::zeros(IntArrayRef(), self.dtype(), self.device()), self)
                 : self;
  if (out.defined()) tl::sum_out(out, x, dim, keepdim, dtype);
  else out = tl::sum(x, dim, keepdim, dtype);
}

// max + log(sum(exp(self - max))), with infinite maxima replaced by 0 so that an all -inf slice
// gives -inf and a +inf gives +inf (not NaN). Built from vectorized ops, as PyTorch does.
void logsumexp_kernel(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  // PyTorch's order: out's dtype, then the dims (named for logsumexp, not for the ops below).
  TL_CHECK(!out.defined() || is_floating_type(out.dtype()) || is_complex_type(out.dtype()),
           "logsumexp: Expected floating point type for result tensor, but got: ",
           out.defined() ? scalar_type_name(out.dtype()) : "");
  for (int64_t d : dim) maybe_wrap_dim(d, self.dim(), "logsumexp");
  Tensor x = is_integral_type(self.dtype(), true) ? tl::_to_copy(self, default_dtype(), std::nullopt) : self;
  Tensor result;
  if (is_complex_type(x.dtype()) && out.defined() && !is_complex_type(out.dtype())) {
    // A real out= of a complex input: PyTorch sums exp(x - m) straight into out (its sum_out drops the
    // imaginary parts, with the casting warning) and takes the log there: log(Re(sum)) + m, computed in
    // out's dtype; not the real part of the complex logsumexp.
    warn("Casting complex values to real discards the imaginary part");
    Tensor m;
    Tensor e = x;
    if (x.numel() != 0) {
      m = tl::amax(tl::real(x), dim, /*keepdim=*/true);
      m = tl::where(tl::eq(tl::abs(m), std::numeric_limits<double>::infinity()), tl::zeros_like(m), m);
      e = tl::sub(x, m);
    }
    Tensor s = tl::sum(tl::_to_copy(tl::real(tl::exp(e)), out.dtype(), std::nullopt), dim, keepdim, std::nullopt);
    result = tl::log(s);
    if (m.defined()) result = tl::add(result, tl::_to_copy(tl::reshape(m, s.sizes()), out.dtype(), std::nullopt));
  } else if (x.numel() == 0) {
    result = tl::log(tl::sum(tl::exp(x), dim, keepdim, std::nullopt));
  } else {
    // Complex: the shift is the largest real part (PyTorch's), which bounds every |exp(z - m)| by 1.
    Tensor m = tl::amax(is_complex_type(x.dtype()) ? tl::real(x) : x, dim, /*keepdim=*/true);
    Tensor finite_m = tl::where(tl::eq(tl::abs(m), std::numeric_limits<double>::infinity()), tl::zeros_like(m), m);
    Tensor s = tl::sum(tl::exp(tl::sub(x, finite_m)), dim, keepdim, std::nullopt);
    result = tl::add(tl::log(s), tl::reshape(finite_m, s.sizes()));
  }
  if (!out.defined()) {
    out = result;
    return;
  }
  prepare_output(out, {"logsumexp", result.sizes(), result.dtype(), self.device(), OutDtype::CanCast});
  if (!self.is_meta()) commit_output(out, result);
}

}  // namespace tl::native
