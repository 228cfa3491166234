#include "aten/autograd/FunctionsManual.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/conj.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/real.h"
#include "generated/ops/imag.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/expand.h"
#include "generated/ops/flip.h"
#include "generated/ops/full.h"
#include "generated/ops/full_like.h"
#include "generated/ops/ge.h"
#include "generated/ops/gt.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_select.h"
#include "generated/ops/log.h"
#include "generated/ops/logcumsumexp.h"
#include "generated/ops/lt.h"
#include "generated/ops/mean.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/neg.h"
#include "generated/ops/ones.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/permute.h"
#include "generated/ops/pow.h"
#include "generated/ops/cat.h"
#include "generated/ops/prod.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/select.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/slice.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  if (!s.is_bool() && s.equal(1.0)) return t;
  return tl::mul(t, s);
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[shape.size() - 1 - i];
    int64_t d = desired[desired.size() - 1 - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes().equals(shape)) return t;
  TL_CHECK(is_expandable_to(shape, t.sizes()), "sum_to: shape ", shape, " is not broadcastable to ", t.sizes());
  const int64_t lead = t.dim() - static_cast<int64_t>(shape.size());
  DimVector reduce;
  for (int64_t i = 0; i < lead; ++i) reduce.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && t.sizes()[lead + i] != 1) reduce.push_back(lead + static_cast<int64_t>(i));
  Tensor r = t;
  if (!reduce.empty()) r = tl::sum(t, OptionalIntArrayRef(reduce.ref()), true, std::nullopt);
  if (lead > 0) r = tl::reshape(r, shape);
  return r;
}

// ---- pointwise ----------------------------------------------------------------------------------

Tensor mul_tensor_backward(const Tensor& grad, const Tensor& other, ScalarType self_st) {
  // PyTorch's convention for complex tensors: grad * conj(other); a real input takes the real part.
  Tensor out = tl::mul(grad, is_complex_type(other.dtype()) ? tl::conj_physical(other) : other);
  if (is_complex_type(out.dtype()) && !is_complex_type(self_st)) out = tl::real(out);
  return out;
}

namespace {
// PyTorch's complex convention multiplies the gradient by the conjugate of f'(z); real tensors pass.
Tensor conj_if_complex(const Tensor& t) { return is_complex_type(t.dtype()) ? tl::conj_physical(t) : t; }
Scalar conj_if_complex(const Scalar& s) { return s.is_complex() ? Scalar(std::conj(s.to_complex())) : s; }
}  // namespace

Tensor div_tensor_self_backward(const Tensor& grad, const Tensor& other, ScalarType self_st,
                                std::optional<std::string_view> rounding_mode) {
  (void)self_st;  // a complex gradient reaching a real self: the engine keeps its real part
  if (rounding_mode.has_value()) return tl::zeros_like(grad, std::nullopt, std::nullopt);
  return tl::div(grad, conj_if_complex(other));
}

Tensor div_tensor_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                                 std::optional<std::string_view> rounding_mode) {
  if (rounding_mode.has_value()) return tl::zeros_like(grad, std::nullopt, std::nullopt);
  return tl::neg(tl::mul(grad, conj_if_complex(tl::div(tl::div(self, other), other))));
}

Tensor div_scalar_self_backward(const Tensor& grad, const Scalar& other, ScalarType self_st,
                                std::optional<std::string_view> rounding_mode) {
  (void)self_st;
  if (rounding_mode.has_value()) return tl::zeros_like(grad, std::nullopt, std::nullopt);
  return tl::div(grad, conj_if_complex(other));
}

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  if (exponent.equal(0.0)) return tl::zeros_like(grad, std::nullopt, std::nullopt);
  // An integral exponent stays integral (exact for large |exponent|) unless exponent - 1 leaves int64:
  // 2**63 arrives as an unsigned Scalar, and INT64_MIN - 1 would overflow; PyTorch uses double always.
  const bool integral = !exponent.is_floating_point() && !exponent.is_uint64() &&
                        exponent.to_long() != std::numeric_limits<int64_t>::min();
  if (exponent.is_complex()) {  // grad * conj(e z^(e-1))
    const Scalar minus_one(exponent.to_complex() - 1.0);
    return tl::mul(grad, conj_if_complex(tl::mul(tl::pow(self, minus_one), exponent)));
  }
  Scalar minus_one = integral ? Scalar(exponent.to_long() - 1) : Scalar(exponent.to_double() - 1.0);
  return tl::mul(grad, conj_if_complex(tl::mul(tl::pow(self, minus_one), exponent)));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  Tensor value = tl::mul(grad, conj_if_complex(tl::mul(exponent, tl::pow(self, tl::sub(exponent, 1, 1)))));
  Tensor zero = tl::zeros(IntArrayRef(), value.dtype(), value.device());
  return tl::where(tl::eq(exponent, 0), zero, value);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // conj(result * log(self)), but 0 where self == 0 and exponent >= 0 (the limit; log(0) would give
  // nan); a complex exponent counts as >= 0 when it is real and >= 0, as in PyTorch.
  const ScalarType st = result.dtype();
  Tensor value = conj_if_complex(tl::mul(result, tl::log(is_complex_type(st) ? tl::to(self, st) : self)));
  Tensor zero = tl::zeros(IntArrayRef(), value.dtype(), value.device());
  Tensor nonneg = is_complex_type(exponent.dtype())
                      ? tl::logical_and(tl::eq(tl::imag(exponent), 0), tl::ge(tl::real(exponent), 0))
                      : tl::ge(exponent, 0);
  Tensor masked = tl::where(nonneg, tl::where(tl::eq(self, 0), zero, value), value);
  return tl::mul(grad, masked);
}

Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result) {
  if (is_complex_type(result.dtype())) {  // conj(result * log(base)), log of the base as a complex number
    const std::complex<double> base = self.is_complex() ? self.to_complex() : std::complex<double>(self.to_double(), 0);
    Tensor value = conj_if_complex(tl::mul(result, Scalar(std::log(base))));
    if (base == 0.0) {
      Tensor zero = tl::zeros(IntArrayRef(), value.dtype(), value.device());
      Tensor nonneg = is_complex_type(exponent.dtype())
                          ? tl::logical_and(tl::eq(tl::imag(exponent), 0), tl::ge(tl::real(exponent), 0))
                          : tl::ge(exponent, 0);
      value = tl::where(nonneg, zero, value);
    }
    return tl::mul(grad, value);
  }
  Tensor value = tl::mul(result, Scalar(std::log(self.to_double())));
  if (self.to_double() == 0.0) {
    Tensor zero = tl::zeros(IntArrayRef(), value.dtype(), value.device());
    value = tl::where(tl::ge(exponent, 0), zero, value);
  }
  return tl::mul(grad, value);
}

// ---- reductions -----------------------------------------------------------------------------------

namespace {
// The reduced dims of sum/mean(dim=...): wrapped and sorted; all dims for None or [].
std::vector<int64_t> reduced_dims(IntArrayRef sizes, OptionalIntArrayRef dim) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  if (ndim == 0) return dims;  // a 0-d tensor accepts dim 0 / -1 but reduces nothing
  if (!dim.has_value() || dim->empty()) {
    dims.resize(ndim);
    std::iota(dims.begin(), dims.end(), 0);
    return dims;
  }
  for (int64_t d : *dim) dims.push_back(maybe_wrap_dim(d, ndim, "sum_backward"));
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}
}  // namespace

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  Tensor g = grad;
  if (!keepdim && !sizes.empty()) {
    // Put back the reduced dims (in increasing order, so each index is final) as size 1.
    for (int64_t d : reduced_dims(sizes, dim)) {
      if (g.dim() == static_cast<int64_t>(sizes.size())) break;
      g = tl::unsqueeze(g, d);
    }
  }
  return tl::expand(g, sizes, false);
}

// PyTorch divides the expanded gradient; dividing the gradient first and then writing out its
// expansion gives the same elements (each is grad / n) with one division per gradient element
// instead of per input element (a broadcast first operand takes the elementwise engine's strided
// loop: twice PyTorch's time for adaptive_avg_pool2d(x, 1)'s backward).
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, int64_t numel) {
  return tl::contiguous(tl::expand(tl::div(grad, numel), sizes, false));
}

Tensor mean_dim_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(sizes, dim)) n *= sizes[d];
  return tl::contiguous(sum_backward(tl::div(grad, n), sizes, dim, keepdim));
}

void check_differentiable_dtype(const Tensor& result) {
  TL_CHECK(!result.defined() || is_floating_type(result.dtype()) || is_complex_type(result.dtype()),
           "Autograd not support dtype: ",
           legacy_type_name(result.dtype()));
}

// ---- reductions on the reduction engine (prod, amax/amin, max/min, var/std, logsumexp) ----------

double correction_value(const std::optional<Scalar>& correction) {
  return correction ? correction->to_double() : 1.0;
}

namespace {
int64_t reduced_numel(IntArrayRef sizes, OptionalIntArrayRef dim) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(sizes, dim)) n *= sizes[d];
  return n;
}
Tensor scalar_like(double v, const Tensor& t) {
  return v == 0 ? tl::zeros(IntArrayRef(), t.dtype(), t.device()) : tl::ones(IntArrayRef(), t.dtype(), t.device());
}
// Gradient of a product given grad and result broadcast to self's shape, and the number of zeros
// and the product of the non-zero elements of each reduced slice (keepdim shape): a non-zero
// element gets grad * result / self; a zero gets grad * (product of the others) when it is the
// only zero of its slice, else 0. No division by zero, so double backward stays finite.
Tensor prod_grad(const Tensor& g, const Tensor& r, const Tensor& self, const Tensor& zero, const Tensor& safe,
                 const Tensor& zeros_in_slice, const Tensor& prod_nonzero) {
  // Complex inputs: grad * conj(d result / d self), PyTorch's convention.
  Tensor at_nonzero = tl::mul(g, conj_if_complex(tl::div(r, safe)));
  Tensor at_zero =
      tl::where(tl::eq(zeros_in_slice, 1), tl::mul(g, conj_if_complex(prod_nonzero)), scalar_like(0, at_nonzero));
  return tl::where(zero, at_zero, at_nonzero);
}
}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0) return grad;
  Tensor zero = tl::eq(self, 0);
  Tensor safe = tl::where(zero, scalar_like(1, self), self);
  return prod_grad(tl::expand(grad, self.sizes(), false), tl::expand(result, self.sizes(), false), self, zero, safe,
                   tl::sum(zero, OptionalIntArrayRef(), false, std::nullopt), tl::prod(safe, std::optional<ScalarType>()));
}

Tensor prod_dim_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "prod_backward");
  Tensor zero = tl::eq(self, 0);
  Tensor safe = tl::where(zero, scalar_like(1, self), self);
  return prod_grad(sum_backward(grad, self.sizes(), IntArrayRef(d), keepdim),
                   sum_backward(result, self.sizes(), IntArrayRef(d), keepdim), self, zero, safe,
                   tl::sum(zero, IntArrayRef(d), true, std::nullopt), tl::prod(safe, d, true, std::nullopt));
}

Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim,
                          bool keepdim) {
  Tensor g = sum_backward(grad, self.sizes(), dim, keepdim);
  Tensor mask = tl::eq(self, sum_backward(result, self.sizes(), dim, keepdim));
  return tl::div(tl::mul(g, mask), tl::sum(mask, dim, true, std::nullopt));
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // The winners: elements equal to the result, or the NaNs when the result is NaN.
  Tensor mask = tl::where(tl::ne(result, result), tl::ne(self, self), tl::eq(self, result));
  Tensor count = tl::sum(mask, OptionalIntArrayRef(), false, std::nullopt);
  return tl::div(tl::mul(tl::expand(grad, self.sizes(), false), mask), count);
}

Tensor aminmax_backward(const Tensor& grad_min, const Tensor& grad_max, const Tensor& self, const Tensor& min,
                        const Tensor& max, std::optional<int64_t> dim, bool keepdim) {
  IntArrayRef dims = dim ? IntArrayRef(*dim) : IntArrayRef();
  Tensor r;
  if (grad_min.defined()) r = amax_amin_backward(grad_min, self, min, dims, keepdim);
  if (grad_max.defined()) {
    Tensor part = amax_amin_backward(grad_max, self, max, dims, keepdim);
    r = r.defined() ? tl::add(r, part) : part;
  }
  return r;
}

Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim, double correction, bool keepdim) {
  const double n = static_cast<double>(reduced_numel(self.sizes(), dim));
  Tensor centered = tl::sub(self, tl::mean(self, dim, true, std::nullopt));
  return tl::mul(sum_backward(grad, self.sizes(), dim, keepdim), tl::mul(centered, 2.0 / (n - correction)));
}

Tensor std_backward(const Tensor& grad, const Tensor& self, const Tensor& result, OptionalIntArrayRef dim,
                    double correction, bool keepdim) {
  // d std = d var / (2 std); 0 where std is 0 (as PyTorch does).
  Tensor g = tl::where(tl::eq(result, 0), scalar_like(0, result), tl::div(grad, tl::mul(result, 2)));
  return var_backward(g, self, dim, correction, keepdim);
}

Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         OptionalIntArrayRef dim, double correction, bool keepdim) {
  Tensor r;
  if (grad_var.defined()) r = var_backward(grad_var, self, dim, correction, keepdim);
  if (grad_mean.defined()) {
    Tensor part = mean_dim_backward(grad_mean, self.sizes(), dim, keepdim);
    r = r.defined() ? tl::add(r, part) : part;
  }
  return r;
}

Tensor std_mean_backward(const Tensor& grad_std, const Tensor& grad_mean, const Tensor& self, const Tensor& std,
                         OptionalIntArrayRef dim, double correction, bool keepdim) {
  Tensor r;
  if (grad_std.defined()) r = std_backward(grad_std, self, std, dim, correction, keepdim);
  if (grad_mean.defined()) {
    Tensor part = mean_dim_backward(grad_mean, self.sizes(), dim, keepdim);
    r = r.defined() ? tl::add(r, part) : part;
  }
  return r;
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim,
                          bool keepdim) {
  Tensor r = sum_backward(result, self.sizes(), dim, keepdim);
  // Complex: grad * conj(exp(self - result)), PyTorch's convention.
  return tl::mul(sum_backward(grad, self.sizes(), dim, keepdim), conj_if_complex(tl::exp(tl::sub(self, r))));
}

Tensor nansum_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  return tl::mul(sum_backward(grad, self.sizes(), dim, keepdim), tl::eq(self, self));
}

Tensor frexp_backward(const Tensor& grad, const Tensor& exponent) {
  return tl::div(grad, tl::pow(2.0, tl::_to_copy(exponent, grad.scalar_type(), std::nullopt)));
}

// ---- linear algebra ---------------------------------------------------------------------------------

// Complex: grad @ mat2^H and mat1^H @ grad (the conjugate transposes), PyTorch's convention.
// The conjugates are lazy (conj views): mm reads them through the BLAS's conjugate-transpose op. As
// PyTorch's, a column-major operand gets its gradient column-major (the transpose of a row-major
// product), so .grad keeps the operand's layout (and is then a conj view where PyTorch's is). A
// matrix-vector product (mat2 one column: torchlite's mv/matmul(2-D, 1-D) are that mm) takes the
// row-major form, the layout of PyTorch's mv gradient (an outer product).
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_sizes, IntArrayRef mat1_strides) {
  if (mat1_strides[0] == 1 && mat1_strides[1] == mat1_sizes[0] && mat2.sizes()[1] != 1)
    return tl::t(tl::mm(tl::conj(mat2), tl::t(grad)));
  return tl::mm(grad, tl::conj(tl::t(mat2)));
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides) {
  if (mat2_strides[0] == 1 && mat2_strides[1] == mat2_sizes[0]) return tl::t(tl::mm(tl::t(grad), tl::conj(mat1)));
  return tl::mm(tl::conj(tl::t(mat1)), grad);
}

// ---- views ----------------------------------------------------------------------------------------

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[maybe_wrap_dim(dims[i], n, "permute_backwards")] = i;
  return tl::permute(grad, inverse);
}

namespace {

// Backward nodes of the helpers below, which build their result in place under no_grad and
// record one of these for it when `grad` requires grad (double backward). Each one's backward
// is the forward view op again, so it stays differentiable to any order.

struct SelectBackwardBackward0 final : Node {
  int64_t dim = 0, index = 0;
  std::string name() const override { return "SelectBackwardBackward0"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (should_compute_output(0) && grads[0].defined()) out[0] = tl::select(grads[0], dim, index);
    return out;
  }
};

struct SliceBackwardBackward0 final : Node {
  int64_t dim = 0, step = 1;
  std::optional<int64_t> start, end;
  std::string name() const override { return "SliceBackwardBackward0"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (should_compute_output(0) && grads[0].defined()) out[0] = tl::slice(grads[0], dim, start, end, step);
    return out;
  }
};

struct Geometry {
  DimVector sizes, strides;
  int64_t offset = 0;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  int64_t last() const {  // offset of the furthest element (numel() > 0)
    int64_t p = offset;
    for (size_t i = 0; i < sizes.size(); ++i) p += (sizes[i] - 1) * strides[i];
    return p;
  }
};

// No two indices reach the same storage element (dims of size <= 1 do not matter).
bool is_non_overlapping(const Geometry& g) {
  std::vector<size_t> order;
  for (size_t i = 0; i < g.sizes.size(); ++i)
    if (g.sizes[i] > 1) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return g.strides[a] < g.strides[b]; });
  int64_t reach = 0;  // span of the dims so far, in elements, minus one
  for (size_t i : order) {
    if (g.strides[i] <= reach) return false;
    reach += (g.sizes[i] - 1) * g.strides[i];
  }
  return true;
}

Tensor scatter_gather(const Tensor& src, const Geometry& from, const Geometry& to);

// Moves values between two geometries over one storage. `src` holds the values of `from`
// (its elements sit at those storage positions); returns the values read through `to`
// (positions `from` does not cover read 0). Repeated positions of `from` (stride-0 dims) are
// summed; other overlaps of `from` are not supported.
struct ScatterGatherBackward0 final : Node {
  Geometry from, to;
  std::string name() const override { return "AsStridedBackwardBackward0"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (should_compute_output(0) && grads[0].defined()) out[0] = scatter_gather(grads[0], to, from);
    return out;
  }
};

Tensor scatter_gather(const Tensor& src, const Geometry& from_in, const Geometry& to) {
  // Sum over the stride-0 dims of `from` first (differentiably: this is an ordinary op).
  Geometry from = from_in;
  Tensor values = src;
  DimVector zero_dims;
  for (size_t i = 0; i < from.sizes.size(); ++i) {
    if (from.strides[i] == 0 && from.sizes[i] > 1) {
      zero_dims.push_back(static_cast<int64_t>(i));
      from.sizes[i] = 1;
    }
  }
  if (!zero_dims.empty()) values = tl::sum(values, OptionalIntArrayRef(zero_dims.ref()), true, std::nullopt);
  if (!is_non_overlapping(from)) {
    throw NotImplementedError(str("as_strided_backward: the geometry (sizes ", from_in.sizes.ref(), ", strides ",
                                  from_in.strides.ref(),
                                  ") reaches some storage elements more than once; only repeats through "
                                  "stride-0 dimensions are supported"));
  }
  Tensor result;
  {
    NoGradGuard no_grad;
    if (from.numel() == 0 || to.numel() == 0) {
      result = tl::zeros(to.sizes, values.dtype(), values.device());
    } else {
      const int64_t base = std::min(from.offset, to.offset);
      const int64_t extent = std::max(from.last(), to.last()) - base + 1;
      Tensor buffer = tl::zeros(IntArrayRef(extent), values.dtype(), values.device());
      tl::copy_(tl::as_strided(buffer, from.sizes, from.strides, from.offset - base), values, false);
      result = tl::clone(tl::as_strided(buffer, to.sizes, to.strides, to.offset - base));
    }
  }
  if (compute_requires_grad({&values})) {
    auto node = std::make_shared<ScatterGatherBackward0>();
    node->from = from;
    node->to = to;
    node->set_next_edges(collect_next_edges({&values}));
    set_history(result, node);
  }
  return result;
}

}  // namespace

Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  Geometry out_geom{DimVector(size), DimVector(stride), storage_offset.value_or(input_offset)};
  Geometry in_geom{DimVector(input_sizes), DimVector(input_strides), input_offset};
  TL_CHECK_AS(NotImplementedError, is_non_overlapping(in_geom),
              "as_strided_backward: inputs whose own geometry overlaps (sizes ", input_sizes, ", strides ",
              input_strides, ") are not supported");
  return scatter_gather(grad, out_geom, in_geom);
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor result;
  {
    NoGradGuard no_grad;
    result = tl::zeros(sizes, grad.dtype(), grad.device());
    tl::copy_(tl::select(result, dim, index), grad, false);
  }
  if (compute_requires_grad({&grad})) {
    auto node = std::make_shared<SelectBackwardBackward0>();
    node->dim = dim;
    node->index = index;
    node->set_next_edges(collect_next_edges({&grad}));
    set_history(result, node);
  }
  return result;
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor result;
  {
    NoGradGuard no_grad;
    result = tl::zeros(sizes, grad.dtype(), grad.device());
    tl::copy_(tl::slice(result, dim, start, end, step), grad, false);
  }
  if (compute_requires_grad({&grad})) {
    auto node = std::make_shared<SliceBackwardBackward0>();
    node->dim = dim;
    node->start = start;
    node->end = end;
    node->step = step;
    node->set_next_edges(collect_next_edges({&grad}));
    set_history(result, node);
  }
  return result;
}

}  // namespace tl::autograd::generated

// ================================================================ dim engine and index engine ops

namespace tl::autograd::generated {

namespace {
Tensor reverse_cumsum(const Tensor& t, int64_t dim) { return tl::flip(tl::cumsum(tl::flip(t, dim), dim), dim); }
Tensor reverse_logcumsumexp(const Tensor& t, int64_t dim) {
  return tl::flip(tl::logcumsumexp(tl::flip(t, dim), dim), dim);
}
}  // namespace

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  return reverse_cumsum(grad, dim);
}

namespace {
// d/d self_k of sum_j grad_j * result_j, written without division so that it differentiates again
// correctly where self has zeros (the O(n) formula below does not: its second derivative at a zero
// misses terms): for each k, sum over j >= k of grad_j * conj(prod_{i <= j, i != k} self_i). O(n^2).
Tensor cumprod_backward_with_zeros(const Tensor& grad, const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[dim];
  DimVector one_shape(self.sizes());
  one_shape[dim] = 1;
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < n; ++k) {
    const Tensor until_k = k == 0 ? tl::ones(one_shape, self.scalar_type(), self.device())
                                  : tl::prod(tl::slice(self, dim, 0, k), dim, /*keepdim=*/true);
    Tensor omitted = until_k;
    if (k + 1 < n) {
      const Tensor from_k1 = tl::cumprod(tl::slice(self, dim, k + 1, n), dim);
      omitted = tl::cat({until_k, tl::mul(until_k, from_k1)}, dim);
    }
    parts.push_back(tl::sum(tl::mul(tl::slice(grad, dim, k, n), conj_if_complex(omitted)), IntArrayRef{dim},
                            /*keepdim=*/true));
  }
  return tl::cat(parts, dim);
}
}  // namespace

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  // Differentiated again (create_graph) with a zero in self: the division-free formula (PyTorch's choice too).
  if (GradMode::is_enabled() && !self.is_meta() && !tensor_item(tl::sum(tl::eq(self, 0))).equal(0))
    return cumprod_backward_with_zeros(grad, self, dim);
  const Tensor is_zero = tl::eq(self, 0);
  const Tensor no_zero_yet = tl::eq(tl::cumsum(is_zero, dim), 0);
  const Tensor ones = tl::ones_like(self);
  // Before the first zero: d result_j / d self_i = result_j / self_i for j >= i.
  const Tensor before = tl::div(reverse_cumsum(tl::mul(grad, conj_if_complex(result)), dim),
                                conj_if_complex(tl::where(no_zero_yet, self, ones)));
  Tensor zeros = tl::zeros_like(before);
  if (self.is_meta() || !tensor_item(tl::sum(is_zero)).equal(0)) {
    // At the first zero: the products of the other factors, i.e. cumprod with that zero set to 1.
    const Tensor first_zero = tl::mul(is_zero, tl::eq(tl::cumsum(is_zero, dim), 1));
    const Tensor at_zero =
        reverse_cumsum(tl::mul(grad, conj_if_complex(tl::cumprod(tl::where(first_zero, ones, self), dim))), dim);
    zeros = tl::where(first_zero, at_zero, zeros);
  }
  return tl::where(no_zero_yet, before, zeros);
}

Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  if (is_complex_type(grad.dtype())) {
    // Complex: no sign split is needed (log of a complex gradient is defined); PyTorch's formula
    // conj(exp(reverse_logcumsumexp(log(conj(grad)) - result) + self)).
    const Tensor terms = tl::sub(tl::log(conj_if_complex(grad)), result);
    return conj_if_complex(tl::exp(tl::add(reverse_logcumsumexp(terms, dim), self)));
  }
  // Masked-out terms get the lowest finite value rather than -inf, so that nothing computes
  // inf - inf when this formula is differentiated again.
  double lowest = std::numeric_limits<double>::lowest();
  if (grad.scalar_type() == ScalarType::Float32 || grad.scalar_type() == ScalarType::BFloat16)
    lowest = std::numeric_limits<float>::lowest();
  else if (grad.scalar_type() == ScalarType::Float16)
    lowest = -65504.0;
  const Tensor neg_inf = tl::full_like(grad, lowest);
  const Tensor log_abs = tl::log(tl::where(tl::ne(grad, 0), tl::abs(grad), tl::ones_like(grad)));
  auto part = [&](const Tensor& mask) {  // exp(self_i) * sum_{j >= i} |grad_j| exp(-result_j) over mask
    const Tensor terms = tl::sub(tl::where(mask, log_abs, neg_inf), result);
    return tl::exp(tl::add(reverse_logcumsumexp(terms, dim), self));
  };
  return tl::sub(part(tl::gt(grad, 0)), part(tl::lt(grad, 0)));
}

Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  return tl::scatter_add(tl::zeros(self.sizes(), grad.scalar_type(), grad.device()), dim, indices, grad);
}

Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  const Tensor gy = tl::sum(tl::mul(grad_output, output), dim, /*keepdim=*/true);
  const Tensor ggy = tl::sum(tl::mul(grad, output), dim, /*keepdim=*/true);
  return tl::sub(tl::mul(grad, tl::sub(grad_output, gy)), tl::mul(grad_output, ggy));
}

Tensor log_softmax_backward_data_grad_backward(const Tensor& grad, const Tensor& output, int64_t dim) {
  return tl::sub(grad, tl::sum(tl::mul(grad, tl::exp(output)), dim, /*keepdim=*/true));
}

Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  return tl::neg(tl::mul(tl::mul(grad, tl::exp(output)), tl::sum(grad_output, dim, /*keepdim=*/true)));
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                         bool keepdim) {
  if (sizes.empty()) return tl::reshape(grad, sizes);  // 0-d input: the one element was selected
  Tensor g = grad, idx = indices;
  if (!keepdim) {
    g = tl::unsqueeze(g, dim);
    idx = tl::unsqueeze(idx, dim);
  }
  return tl::scatter(tl::zeros(sizes, g.scalar_type(), g.device()), dim, idx, g);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index) {
  return tl::scatter_add(tl::zeros(self_sizes, grad.scalar_type(), grad.device()), dim, index, grad);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index) {
  return tl::index_add(tl::zeros(self_sizes, grad.scalar_type(), grad.device()), dim, index, grad);
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha) {
  // A complex alpha is not conjugated: PyTorch's formula (derivatives.yaml) multiplies by alpha itself.
  return tl::reshape(maybe_multiply(tl::index_select(grad, dim, index), alpha), source_sizes);
}

Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index) {
  int64_t numel = 1;
  for (int64_t s : self_sizes) numel *= s;
  const Tensor flat_index = tl::reshape(tl::where(tl::lt(index, 0), tl::add(index, numel), index), {-1});
  const Tensor flat = tl::index_add(tl::zeros({numel}, grad.scalar_type(), grad.device()), 0, flat_index,
                                    tl::reshape(grad, {-1}));
  return tl::reshape(flat, self_sizes);
}

}  // namespace tl::autograd::generated

// ---- transcendental math ---------------------------------------------------------------------

namespace tl::autograd::generated {

namespace {
// 1 / (self^2 + other^2), 0 at the origin.
Tensor atan2_recip(const Tensor& self, const Tensor& other) {
  Tensor denom = tl::add(tl::mul(self, self), tl::mul(other, other), 1);
  Tensor zero = tl::zeros(IntArrayRef(), denom.dtype(), denom.device());
  return tl::where(tl::eq(denom, 0), zero, tl::reciprocal(denom));
}
}  // namespace

Tensor atan2_backward_self(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return tl::mul(grad, tl::mul(other, atan2_recip(self, other)));
}

Tensor atan2_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return tl::mul(grad, tl::mul(tl::neg(self), atan2_recip(self, other)));
}

Tensor logaddexp_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool base2) {
  const bool reduced = self.dtype() == ScalarType::Float16 || self.dtype() == ScalarType::BFloat16 ||
                       other.dtype() == ScalarType::Float16 || other.dtype() == ScalarType::BFloat16;
  const Tensor a = reduced ? tl::to(self, ScalarType::Float32, false, false) : self;
  const Tensor b = reduced ? tl::to(other, ScalarType::Float32, false, false) : other;
  Tensor d = tl::sub(a, b, 1);
  if (base2) d = tl::mul(d, 0.6931471805599453);
  Tensor half = tl::full(IntArrayRef(), 0.5, d.dtype(), d.device());
  // complex: the derivative conjugated, as PyTorch's grad / (1 + exp(other - self)).conj()
  return tl::mul(grad, conj_if_complex(tl::where(tl::eq(a, b), half, tl::sigmoid(d))));
}

}  // namespace tl::autograd::generated
