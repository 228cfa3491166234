// scatter_reduce (the `.two` overload: reduce = sum, prod, mean, amax, amin; include_self) and
// index_reduce (prod, mean, amax, amin; include_self), on the index engine (IndexEngine.h).
// Both: a copy of self (or self / out=), where every position an index names first becomes the
// reduction's identity unless include_self, then takes each scattered value in index order; mean
// divides by the number of values (self included) afterwards, flooring for integer dtypes, and
// amax/amin let a NaN from src win, as PyTorch's CPU kernels do.
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/core/Parallel.h"
#include "aten/native/IndexEngine.h"
#include "aten/native/cpu/ComplexDispatch.h"
#include "aten/native/cpu/ComplexMath.h"  // the schoolbook product, as PyTorch's
#include "aten/native/cpu/Loops.h"  // wrapping_add, wrapping_mul
#include "generated/ops/clamp_min.h"
#include "generated/ops/div.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_reduce.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/scatter_reduce.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {
namespace {

enum class Reduce { Sum, Prod, Mean, Max, Min };

template <typename T>
T identity(Reduce r) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == Reduce::Prod || r == Reduce::Min;
  } else {
    switch (r) {
      case Reduce::Prod: return T(1);
      case Reduce::Max:
        if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::lowest();
        else return T(-std::numeric_limits<float>::infinity());
      case Reduce::Min:
        if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::max();
        else return T(std::numeric_limits<float>::infinity());
      default: return T(0);
    }
  }
}

template <typename T>
bool is_nan(T x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return x != x;
}

// Complex sums/products/means only: amax/amin of complex are refused before any loop (as PyTorch).
template <typename T>
void accumulate_complex(Reduce r, T& t, T x) {
  if (r == Reduce::Prod) t = cmath::mul(t, x);
  else t += x;
}

// `x` landing on `t`. Integers wrap without signed-overflow UB; bool sums are `or`, products `and`.
template <typename T>
void accumulate(Reduce r, T& t, T x) {
  if constexpr (is_complex_v<T>) {
    accumulate_complex(r, t, x);
    return;
  } else {
  switch (r) {
    case Reduce::Sum:
    case Reduce::Mean:
      if constexpr (std::is_same_v<T, bool>) t = t || x;
      else if constexpr (std::is_integral_v<T>) t = wrapping_add(t, x);
      else t = static_cast<T>(t + x);
      break;
    case Reduce::Prod:
      if constexpr (std::is_same_v<T, bool>) t = t && x;
      else if constexpr (std::is_integral_v<T>) t = wrapping_mul(t, x);
      else t = static_cast<T>(t * x);
      break;
    case Reduce::Max: t = is_nan(x) ? x : (t < x ? x : t); break;  // std::max(t, x) unless x is NaN
    case Reduce::Min: t = is_nan(x) ? x : (x < t ? x : t); break;
  }
  }
}

Reduce scatter_reduce_mode(std::string_view reduce) {
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "amax") return Reduce::Max;
  TL_CHECK(reduce == "amin", "scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin, got ",
           reduce);
  return Reduce::Min;
}

Reduce index_reduce_mode(std::string_view reduce) {
  TL_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
           "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  return scatter_reduce_mode(reduce);
}

int64_t size_or_1(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }
int64_t dim_or_1(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }

// A 0-d tensor as one element along dim 0 (and a 1-element tensor as 0-d), to line up with self.
Tensor as_dims_of(const Tensor& t, int64_t ndim) {
  if (t.dim() == ndim) return t;
  if (t.dim() == 0) return make_view(t, {1}, {1}, t.storage_offset());
  return make_view(t, {}, {}, t.storage_offset());
}

// scatter's shape rules (as IndexKernels.cpp's scatter): same number of dims; the index no larger
// than self apart from dim, nor than src anywhere.
void check_scatter_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const char* op) {
  TL_CHECK(dim_or_1(index) == dim_or_1(self), op,
           ": Index tensor must have the same number of dimensions as input tensor");
  TL_CHECK(dim_or_1(index) == dim_or_1(src), op, ": Index tensor must have the same number of dimensions as src tensor");
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim)
      TL_CHECK(size_or_1(index, d) <= size_or_1(self, d), op, ": Size does not match at dimension ", d,
               " expected index ", index.sizes(), " to be no larger than self ", self.sizes(), " apart from dimension ",
               dim);
    TL_CHECK(size_or_1(index, d) <= size_or_1(src, d), op, ": Expected index ", index.sizes(),
             " to be no larger than self ", self.sizes(), " apart from dimension ", dim,
             " and to be no larger size than src ", src.sizes());
  }
}

void refuse_bool_mean(const Tensor& self, Reduce r, const char* kernel_name) {
  TL_CHECK_AS(NotImplementedError, !(r == Reduce::Mean && self.dtype() == ScalarType::Bool), "\"", kernel_name,
              "\" not implemented for 'Bool'");
}

// The reduction proper, once `dst` (out restricted to what the index covers) and `src` line up
// with `idx` along dim: identities first unless include_self, then every value in index order.
void reduce_into(const Tensor& dst, const Tensor& src, const Tensor& idx, int64_t dim, const IndexRule& rule,
                 Reduce r, bool include_self, const char* op) {
  TL_DISPATCH_ALL_AND_COMPLEX(dst.dtype(), op, [&] {
    if (!include_self) {
      const scalar_t init = identity<scalar_t>(r);
      index_apply({dst}, {}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
        scalar_t* y = s[0].as<scalar_t>();
        for (int64_t i = 0; i < n; ++i) y[ix[i] * s[0].stride] = init;
      });
    }
    index_apply({dst}, {src}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      const int64_t ys = s[0].stride, xs = s[1].stride;
      for (int64_t i = 0; i < n; ++i) accumulate(r, y[ix[i] * ys], x[i * xs]);
    });
  });
}

// True when the dims after `dim` of `t` form one contiguous block (of prod(sizes[dim+1:]) elements).
bool trailing_block_contiguous(const Tensor& t, int64_t dim) {
  int64_t expected = 1;
  for (int64_t d = t.dim() - 1; d > dim; --d) {
    if (t.sizes()[d] != 1 && t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

// index_reduce when the dims after `dim` are contiguous blocks in out and src (dim 0 of a row-major
// tensor, the common case): for every index entry, its block of src is combined into out's block
// element by element, a loop the compiler vectorizes, rather than the engine's one slice along dim
// per element. Threads split the blocks, so each element still takes its values in index order.
// Returns false (nothing done) when the layout does not allow it.
bool index_reduce_blocks(const Tensor& out, const Tensor& src, const Tensor& index, int64_t dim, Reduce r,
                         bool include_self) {
  if (out.dim() < 2 || dim == out.dim() - 1 || out.storage() == src.storage()) return false;
  if (!trailing_block_contiguous(out, dim) || !trailing_block_contiguous(src, dim)) return false;
  int64_t inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.sizes()[d];
  for (int64_t d = 0; d < dim; ++d) outer *= out.sizes()[d];
  const Tensor idx64 = index.dtype() == ScalarType::Int64 ? index : tl::to(index, ScalarType::Int64);
  std::vector<int64_t> ix(static_cast<size_t>(index.numel()));
  const int64_t istride = idx64.dim() ? idx64.strides()[0] : 0;
  for (size_t i = 0; i < ix.size(); ++i) ix[i] = idx64.data_ptr<int64_t>()[static_cast<int64_t>(i) * istride];
  const int64_t n = static_cast<int64_t>(ix.size());
  // Element offset of outer position o in t (the dims before dim, any strides).
  auto outer_offset = [dim](const Tensor& t, int64_t o) {
    int64_t off = 0;
    for (int64_t d = dim - 1; d >= 0; --d) {
      off += (o % t.sizes()[d]) * t.strides()[d];
      o /= t.sizes()[d];
    }
    return off;
  };
  TL_DISPATCH_ALL_AND_COMPLEX(out.dtype(), "index_reduce", [&] {
    scalar_t* y0 = out.data_ptr<scalar_t>();
    const scalar_t* x0 = src.data_ptr<scalar_t>();
    const int64_t ys = out.strides()[dim], xs = src.strides()[dim];
    const scalar_t init = identity<scalar_t>(r);
    parallel_for(0, outer * inner, 32768, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin / inner; o * inner < end; ++o) {
        const int64_t k0 = std::max(begin - o * inner, int64_t(0)), k1 = std::min(end - o * inner, inner);
        scalar_t* y = y0 + outer_offset(out, o);
        const scalar_t* x = x0 + outer_offset(src, o);
        if (!include_self) {
          for (int64_t i = 0; i < n; ++i) std::fill(y + ix[i] * ys + k0, y + ix[i] * ys + k1, init);
        }
        for (int64_t i = 0; i < n; ++i) {
          scalar_t* yb = y + ix[i] * ys;
          const scalar_t* xb = x + i * xs;
          switch (r) {  // one loop per mode, so each vectorizes
            case Reduce::Prod: for (int64_t k = k0; k < k1; ++k) accumulate(Reduce::Prod, yb[k], xb[k]); break;
            case Reduce::Max: for (int64_t k = k0; k < k1; ++k) accumulate(Reduce::Max, yb[k], xb[k]); break;
            case Reduce::Min: for (int64_t k = k0; k < k1; ++k) accumulate(Reduce::Min, yb[k], xb[k]); break;
            default: for (int64_t k = k0; k < k1; ++k) accumulate(Reduce::Sum, yb[k], xb[k]); break;
          }
        }
      }
    });
  });
  return true;
}

// mean: divide by the number of values each position took (itself included when include_self;
// 1 where none), flooring for integers, as PyTorch's count-then-divide.
template <typename AddCounts>
void divide_by_counts(const Tensor& out, bool include_self, AddCounts add_counts) {
  autograd::NoGradGuard no_grad;
  const ScalarType counted = to_real_type(out.dtype());  // complex means count in the real type
  Tensor count = include_self ? tl::ones_like(out, counted) : tl::zeros_like(out, counted);
  add_counts(count);
  tl::clamp_min_(count, 1);
  if (is_floating_type(out.dtype()) || is_complex_type(out.dtype())) tl::div_(out, count);
  else tl::div_(out, count, std::string_view("floor"));
}

}  // namespace

void scatter_reduce_two_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce, bool include_self, Tensor& out) {
  const char* op = "scatter_reduce";
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_int32_or_int64(index, op, "index");
  TL_CHECK(src.dtype() == self.dtype(), op, ": Expected self.dtype to be equal to src.dtype");
  check_scatter_shapes(self, dim, index, src, op);
  const Reduce r = scatter_reduce_mode(reduce);
  if (!self.is_meta()) refuse_bool_mean(self, r, "scatter_gather_tensor_cpu_reduce_mean");
  TL_CHECK_AS(NotImplementedError, !(is_complex_type(self.dtype()) && (r == Reduce::Max || r == Reduce::Min)),
              "\"scatter_gather_tensor_cpu_reduce_", reduce, "\" not implemented for '", legacy_type_name(self.dtype()),
              "'");
  init_from_self(self, out, op);
  if (self.is_meta() || index.numel() == 0) return;
  const int64_t nd = self.dim();
  const Tensor idx = as_dims_of(index, nd);
  const Tensor dst = restrict_to(out, idx.sizes(), dim);
  const Tensor s = restrict_to(as_dims_of(src, nd), idx.sizes(), dim);
  const IndexRule rule{op, size_or_1(self, dim), dim};
  reduce_into(dst, s, idx, dim, rule, r, include_self, op);
  if (r == Reduce::Mean) {
    divide_by_counts(out, include_self, [&](const Tensor& count) { tl::scatter_add_(count, dim, index, tl::ones_like(src, count.dtype())); });
  }
}

void index_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self, Tensor& out) {
  const char* op = "index_reduce";
  const Reduce r = index_reduce_mode(reduce);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  TL_CHECK_AS(IndexError, index.dim() <= 1, "index_reduce_(): Index is supposed to be a vector, but got dim: ",
              index.dim(), " with type: ", legacy_type_name(index.dtype()), " and size: ", index.sizes());
  TL_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32,
           "index_reduce_(): Expected dtype int32/int64 for index but got: ", legacy_type_name(index.dtype()));
  TL_CHECK(self.dtype() == source.dtype(), "index_reduce_(): self (", legacy_type_name(self.dtype()), ") and source (",
           legacy_type_name(source.dtype()), ") must have the same scalar type");
  TL_CHECK(dim == 0 || dim < source.dim(), "index_reduce_(): Indexing dim ", dim,
           " is out of bounds of the source tensor with dim ", source.dim());
  // PyTorch reads source.size(dim) of a 0-d source unless the index has one element.
  TL_CHECK_AS(IndexError, source.dim() > 0 || index.numel() == 1,
              "index_reduce_(): Dimension specified as 0 but tensor has no dimensions");
  const int64_t n_source = source.dim() > 0 ? source.sizes()[dim] : 1;
  TL_CHECK(index.numel() == n_source, "index_reduce_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim): (", n_source, "), for dim: ", dim);
  const Tensor src = self.dim() == source.dim() ? source : as_dims_of(source, self.dim());
  bool same_slices = src.dim() == self.dim();
  for (int64_t d = 0; same_slices && d < self.dim(); ++d) same_slices = d == dim || src.sizes()[d] == self.sizes()[d];
  TL_CHECK(same_slices, "index_reduce_(): source tensor shape must match self tensor shape, excluding the specified "
           "dimension. Got self.shape = ", self.sizes(), " source.shape = ", source.sizes());
  // PyTorch reduces bool slice by slice with tensor ops only for 2-D and larger self, including self,
  // and not for mean; its scalar loops (1-D, or include_self=False) have no bool kernel.
  if (!self.is_meta() && self.dtype() == ScalarType::Bool) {
    TL_CHECK_AS(NotImplementedError, include_self && self.dim() > 1 && r != Reduce::Mean, "index_reduce: \"",
                include_self ? (r == Reduce::Mean ? "div_floor_cpu" : "index_func_") : "index_reduce_func_exclude_input_init",
                "\" not implemented for 'Bool'");
  }
  // Complex: PyTorch reduces slice by slice with tensor ops (2-D and larger self, including self) for prod
  // and mean; its scalar loops and maximum/minimum have no complex kernel.
  if (!self.is_meta() && is_complex_type(self.dtype())) {
    const char* kernel = !include_self    ? "index_reduce_func_exclude_input_init"
                         : self.dim() <= 1 ? "index_func_"
                         : r == Reduce::Max ? "maximum_cpu"
                         : r == Reduce::Min ? "minimum_cpu"
                                            : nullptr;
    TL_CHECK_AS(NotImplementedError, kernel == nullptr, "\"", kernel, "\" not implemented for '",
                legacy_type_name(self.dtype()), "'");
  }
  // PyTorch's identity fill (index_fill_) of a dim of size 0 fails before the index check.
  TL_CHECK(include_self || index.numel() == 0 || size_or_1(self, dim) > 0,
           "index_reduce_(): cannot fill the identity into dimension ", dim, " of size 0 at the indexed positions");
  // Out of range (negative ones included) is PyTorch's IndexError "index out of range in self".
  const IndexRule rule{op, size_or_1(self, dim), dim, false, true};
  check_index_values(index, rule);
  init_from_self(self, out, op);
  if (self.is_meta() || index.numel() == 0 || self.numel() == 0) return;
  if (!index_reduce_blocks(out, src, index, dim, r, include_self)) {
    reduce_into(out, src, expand_index(index, src.sizes(), dim), dim, rule, r, include_self, op);
  }
  if (r == Reduce::Mean) {
    divide_by_counts(out, include_self,
                     [&](const Tensor& count) { tl::index_add_(count, dim, index, tl::ones_like(source, count.dtype())); });
  }
}

}  // namespace tl::native
