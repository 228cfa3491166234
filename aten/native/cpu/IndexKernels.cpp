// gather, scatter (src, value), scatter_add, index_select, index_add, index_fill,
// index_copy and take, on the index engine (aten/native/IndexEngine.h): each kernel checks its
// op's shape rules, then is only its per-slice loop over already checked indices.
#include <atomic>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "aten/native/IndexEngine.h"
#include "aten/native/cpu/ComplexDispatch.h"
#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/ComplexMath.h"  // the schoolbook product, as PyTorch's
#include "aten/native/cpu/GatherLastDim.h"
#include "aten/native/cpu/GatherRow.h"
#include "aten/native/cpu/Loops.h"  // wrapping_add, wrapping_mul
#include "generated/ops/copy.h"
#include "generated/ops/gather.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_copy.h"
#include "generated/ops/index_fill.h"
#include "generated/ops/index_select.h"
#include "generated/ops/scatter.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/take.h"

namespace tl::native {

namespace {

int64_t size_or_1(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }
int64_t dim_or_1(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }

// gather/scatter shape rules: same number of dims; index no larger than self apart from dim
// (and no larger than src everywhere, for scatter).
void check_gather_scatter_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                                 const char* op) {
  TL_CHECK(dim_or_1(index) == dim_or_1(self), op,
           ": Index tensor must have the same number of dimensions as input tensor");
  if (src) TL_CHECK(dim_or_1(index) == dim_or_1(*src), op,
                    ": Index tensor must have the same number of dimensions as src tensor");
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim)
      TL_CHECK(size_or_1(index, d) <= size_or_1(self, d), op, ": Size does not match at dimension ", d,
               " expected index ", index.sizes(), " to be no larger than self ", self.sizes(), " apart from dimension ",
               dim);
    if (src)
      TL_CHECK(size_or_1(index, d) <= size_or_1(*src, d), op, ": Expected index ", index.sizes(),
               " to be no larger than self ", self.sizes(), " apart from dimension ", dim,
               " and to be no larger size than src ", src->sizes());
  }
}

// The index's shape as a list (a 0-d index is one element along dim 0 of a 0-d/1-d self).
Tensor as_dims_of(const Tensor& t, int64_t ndim) {
  if (t.dim() == ndim) return t;
  if (t.dim() == 0) return make_view(t, {1}, {1}, t.storage_offset());
  return make_view(t, {}, {}, t.storage_offset());  // a 1-element 1-d tensor seen as 0-d
}

enum class ScatterMode { Set, Add, Multiply };

// A scattered value `x` landing on `t` (Add or Multiply; for bool: or / and, as PyTorch computes them).
template <typename T>
T combine(ScatterMode mode, T t, T x) {
  if constexpr (std::is_same_v<T, bool>) return mode == ScatterMode::Add ? (t || x) : (t && x);
  else if constexpr (is_complex_v<T>) return mode == ScatterMode::Add ? t + x : cmath::mul(t, x);
  else if constexpr (std::is_integral_v<T>)  // integers wrap as in PyTorch, without signed-overflow UB
    return mode == ScatterMode::Add ? wrapping_add(t, x) : wrapping_mul(t, x);
  else return static_cast<T>(mode == ScatterMode::Add ? t + x : t * x);
}

// t + a * x as index_add computes it: bool `or`/`and`, wrapping integers, the schoolbook complex product.
template <typename T>
T add_scaled(T t, T a, T x) {
  if constexpr (std::is_same_v<T, bool>) return t || (a && x);
  else if constexpr (std::is_integral_v<T>) return wrapping_add(t, wrapping_mul(a, x));
  else if constexpr (is_complex_v<T>) return t + cmath::mul(a, x);
  else return static_cast<T>(t + a * x);
}

// scatter's `reduce=` argument: how a scattered value combines with the one it lands on.
ScatterMode scatter_reduce_mode(std::string_view reduce) {
  if (reduce == "add") return ScatterMode::Add;
  TL_CHECK(reduce == "multiply", "scatter(): reduce argument must be either add or multiply.");
  return ScatterMode::Multiply;
}

// Shared body of scatter and scatter_add: out[index[i]] (op)= src[i] along dim,
// src either a tensor or a scalar value; `reduce` (scatter's reduce=) picks the mode.
void scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const Scalar* value,
                  ScatterMode mode, Tensor& out, const char* op, const std::string_view* reduce = nullptr) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_int32_or_int64(index, op, "index");
  if (src) TL_CHECK(src->dtype() == self.dtype(), op, ": Expected self.dtype to be equal to src.dtype");
  check_gather_scatter_shapes(self, dim, index, src, op);
  if (reduce) mode = scatter_reduce_mode(*reduce);  // checked after dim and shapes, as PyTorch does
  init_from_self(self, out, op);
  if (self.is_meta() || index.numel() == 0) return;
  const int64_t nd = self.dim();
  const Tensor idx = as_dims_of(index, nd);
  const Tensor dst = restrict_to(out, idx.sizes(), dim);
  const IndexRule rule{op, size_or_1(self, dim), dim};
  const uint64_t bound = static_cast<uint64_t>(rule.bound);
  TL_DISPATCH_ALL_AND_COMPLEX(self.dtype(), op, [&] {
    if (src) {
      const Tensor s = restrict_to(as_dims_of(*src, nd), idx.sizes(), dim);
      // Indices are checked as they are used (returning false at a bad one), in one pass.
      index_apply({dst}, {s}, idx, dim, rule, [&](const DimSlice* sl, const int64_t* ix, int64_t n) {
        scalar_t* o = sl[0].as<scalar_t>();
        const scalar_t* x = sl[1].as<scalar_t>();
        const int64_t os = sl[0].stride, xs = sl[1].stride;
        if (os == 1 && xs == 1 && mode != ScatterMode::Multiply) {  // the usual case, as tight loops
          if (mode == ScatterMode::Set) {
            for (int64_t i = 0; i < n; ++i) {
              if (static_cast<uint64_t>(ix[i]) >= bound) return false;
              o[ix[i]] = x[i];
            }
          } else {
            for (int64_t i = 0; i < n; ++i) {
              if (static_cast<uint64_t>(ix[i]) >= bound) return false;
              o[ix[i]] = combine(ScatterMode::Add, o[ix[i]], x[i]);
            }
          }
          return true;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (static_cast<uint64_t>(ix[i]) >= bound) return false;
          scalar_t& t = o[ix[i] * os];
          t = mode == ScatterMode::Set ? x[i * xs] : combine(mode, t, x[i * xs]);
        }
        return true;
      });
    } else {
      // a complex value fits a real self only without an imaginary part (PyTorch's checked conversion)
      const scalar_t v = value->is_complex() ? checked_scalar_cast<scalar_t>(*value) : value->to<scalar_t>();
      index_apply({dst}, {}, idx, dim, rule, [&](const DimSlice* sl, const int64_t* ix, int64_t n) {
        scalar_t* o = sl[0].as<scalar_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (static_cast<uint64_t>(ix[i]) >= bound) return false;
          scalar_t& t = o[ix[i] * sl[0].stride];
          t = mode == ScatterMode::Set ? v : combine(mode, t, v);
        }
        return true;
      });
    }
  });
}

// index_select/index_add/index_fill/index_copy take a 1-D (or 0-d) index.
void check_index_vector(const Tensor& index, const char* op) {
  TL_CHECK_AS(IndexError, index.dim() <= 1, op, ": Index is supposed to be a vector");
}

// Strides of `t` over dims [b, e) merged into one (dims of size 1 ignored): the stride of the
// innermost dim of the run, or -1 when the dims do not form one evenly strided run.
int64_t merged_stride(const Tensor& t, int64_t b, int64_t e) {
  int64_t stride = 0, extent = 0;  // extent: the span the dims after the current one cover
  bool any = false;
  for (int64_t d = e - 1; d >= b; --d) {
    const int64_t size = t.sizes()[d];
    if (size == 1) continue;
    if (!any) { stride = t.strides()[d]; extent = stride * size; any = true; continue; }
    if (t.strides()[d] != extent) return -1;
    extent *= size;
  }
  return any ? stride : 0;
}

// gather along a dim that is not the innermost, in the memory order of a contiguous int64
// index and output: row by row of the output, each element read from self's row the index
// names. (The index engine would walk strided columns through scratch buffers: 1.3x slower.)
// Returns false when the layout does not allow it.
bool gather_outer_dim(const Tensor& src, int64_t dim, const Tensor& idx, const Tensor& out, const IndexRule& rule) {
  const int64_t nd = idx.dim();
  if (dim >= nd - 1 || idx.dtype() != ScalarType::Int64 || !idx.is_contiguous() || !out.is_contiguous())
    return false;
  const int64_t inner_stride = merged_stride(src, dim + 1, nd);
  const int64_t outer_stride = merged_stride(src, 0, dim);
  if (inner_stride != 1 || outer_stride < 0) return false;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= idx.sizes()[d];
  for (int64_t d = dim + 1; d < nd; ++d) inner *= idx.sizes()[d];
  if (inner < 16) return false;  // short rows: the engine's per-slice loops are better
  const int64_t rows = outer * idx.sizes()[dim], dim_stride = src.strides()[dim];
  const int64_t* ix = idx.data_ptr<int64_t>();
  std::atomic<bool> bad{false};
  TL_DISPATCH_ALL_AND_COMPLEX(src.dtype(), rule.op, [&] {
    const scalar_t* x = src.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    const int64_t per_outer = idx.sizes()[dim];
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
      bool ok = true;
      for (int64_t r = b; r < e; ++r)
        ok &= gather_across(y + r * inner, x + (r / per_outer) * outer_stride, ix + r * inner, inner, rule.bound,
                            dim_stride);
      if (!ok) bad = true;
    });
  });
  if (bad) detail::check_in_place(ix, idx.numel(), rule);  // raises, naming the first bad index
  return true;
}

// gather along the innermost dim, with a contiguous int64 index and output and self's rows
// evenly spaced and stride 1 along that dim: the row engine of GatherLastDim.h (vector gathers,
// the next row of self prefetched), split over every output element so that a single long row
// (a 1-D gather) is shared by the threads too. Returns false when the layout does not allow it.
bool gather_last_dim_fast(const Tensor& src, int64_t dim, const Tensor& idx, const Tensor& out, const IndexRule& rule) {
  const int64_t nd = idx.dim();
  if (nd == 0 || dim != nd - 1 || idx.dtype() != ScalarType::Int64 || !idx.is_contiguous() || !out.is_contiguous())
    return false;
  if (is_complex_type(src.dtype())) return false;  // the row engine moves 1- to 8-byte elements
  if (src.sizes()[dim] > 1 && src.strides()[dim] != 1) return false;
  const int64_t row_stride = merged_stride(src, 0, nd - 1);
  if (row_stride < 0) return false;
  const int64_t n = idx.sizes()[dim], total = idx.numel();
  const int64_t* ix = idx.data_ptr<int64_t>();
  std::atomic<bool> bad{false};
  TL_DISPATCH_ALL(src.dtype(), rule.op, [&] {
    const void* x = src.data_ptr<scalar_t>();
    void* y = out.data_ptr<scalar_t>();
    parallel_for(0, total, kGrainSize, [&](int64_t b, int64_t e) {
      if (!gather_last_dim<sizeof(scalar_t)>(y, x, ix, n, row_stride, rule.bound, b, e)) bad = true;
    });
  });
  if (bad) detail::check_in_place(ix, total, rule);  // raises, naming the first bad index
  return true;
}

// Shape of self with dim resized to n.
DimVector with_dim_size(const Tensor& self, int64_t dim, int64_t n) {
  DimVector s(self.sizes());
  if (self.dim() > 0) s[dim] = n;
  return s;
}

}  // namespace

void gather_kernel(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, Tensor& out) {
  (void)sparse_grad;  // dense gradients only, as PyTorch gives by default
  const char* op = "gather";
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_int32_or_int64(index, op, "index");
  check_gather_scatter_shapes(self, dim, index, nullptr, op);
  prepare_output(out, index.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta() || index.numel() == 0) return;
  const int64_t nd = std::max(self.dim(), index.dim());
  const Tensor idx = as_dims_of(index, nd);
  const Tensor o = as_dims_of(out, nd);
  const Tensor src = restrict_to(as_dims_of(self, nd), idx.sizes(), dim);
  const IndexRule rule{op, size_or_1(self, dim), dim};
  if (gather_outer_dim(src, dim, idx, o, rule) || gather_last_dim_fast(src, dim, idx, o, rule)) return;
  TL_DISPATCH_ALL_AND_COMPLEX(self.dtype(), op, [&] {
    // Indices are checked as they are used (returning false at a bad one), in one pass.
    index_apply({o}, {src}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      if (s[0].stride == 1 && s[1].stride == 1)  // the usual case (the engine's scratch slices too)
        return gather_row(y, x, ix, n, rule.bound);
      for (int64_t i = 0; i < n; ++i) {
        if (static_cast<uint64_t>(ix[i]) >= static_cast<uint64_t>(rule.bound)) return false;
        y[i * s[0].stride] = x[ix[i] * s[1].stride];
      }
      return true;
    });
  });
}

void scatter_src_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, ScatterMode::Set, out, "scatter");
}

void scatter_value_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, Tensor& out) {
  scatter_impl(self, dim, index, nullptr, &value, ScatterMode::Set, out, "scatter");
}

void scatter_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, ScatterMode::Add, out, "scatter", &reduce);
}

void scatter_value_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                 std::string_view reduce, Tensor& out) {
  scatter_impl(self, dim, index, nullptr, &value, ScatterMode::Add, out, "scatter", &reduce);
}

void scatter_add_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  scatter_impl(self, dim, index, &src, nullptr, ScatterMode::Add, out, "scatter_add");
}

void index_select_kernel(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  const char* op = "index_select";
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_vector(index, op);
  TL_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
           ": Expected dtype int32 or int64 for index");
  TL_CHECK(self.dim() > 0 || index.numel() == 1, op,
              ": Index to scalar can have only 1 value, got ", index.numel(), " value(s)");
  prepare_output(out, with_dim_size(self, dim, index.numel()), self.dtype(), self, OutDtype::Exact, op);
  // PyTorch's loop for a 1-D (or 0-d) self has no uint16/32/64 instance; a wider self is copied
  // element by element whatever its dtype, so those dtypes are taken there.
  if (!self.is_meta() && self.dim() <= 1 && is_barebones_unsigned_type(self.dtype()))
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
  // IndexError, except for an empty self, where PyTorch's check raises a RuntimeError.
  const IndexRule rule{op, size_or_1(self, dim), dim, false, /*index_error=*/self.numel() > 0};
  if (!self.is_meta() && out.numel() == 0) check_index_values(index, rule);
  if (self.is_meta() || out.numel() == 0) return;
  const int64_t isz = static_cast<int64_t>(self.itemsize());
  if (self.is_contiguous() && out.is_contiguous() && self.dim() > 0) {
    // Contiguous fast path: whole rows of the dims after `dim` are copied with memcpy.
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= self.sizes()[d];
    for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.sizes()[d];
    const int64_t n = index.numel(), size = self.sizes()[dim];
    const int64_t istride = index.dim() ? index.strides()[0] : 0;
    std::vector<int64_t> converted;
    const int64_t* ix;
    bool unchecked = false;
    if (detail::usable_in_place(index.dtype() == ScalarType::Int64, istride, n, rule)) {  // used as it is
      ix = index.data_ptr<int64_t>();
      unchecked = true;
    } else {
      converted.resize(n);
      TL_DISPATCH_SWITCH(index.dtype(), op, TL_DISPATCH_CASE(Int64, int64_t, [&] {
        detail::load_checked(index.data_ptr<scalar_t>(), istride, n, rule, converted.data());
      }) TL_DISPATCH_CASE(Int32, int32_t, [&] {
        detail::load_checked(index.data_ptr<scalar_t>(), istride, n, rule, converted.data());
      }));
      ix = converted.data();
    }
    const char* src = static_cast<const char*>(self.data_ptr());
    char* dst = static_cast<char*>(out.data_ptr());
    if (inner == 1 && outer == 1) {
      // A 1-D self: one pass on one thread, as PyTorch's loop for it, checking while it copies.
      TL_DISPATCH_EVERY_DTYPE(self.dtype(), op, [&] {
        if (!gather_row(reinterpret_cast<scalar_t*>(dst), reinterpret_cast<const scalar_t*>(src), ix, n, size))
          detail::check_in_place(ix, n, rule);  // raises
      });
      return;
    }
    if (unchecked) detail::check_in_place(ix, n, rule);
    const int64_t row = inner * isz;
    if (inner == 1) {  // single elements: a typed loop per outer row, no memcpy call per element
      TL_DISPATCH_EVERY_DTYPE(self.dtype(), op, [&] {
        const scalar_t* x = reinterpret_cast<const scalar_t*>(src);
        scalar_t* y = reinterpret_cast<scalar_t*>(dst);
        // Split over every output element (a 1-D self is one long row).
        parallel_for(0, outer * n, kGrainSize, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e;) {
            const int64_t o = r / n, j0 = r - o * n, j1 = std::min(n, j0 + (e - r));
            const scalar_t* xo = x + o * size;
            scalar_t* yo = y + o * n;
            for (int64_t j = j0; j < j1; ++j) yo[j] = xo[ix[j]];
            r += j1 - j0;
          }
        });
      });
      return;
    }
    parallel_for(0, outer * n, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / n, j = r % n;
        std::memcpy(dst + r * row, src + (o * size + ix[j]) * row, row);
      }
    });
    return;
  }
  const Tensor idx = expand_index(index, out.sizes(), dim);
  TL_DISPATCH_EVERY_DTYPE(self.dtype(), op, [&] {
    index_apply({out}, {self}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      for (int64_t i = 0; i < n; ++i) y[i * s[0].stride] = x[ix[i] * s[1].stride];
    });
  });
}

void index_add_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                      Tensor& out) {
  const char* op = "index_add";
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_vector(index, op);
  check_index_int32_or_int64(index, op, "index");
  TL_CHECK(self.dtype() == source.dtype(), op, ": self (", legacy_type_name(self.dtype()), ") and source (",
           legacy_type_name(source.dtype()), ") must have the same scalar type");
  TL_CHECK(dim == 0 || dim < source.dim(), op, ": Indexing dim ", dim, " is out of bounds of the source tensor with dim ",
           source.dim());
  // PyTorch reads source.size(dim) of a 0-d source unless the index has one element.
  TL_CHECK_INDEX(source.dim() > 0 || index.numel() == 1, op, ": Dimension specified as 0 but tensor has no dimensions");
  TL_CHECK(index.numel() == (source.dim() > 0 ? source.sizes()[dim] : 1), op, ": Number of indices (",
           index.numel(), ") should be equal to source.size(dim): (", (source.dim() > 0 ? source.sizes()[dim] : 1),
           "), for dim: ", dim);
  const Tensor src = self.dim() == source.dim() ? source : as_dims_of(source, self.dim());
  TL_CHECK(src.dim() == self.dim() && with_dim_size(self, dim, index.numel()) == src.sizes(), op,
           ": source ", source.sizes(), " must have the shape of self ", self.sizes(), " apart from dimension ", dim);
  // PyTorch hands index_add to scatter_add (whose bad index is a RuntimeError) only for a self of 2 or more
  // dims indexed along its first or last dim, alpha 1, an int64 index and a source of self's shape apart
  // from dim (not for complex32); its own loops raise IndexError.
  bool via_scatter = self.dim() > 1 && (dim == 0 || dim == self.dim() - 1) && alpha.to_complex() == 1.0 &&
                     index.dtype() == ScalarType::Int64 && self.dtype() != ScalarType::Complex32 &&
                     source.dim() == self.dim();
  for (int64_t d = 0; via_scatter && d < self.dim(); ++d) via_scatter = d == dim || self.sizes()[d] == source.sizes()[d];
  const IndexRule rule{op, size_or_1(self, dim), dim, false, !via_scatter};
  if (self.numel() > 0) check_index_values(index, rule);  // PyTorch checks nothing for an empty self
  init_from_self(self, out, op);
  if (self.is_meta() || index.numel() == 0 || self.numel() == 0) return;
  const Tensor idx = expand_index(index, src.sizes(), dim);
  if (self.dtype() == ScalarType::Complex32) {
    // PyTorch's c10::complex<Half> arithmetic (its add kernel for a self of 2 or more dims, its own loop for
    // 1-D): alpha converted to complex32 with the overflow check, alpha x rounded, then the sum.
    const ComplexHalf a = c32::checked(alpha);
    index_apply({out}, {src}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      ComplexHalf* y = s[0].as<ComplexHalf>();
      const ComplexHalf* x = s[1].as<ComplexHalf>();
      for (int64_t i = 0; i < n; ++i) {
        ComplexHalf& t = y[ix[i] * s[0].stride];
        t = c32::add(t, c32::mul(a, x[i * s[1].stride]));
      }
    });
    return;
  }
  TL_DISPATCH_ALL_AND_COMPLEX(self.dtype(), op, [&] {
    const auto a = alpha.is_complex() ? checked_scalar_cast<scalar_t>(alpha) : alpha.to<scalar_t>();
    index_apply({out}, {src}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      for (int64_t i = 0; i < n; ++i) {
        scalar_t& t = y[ix[i] * s[0].stride];
        t = add_scaled(t, a, x[i * s[1].stride]);
      }
    });
  });
}

void index_copy_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  const char* op = "index_copy";
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_vector(index, op);
  check_index_int64(index, op, "index");
  TL_CHECK(self.dtype() == source.dtype(), op, ": self and source expected to have the same dtype, but got (self) ",
           scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  TL_CHECK_INDEX(source.dim() > 0 || index.numel() == 1, op,
                 ": When source is scalar, index should have one element (got ", index.numel(), ")");
  TL_CHECK(index.numel() == (source.dim() > 0 ? source.sizes()[dim] : 1), op, ": Number of indices (",
           index.numel(), ") should be equal to source.size(dim) (", (source.dim() > 0 ? source.sizes()[dim] : 1), ")");
  const Tensor src = self.dim() == source.dim() ? source : as_dims_of(source, self.dim());
  TL_CHECK(src.dim() == self.dim() && with_dim_size(self, dim, index.numel()) == src.sizes(), op,
           ": Source/destination tensor must have same slice shapes. Destination slice shape: ", self.sizes(),
           " at dimension ", dim, " and source slice shape: ", source.sizes());
  // An index into a dim of size 0 is a RuntimeError in PyTorch, an IndexError otherwise.
  const IndexRule rule{op, size_or_1(self, dim), dim, false, size_or_1(self, dim) > 0};
  check_index_values(index, rule);
  init_from_self(self, out, op);
  if (self.is_meta() || index.numel() == 0 || self.numel() == 0) return;
#define TL_INDEX_COPY_BODY                                                                              \
  [&] {                                                                                                 \
    index_apply({out}, {src}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {  \
      scalar_t* y = s[0].as<scalar_t>();                                                               \
      const scalar_t* x = s[1].as<scalar_t>();                                                         \
      for (int64_t i = 0; i < n; ++i) y[ix[i] * s[0].stride] = x[i * s[1].stride];                     \
    });                                                                                                 \
  }
  const Tensor idx = expand_index(index, src.sizes(), dim);
  // complex32 too (a move of 4-byte elements, as PyTorch's index_copy runs on it).
  TL_DISPATCH_SWITCH(self.dtype(), op, TL_CASES_FLOAT(TL_INDEX_COPY_BODY) TL_CASES_INTEGRAL(TL_INDEX_COPY_BODY)
                                           TL_CASES_BOOL(TL_INDEX_COPY_BODY) TL_CASES_COMPLEX(TL_INDEX_COPY_BODY)
                                               TL_CASES_COMPLEX_HALF(TL_INDEX_COPY_BODY));
#undef TL_INDEX_COPY_BODY
}

namespace {
void index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, Tensor& out) {
  const char* op = "index_fill";
  TL_CHECK(!value.is_complex() || is_complex_type(self.dtype()),
           "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_vector(index, op);
  TL_CHECK(index.dtype() == ScalarType::Int64, op, ": Expected dtype int64 for index.");
  // PyTorch checks nothing for an empty self, except that any index into a dim of size 0 is a
  // RuntimeError (an IndexError otherwise).
  const int64_t bound = size_or_1(self, dim);
  const IndexRule rule{op, bound, dim, /*negative_ok=*/true, bound > 0};
  if (self.numel() > 0 || bound == 0) check_index_values(index, rule);
  init_from_self(self, out, op, /*allow_overlap=*/true);
  if (self.is_meta() || index.numel() == 0 || self.numel() == 0) return;
  const Tensor idx = expand_index(index, with_dim_size(self, dim, index.numel()), dim);
  bool overlapping = false;  // an expanded self, in place: PyTorch writes through (shared elements too)
  for (int64_t d = 0; d < out.dim(); ++d) overlapping |= out.sizes()[d] > 1 && out.strides()[d] == 0;
  // complex32 (PyTorch fills it too): the value converted with its overflow check.
  const ComplexHalf v32 = self.dtype() == ScalarType::Complex32 ? c32::checked(value) : ComplexHalf();
  const auto fill_value = [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, ComplexHalf>) return v32;
    else return value.to<T>();
  };
  if (overlapping) {  // no scratch copies (they would write stale shared elements back): direct writes
    TL_DISPATCH_ALL_AND_COMPLEX_AND_CHALF(self.dtype(), op, [&] {
      const scalar_t v = fill_value(scalar_t());
      dim_apply({out}, {idx}, dim, {}, [&](const DimSlice* s) {
        const int64_t* ix = s[1].as<int64_t>();
        for (int64_t i = 0; i < s[1].size; ++i) {
          const int64_t j = ix[i * s[1].stride];  // checked above
          s[0].as<scalar_t>()[(j < 0 ? j + rule.bound : j) * s[0].stride] = v;
        }
      });
    });
    return;
  }
  TL_DISPATCH_ALL_AND_COMPLEX_AND_CHALF(self.dtype(), op, [&] {
    const scalar_t v = fill_value(scalar_t());
    index_apply({out}, {}, idx, dim, rule, [&](const DimSlice* s, const int64_t* ix, int64_t n) {
      scalar_t* y = s[0].as<scalar_t>();
      for (int64_t i = 0; i < n; ++i) y[ix[i] * s[0].stride] = v;
    });
  });
}
}  // namespace

void index_fill_scalar_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, Tensor& out) {
  index_fill_impl(self, dim, index, value, out);
}

void index_fill_tensor_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value, Tensor& out) {
  TL_CHECK(value.dim() == 0, "index_fill: only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  index_fill_impl(self, dim, index, value.is_meta() ? Scalar(0) : tensor_item(value), out);
}

void take_kernel(const Tensor& self, const Tensor& index, Tensor& out) {
  const char* op = "take";
  check_index_int64(index, op, "index");
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32, "\"take_cpu\" not implemented for 'ComplexHalf'");
  prepare_output(out, index.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta() || index.numel() == 0) return;
  // PyTorch's take loop has no uint16/uint32/uint64 instance.
  TL_CHECK_AS(NotImplementedError, !is_barebones_unsigned_type(self.dtype()), op, ": not implemented for dtype ",
              scalar_type_name(self.dtype()));
  const int64_t numel = self.numel();
  TL_CHECK_AS(IndexError, numel > 0 || index.numel() == 0, op, ": tried to take from an empty tensor");
  const int64_t nd = self.dim();
  const int64_t isz = static_cast<int64_t>(self.itemsize());
  const char* base = static_cast<const char*>(self.data_ptr());
  const bool contig = self.is_contiguous();
  // The index and the output are walked flat (both contiguous); self's offset comes from its strides.
  Tensor flat_index = index;
  if (!index.is_contiguous()) {
    flat_index = empty_tensor(index.sizes(), ScalarType::Int64);
    copy_kernel(flat_index, index, false);
  }
  const Tensor res = out.is_contiguous() && !(out.storage() == index.storage()) ? out
                                                                                : empty_tensor(index.sizes(), self.dtype());
  char* dst = static_cast<char*>(res.data_ptr());
  const int64_t* ix = flat_index.data_ptr<int64_t>();
  parallel_for(0, index.numel(), kGrainSize / 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t v = ix[i];
      TL_CHECK_AS(IndexError, v >= -numel && v < numel, op, ": out of range: tried to access index ", v,
                  " on a tensor of ", numel, " elements.");
      if (v < 0) v += numel;
      int64_t off = 0;
      if (contig) {
        off = v;
      } else {
        for (int64_t d = nd - 1; d >= 0; --d) {
          off += (v % self.sizes()[d]) * self.strides()[d];
          v /= self.sizes()[d];
        }
      }
      std::memcpy(dst + i * isz, base + off * isz, isz);
    }
  });
  if (!res.is_same(out)) copy_kernel(out, res, false);
}

}  // namespace tl::native
