// The unique family: _unique, _unique2 (torchlite.unique without dim), unique_dim (with dim),
// unique_consecutive and unique_dim_consecutive.
//
// PyTorch's CPU kernels always sort (so `sorted` changes nothing) and count each NaN apart
// (NaN != NaN). What the sort does with equal keys is visible: which of -0.0 and 0.0 is output, the
// order of the NaN groups (their inverse indices) and, along a dim, which rows compare equal when
// they hold NaN. So the sorts here are PyTorch's: std::sort of (value, index) pairs by value, NaN
// last (its sort with stable=False), and std::sort of row indices by a lexicographic comparison
// for unique_dim. Consecutive equal values (rows) then form one group.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

#include "aten/native/DimEngine.h"
#include "generated/ops/_unique.h"
#include "generated/ops/_unique2.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/sort.h"
#include "generated/ops/unique_consecutive.h"
#include "generated/ops/unique_dim.h"
#include "generated/ops/unique_dim_consecutive.h"

namespace tl::native {

namespace {

template <typename T>
inline opmath_t<T> val(T x) { return static_cast<opmath_t<T>>(x); }

template <typename T>
inline bool nan_of(T x) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(val(x));
  else return false;
}

Tensor empty_long(IntArrayRef shape, const Tensor& like) { return empty_tensor(shape, ScalarType::Int64, like.device()); }

using Result3 = std::tuple<Tensor, Tensor, Tensor>;

template <typename T>
Result3 unique_sorted(const Tensor& self, bool return_inverse, bool return_counts) {
  const Tensor in = tl::contiguous(self);
  const int64_t n = in.numel();
  Tensor inverse = empty_long({0}, self), counts = empty_long({0}, self);
  if (n == 0) {
    if (return_inverse) inverse = empty_long(self.sizes(), self);
    return {empty_tensor({0}, self.dtype(), self.device()), inverse, counts};
  }
  const T* x = in.data_ptr<T>();
  if constexpr (!std::is_floating_point_v<opmath_t<T>>) {
    // Integers (and bool) spanning a small range: one counting pass gives the sorted distinct values,
    // their counts and each element's group, which every sort gives alike for integers.
    const auto [lo, hi] = std::minmax_element(x, x + n);
    const uint64_t base = static_cast<uint64_t>(*lo);
    const uint64_t span = static_cast<uint64_t>(*hi) - base;  // exact: two's complement difference
    if (span < static_cast<uint64_t>(std::max<int64_t>(int64_t{1} << 16, 2 * n))) {
      std::vector<int64_t> slot(static_cast<size_t>(span + 1), 0);
      for (int64_t i = 0; i < n; ++i) ++slot[static_cast<uint64_t>(x[i]) - base];
      int64_t groups = 0;
      for (const int64_t c : slot) groups += c != 0;
      Tensor output = empty_tensor({groups}, self.dtype(), self.device());
      if (return_counts) counts = empty_long({groups}, self);
      T* out = output.data_ptr<T>();
      int64_t* cnt = return_counts ? counts.data_ptr<int64_t>() : nullptr;
      int64_t g = 0;
      for (uint64_t k = 0; k <= span; ++k) {
        if (slot[k] == 0) continue;
        out[g] = static_cast<T>(base + k);
        if (cnt) cnt[g] = slot[k];
        slot[k] = g++;  // from here on: the value's group
      }
      if (return_inverse) {
        inverse = empty_long(self.sizes(), self);
        int64_t* inv = inverse.data_ptr<int64_t>();
        for (int64_t i = 0; i < n; ++i) inv[i] = slot[static_cast<uint64_t>(x[i]) - base];
      }
      return {output, inverse, counts};
    }
  }
  struct Item {
    T v;
    int64_t i;
  };
  std::vector<Item> items(static_cast<size_t>(n));
  // Without NaN and -0.0 every sort gives the same groups, values and inverse: float32 and int32
  // take the library's radix sort then, several times faster than PyTorch's comparison sort.
  bool torch_order = true;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int32_t>) {
    torch_order = std::any_of(x, x + n, [](T v) { return nan_of(v) || (v == 0 && std::signbit(val(v))); });
  }
  if (torch_order) {
    for (int64_t i = 0; i < n; ++i) items[i] = {x[i], i};
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return (!nan_of(a.v) && nan_of(b.v)) || val(a.v) < val(b.v);
    });
  } else {
    const auto [values, order] = tl::sort(tl::reshape(in, {-1}), 0, false);
    const T* v = values.data_ptr<T>();
    const int64_t* o = order.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) items[i] = {v[i], o[i]};
  }
  auto starts_group = [&](int64_t i) { return i == 0 || val(items[i].v) != val(items[i - 1].v); };
  int64_t groups = 0;
  for (int64_t i = 0; i < n; ++i) groups += starts_group(i);
  Tensor output = empty_tensor({groups}, self.dtype(), self.device());
  T* out = output.data_ptr<T>();
  if (return_inverse) inverse = empty_long(self.sizes(), self);
  if (return_counts) counts = empty_long({groups}, self);
  int64_t* inv = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  int64_t* cnt = return_counts ? counts.data_ptr<int64_t>() : nullptr;
  int64_t g = -1, start = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (starts_group(i)) {
      if (cnt && g >= 0) cnt[g] = i - start;
      out[++g] = items[i].v;
      start = i;
    }
    if (inv) inv[items[i].i] = g;
  }
  if (cnt) cnt[g] = n - start;
  return {output, inverse, counts};
}

template <typename T>
Result3 unique_consecutive_flat(const Tensor& self, bool return_inverse, bool return_counts) {
  const Tensor in = tl::contiguous(self);
  const int64_t n = in.numel();
  Tensor inverse = return_inverse ? empty_long(self.sizes(), self) : empty_long({0}, self);
  if (n == 0) return {empty_tensor({0}, self.dtype(), self.device()), inverse, empty_long({0}, self)};
  const T* x = in.data_ptr<T>();
  std::vector<T> out{x[0]};
  std::vector<int64_t> cnt;
  int64_t* inv = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  if (inv) inv[0] = 0;
  int64_t start = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (val(x[i]) != val(out.back())) {
      out.push_back(x[i]);
      cnt.push_back(i - start);
      start = i;
    }
    if (inv) inv[i] = static_cast<int64_t>(out.size()) - 1;
  }
  cnt.push_back(n - start);
  const int64_t groups = static_cast<int64_t>(out.size());
  Tensor output = empty_tensor({groups}, self.dtype(), self.device());
  std::copy(out.begin(), out.end(), output.data_ptr<T>());
  Tensor counts = empty_long({return_counts ? groups : 0}, self);
  if (return_counts) std::copy(cnt.begin(), cnt.end(), counts.data_ptr<int64_t>());
  return {output, inverse, counts};
}

// Unique slices along `dim`: the slices are the rows of `self` moved to dim 0 and flattened.
// Inverse indices and counts are always computed, as in PyTorch.
template <typename T>
Result3 unique_rows(const Tensor& self, int64_t dim, bool consecutive, const char* op) {
  TL_CHECK_INDEX(self.dim() > 0, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  dim = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t zero_dims = std::count(self.sizes().begin(), self.sizes().end(), int64_t{0});
  if (self.sizes()[dim] == 0) {
    TL_CHECK(zero_dims == 1, op, ": Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {empty_tensor(self.sizes(), self.dtype(), self.device()), empty_long({0}, self), empty_long({0}, self)};
  }
  TL_CHECK(zero_dims == 0, op, ": There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");

  std::vector<int64_t> perm{dim};  // `dim` first, the others in order
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) perm.push_back(d);
  const Tensor rows = tl::contiguous(tl::permute(self, perm));
  const int64_t nrows = rows.sizes()[0];
  const int64_t width = rows.numel() / nrows;
  const T* x = rows.data_ptr<T>();

  std::vector<int64_t> order(static_cast<size_t>(nrows));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (!consecutive) {
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < width; ++k) {
        const auto l = val(x[a * width + k]), r = val(x[b * width + k]);
        if (l < r) return true;
        if (l > r) return false;
      }
      return false;
    });
  }
  auto equal_rows = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < width; ++k)
      if (val(x[a * width + k]) != val(x[b * width + k])) return false;  // NaN differs from everything
    return true;
  };
  Tensor inverse = empty_long({nrows}, self);
  int64_t* inv = inverse.data_ptr<int64_t>();
  std::vector<int64_t> firsts{order[0]}, cnt;
  inv[order[0]] = 0;
  int64_t start = 0;
  for (int64_t k = 1; k < nrows; ++k) {
    if (!equal_rows(order[k], firsts.back())) {  // compared with the group's first row, as PyTorch
      firsts.push_back(order[k]);
      cnt.push_back(k - start);
      start = k;
    }
    inv[order[k]] = static_cast<int64_t>(firsts.size()) - 1;
  }
  cnt.push_back(nrows - start);
  const int64_t groups = static_cast<int64_t>(firsts.size());
  Tensor counts = empty_long({groups}, self);
  std::copy(cnt.begin(), cnt.end(), counts.data_ptr<int64_t>());

  DimVector shape(rows.sizes());
  shape[0] = groups;
  Tensor stacked = empty_tensor(shape, self.dtype(), self.device());
  T* out = stacked.data_ptr<T>();
  for (int64_t g = 0; g < groups; ++g) std::copy(x + firsts[g] * width, x + (firsts[g] + 1) * width, out + g * width);
  std::vector<int64_t> back(static_cast<size_t>(self.dim()));  // the inverse permutation: dim 0 back to `dim`
  for (int64_t d = 0; d < self.dim(); ++d) back[perm[d]] = d;
  return {tl::permute(stacked, back), inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor> unique_kernel(const Tensor& self, bool sorted, bool return_inverse) {
  (void)sorted;  // always sorted, as PyTorch's CPU kernel
  return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "_unique", [&] {
    auto [output, inverse, counts] = unique_sorted<scalar_t>(self, return_inverse, false);
    return std::make_tuple(output, inverse);
  });
}

std::tuple<Tensor, Tensor, Tensor> unique2_kernel(const Tensor& self, bool sorted, bool return_inverse,
                                                  bool return_counts) {
  (void)sorted;
  return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "_unique2", [&] {
    return unique_sorted<scalar_t>(self, return_inverse, return_counts);
  });
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_kernel(const Tensor& self, int64_t dim, bool sorted,
                                                     bool return_inverse, bool return_counts) {
  (void)sorted, (void)return_inverse, (void)return_counts;  // always sorted, both always computed
  return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "unique_dim", [&] {
    return unique_rows<scalar_t>(self, dim, false, "unique_dim");
  });
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive_kernel(const Tensor& self, int64_t dim,
                                                                 bool return_inverse, bool return_counts) {
  (void)return_inverse, (void)return_counts;
  return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "unique_dim_consecutive", [&] {
    return unique_rows<scalar_t>(self, dim, true, "unique_dim_consecutive");
  });
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive_kernel(const Tensor& self, bool return_inverse,
                                                             bool return_counts, std::optional<int64_t> dim) {
  // PyTorch flattens when there is no dim, and for dim 0 of a 1-D tensor (the same thing).
  if (!dim || (*dim == 0 && self.dim() == 1)) {
    return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "unique_consecutive", [&] {
      return unique_consecutive_flat<scalar_t>(self, return_inverse, return_counts);
    });
  }
  return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "unique_consecutive", [&] {
    return unique_rows<scalar_t>(self, *dim, true, "unique_consecutive");
  });
}

}  // namespace tl::native
