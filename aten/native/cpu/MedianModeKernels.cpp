// median, nanmedian and mode, whole-tensor and along a dim (the dim engine, aten/native/DimEngine.h).
//
// Which element is returned among equal ones is part of PyTorch's behaviour (its indices), so each
// kernel takes PyTorch's CPU steps with the same standard-library algorithm:
//  - median along a dim: std::nth_element over the indices, ordered by (value, index), so among
//    ties the median's index is the one a stable sort puts at rank (n - 1) / 2; a slice holding NaN
//    gives its first NaN.
//  - nanmedian along a dim: the same over the non-NaN values, NaN ordered after them and equal to
//    each other; for an all-NaN slice the index is whichever NaN nth_element leaves first.
//  - median()/nanmedian() of all elements: std::nth_element over the values (in the layout clone()
//    gives, as PyTorch's copy) — only which of -0.0 and 0.0 comes back depends on it.
//  - mode: std::sort of (value, index) pairs by value alone, then the first longest run of equal
//    values; its last element in the sorted order gives the index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "aten/native/DimEngine.h"
#include "generated/ops/clone.h"
#include "generated/ops/median.h"
#include "generated/ops/mode.h"
#include "generated/ops/nanmedian.h"

namespace tl::native {

namespace {

template <typename T>
inline bool nan_of(T x) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(static_cast<opmath_t<T>>(x));
  else return false;
}

template <typename T>
inline opmath_t<T> val(T x) { return static_cast<opmath_t<T>>(x); }

// PyTorch's "Expected reduction dim d to have non-zero size" for reductions without an identity
// (its Meta kernels do not check it).
void check_reduction_dim(const Tensor& self, int64_t dim, const char* op_paren) {
  if (self.dim() == 0 || self.numel() > 0 || self.is_meta()) return;
  TL_CHECK_INDEX(self.sizes()[dim] != 0, op_paren, ": Expected reduction dim ", dim, " to have non-zero size.");
}

// Allocates or checks (values, indices) of a reduction along `dim`, and returns them viewed with
// `dim` kept as size 1, so that the dim engine sees outputs of the input's rank.
std::pair<Tensor, Tensor> reduced_outputs(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                          Tensor& indices, const char* op) {
  DimVector shape(self.sizes());
  if (self.dim() > 0) {
    if (keepdim) shape[dim] = 1;
    else shape.erase(dim);
  }
  prepare_output(values, shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, shape, ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.dim() == 0 || keepdim) return {values, indices};
  DimVector kept(self.sizes());
  kept[dim] = 1;
  auto keep = [&](const Tensor& t) {
    DimVector strides(t.strides());
    strides.insert(dim, 0);
    return make_view(t, kept, strides, t.storage_offset());
  };
  return {keep(values), keep(indices)};
}

// One slice's median (or nanmedian) and its index, written to *value / *index. nth_element runs
// over (value, index) pairs rather than over indices into x: the same comparisons in the same
// order (so the same result, ties and NaNs included), without a dependent load in each.
template <typename T>
struct ValueIndex {
  opmath_t<T> v;
  int64_t i;
};

template <typename T>
void median_slice(const T* x, int64_t n, bool ignore_nan, std::vector<ValueIndex<T>>& items, T* value,
                  int64_t* index) {
  if (!ignore_nan) {
    const T* nanp = std::find_if(x, x + n, [](T v) { return nan_of(v); });
    if (nanp != x + n) {
      *value = *nanp;
      *index = nanp - x;
      return;
    }
  }
  items.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) items[static_cast<size_t>(i)] = {val(x[i]), i};
  using Item = ValueIndex<T>;
  auto nth = items.begin();
  if (!ignore_nan) {
    nth += (n - 1) / 2;
    std::nth_element(items.begin(), nth, items.end(), [](const Item& a, const Item& b) {
      return a.v < b.v || (a.v == b.v && a.i < b.i);
    });
  } else {
    const int64_t nans = std::count_if(x, x + n, [](T v) { return nan_of(v); });
    nth += (n - nans - 1) / 2;  // 0 when every value is NaN ((-1) / 2 truncates to 0)
    std::nth_element(items.begin(), nth, items.end(), [](const Item& a, const Item& b) {
      return a.v < b.v || (a.v == b.v && a.i < b.i) || (nan_of(b.v) && !nan_of(a.v));
    });
  }
  *value = x[nth->i];
  *index = nth->i;
}

void median_dim_impl(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices,
                     bool ignore_nan) {
  const char* op = ignore_nan ? "nanmedian" : "median";
  check_out_pair(values, indices, op);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_reduction_dim(self, dim, "median()");
  auto [v, ix] = reduced_outputs(self, dim, keepdim, values, indices, op);
  if (self.is_meta()) return;
  TL_DISPATCH_NUMERIC(self.dtype(), op, [&] {
    dim_apply({v, ix}, {self}, dim, {true, 8}, [&](const DimSlice* s) {
      thread_local std::vector<ValueIndex<scalar_t>> items;
      median_slice(s[2].as<scalar_t>(), s[2].size, ignore_nan, items, s[0].as<scalar_t>(), s[1].as<int64_t>());
    });
  });
}

Tensor median_all_impl(const Tensor& self, bool ignore_nan) {
  const char* op = ignore_nan ? "nanmedian" : "median";
  Tensor out = empty_tensor({}, self.dtype(), self.device());
  if (self.is_meta()) return out;  // PyTorch's Meta kernel takes every dtype
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, op, ": not implemented for 'Bool'");
  const int64_t n = self.numel();
  if (n == 0) {  // PyTorch: NaN, converted to the dtype
    return cast_to(scalar_to_tensor(Scalar(std::nan("")), ScalarType::Float32, self.device()), self.dtype());
  }
  const Tensor in = tl::clone(self, std::nullopt);  // partitioned in place, in clone()'s layout
  TL_DISPATCH_NUMERIC(self.dtype(), op, [&] {
    scalar_t* first = in.data_ptr<scalar_t>();
    scalar_t* last = first + n;
    scalar_t* result = out.data_ptr<scalar_t>();
    if (!ignore_nan) {
      if (std::any_of(first, last, [](scalar_t v) { return nan_of(v); })) {
        *result = static_cast<scalar_t>(std::numeric_limits<opmath_t<scalar_t>>::quiet_NaN());
        return;
      }
      scalar_t* mid = first + (n - 1) / 2;
      std::nth_element(first, mid, last, [](scalar_t a, scalar_t b) { return val(a) < val(b); });
      *result = *mid;
    } else {
      const int64_t nans = std::count_if(first, last, [](scalar_t v) { return nan_of(v); });
      scalar_t* mid = first + (n - nans - 1) / 2;
      std::nth_element(first, mid, last,
                       [](scalar_t a, scalar_t b) { return val(a) < val(b) || (nan_of(b) && !nan_of(a)); });
      *result = *mid;
    }
  });
  return out;
}

}  // namespace

Tensor median_all_kernel(const Tensor& self) { return median_all_impl(self, false); }

Tensor nanmedian_all_kernel(const Tensor& self) { return median_all_impl(self, true); }

void median_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  median_dim_impl(self, dim, keepdim, values, indices, false);
}

void nanmedian_dim_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  median_dim_impl(self, dim, keepdim, values, indices, true);
}

void mode_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  const char* op = "mode";
  check_out_pair(values, indices, op);
  // out= dtypes are checked before anything else on the CPU, as PyTorch's mode_out does (its Meta
  // kernel checks none)
  if (!self.is_meta()) {
    TL_CHECK(!indices.defined() || indices.dtype() == ScalarType::Int64, op,
             "(): expected scalar type 'Long' but got '", scalar_type_name(indices.dtype()), "' for indices output");
    TL_CHECK(!values.defined() || values.dtype() == self.dtype(), op, "(): expected scalar type '",
             scalar_type_name(self.dtype()), "' but got '", scalar_type_name(values.dtype()), "' for values output");
  }
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_reduction_dim(self, dim, "mode()");
  auto [v, ix] = reduced_outputs(self, dim, keepdim, values, indices, op);
  if (self.is_meta()) return;
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    dim_apply({v, ix}, {self}, dim, {false, 8}, [&](const DimSlice* s) {
      const int64_t n = s[2].size;
      const scalar_t* x = s[2].as<scalar_t>();
      thread_local std::vector<std::pair<scalar_t, int64_t>> items;
      items.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) items[i] = {x[i * s[2].stride], i};
      std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return val(a.first) < val(b.first); });
      scalar_t mode = scalar_t(0);
      int64_t mode_index = 0, run = 0, best = 0;
      for (int64_t i = 0; i < n; ++i) {
        ++run;
        if (i == n - 1 || val(items[i].first) != val(items[i + 1].first)) {
          if (run > best) {
            mode = items[i].first;
            mode_index = items[i].second;
            best = run;
          }
          run = 0;
        }
      }
      s[0].as<scalar_t>()[0] = mode;
      s[1].as<int64_t>()[0] = mode_index;
    });
  });
}

}  // namespace tl::native
