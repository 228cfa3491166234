// sort, topk and kthvalue on the dim engine (aten/native/DimEngine.h): each slice is sorted (or
// partially sorted) as (value, index) pairs in a per-thread buffer.
//
// Order: NaN sorts as the largest value (last ascending, first descending), as in PyTorch. sort
// is always stable (ties keep their input order), which is also a valid result for stable=False.
// Long float32/int32 slices use a radix sort, others a comparison sort: same results.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/native/DimEngine.h"
#include "generated/ops/kthvalue.h"
#include "generated/ops/sort.h"
#include "generated/ops/topk.h"

namespace tl::native {

namespace {

template <typename T>
struct Item {
  T v;
  int64_t i;
};

template <typename T>
inline bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(static_cast<opmath_t<T>>(x));
  else return false;
}

// Strict "a comes before b" for ascending / descending order, NaN largest.
template <typename T>
struct Before {
  bool descending;
  bool operator()(const Item<T>& a, const Item<T>& b) const {
    using acc = opmath_t<T>;
    const acc x = static_cast<acc>(a.v), y = static_cast<acc>(b.v);
    if (descending) return x > y || (is_nan(a.v) && !is_nan(b.v));
    return x < y || (!is_nan(a.v) && is_nan(b.v));
  }
};

// The same order with the direction fixed at compile time, for topk's selections: a comparator
// that tests a runtime flag on every call costs about a quarter of their time.
template <typename T, bool Descending>
struct BeforeIn {
  bool operator()(const Item<T>& a, const Item<T>& b) const {
    using acc = opmath_t<T>;
    const acc x = static_cast<acc>(a.v), y = static_cast<acc>(b.v);
    if constexpr (Descending) return x > y || (is_nan(a.v) && !is_nan(b.v));
    else return x < y || (!is_nan(a.v) && is_nan(b.v));
  }
};

// Loads a slice into the thread's pair buffer.
template <typename T>
std::vector<Item<T>>& load_items(const DimSlice& in) {
  thread_local std::vector<Item<T>> items;
  items.resize(static_cast<size_t>(in.size));
  const T* x = in.as<T>();
  for (int64_t i = 0; i < in.size; ++i) items[i] = {x[i * in.stride], i};
  return items;
}

template <typename T>
void store_items(const std::vector<Item<T>>& items, int64_t k, const DimSlice& values, const DimSlice& indices) {
  T* v = values.as<T>();
  int64_t* ix = indices.as<int64_t>();
  for (int64_t i = 0; i < k; ++i) {
    v[i * values.stride] = items[i].v;
    ix[i * indices.stride] = items[i].i;
  }
}

// ---- radix sort for 32-bit keys (float32, int32) -------------------------------------------------
// An LSD radix sort of order-preserving unsigned keys is stable and linear: about 10x faster than
// a comparison sort for long slices. Keys: NaN (any sign) -> largest, -0.0 -> +0.0 (equal to it,
// as comparisons say), then the usual sign-flip trick; descending sorts the complemented keys.
template <typename T>
inline uint32_t radix_key(T v, bool descending) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(v)) u = 0xFFFFFFFFu;
    else if (u == 0x80000000u) u = 0x80000000u;  // -0.0 gets the key of +0.0
    else u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  } else {
    u ^= 0x80000000u;
  }
  return descending ? ~u : u;
}

constexpr int64_t kRadixMin = 256;  // shorter slices use the comparison sort

template <typename T>
void radix_sort_slice(const DimSlice& in, const DimSlice& values, const DimSlice& indices, bool descending) {
  const int64_t n = in.size;
  thread_local std::vector<uint32_t> keys_a, keys_b;
  thread_local std::vector<int32_t> idx_a, idx_b;
  keys_a.resize(n), keys_b.resize(n), idx_a.resize(n), idx_b.resize(n);
  const T* x = in.as<T>();
  for (int64_t i = 0; i < n; ++i) {
    keys_a[i] = radix_key(x[i * in.stride], descending);
    idx_a[i] = static_cast<int32_t>(i);
  }
  uint32_t* ks = keys_a.data();
  uint32_t* kd = keys_b.data();
  int32_t* is = idx_a.data();
  int32_t* id = idx_b.data();
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[256] = {};
    for (int64_t i = 0; i < n; ++i) ++count[(ks[i] >> shift) & 0xFF];
    if (count[(ks[0] >> shift) & 0xFF] == n) continue;  // every key has this byte: nothing moves
    int64_t pos = 0;
    for (int b = 0; b < 256; ++b) {
      const int64_t c = count[b];
      count[b] = pos;
      pos += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = count[(ks[i] >> shift) & 0xFF]++;
      kd[at] = ks[i];
      id[at] = is[i];
    }
    std::swap(ks, kd);
    std::swap(is, id);
  }
  T* v = values.as<T>();
  int64_t* ix = indices.as<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    v[i * values.stride] = x[static_cast<int64_t>(is[i]) * in.stride];
    ix[i * indices.stride] = is[i];
  }
}

// Moves the k-th smallest item (NaN largest) to a[k] by PyTorch's CPU selection: Sedgewick's
// partitioning with a median-of-three pivot. The same steps give the same index among ties.
template <typename T>
void select_kth(std::vector<Item<T>>& a, int64_t k) {
  const Before<T> lt{false};
  auto gt = [&](const Item<T>& x, const Item<T>& y) { return lt(y, x); };
  int64_t lo = 0, hi = static_cast<int64_t>(a.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (gt(a[lo], a[hi])) std::swap(a[lo], a[hi]);
      return;
    }
    std::swap(a[(lo + hi) >> 1], a[lo + 1]);
    if (gt(a[lo + 1], a[hi])) std::swap(a[lo + 1], a[hi]);
    if (gt(a[lo], a[hi])) std::swap(a[lo], a[hi]);
    if (gt(a[lo + 1], a[lo])) std::swap(a[lo + 1], a[lo]);
    const Item<T> pivot = a[lo];  // a[lo + 1] <= pivot <= a[hi]: the scans below stop in range
    int64_t i = lo + 1, j = hi;
    for (;;) {
      do ++i; while (gt(pivot, a[i]));
      do --j; while (gt(a[j], pivot));
      if (j < i) break;
      std::swap(a[i], a[j]);
    }
    std::swap(a[lo], a[j]);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

// std::partial_sort(items, items + k, items + n) without materializing the n items: libstdc++'s
// partial sort is a heap select (make_heap of the first k; each later item that comes before the
// top replaces it, through __pop_heap(first, middle, item)) and a sort_heap. pop_heap on the k + 1
// items heap[0..k] with the candidate in heap[k] makes the same moves and comparisons, so the
// result, ties included, is partial_sort's (PyTorch's topk), while only the slice is read.
template <typename T, typename Comp>
void partial_sort_topk(const DimSlice& in, int64_t k, const Comp& before, const DimSlice& values,
                       const DimSlice& indices) {
  thread_local std::vector<Item<T>> heap;
  heap.resize(static_cast<size_t>(k + 1));
  const T* x = in.as<T>();
  for (int64_t i = 0; i < k; ++i) heap[i] = {x[i * in.stride], i};
  std::make_heap(heap.begin(), heap.begin() + k, before);
  for (int64_t i = k; i < in.size; ++i) {
    const Item<T> item{x[i * in.stride], i};
    if (before(item, heap[0])) {
      heap[k] = item;
      std::pop_heap(heap.begin(), heap.begin() + k + 1, before);
    }
  }
  std::sort_heap(heap.begin(), heap.begin() + k, before);
  store_items(heap, k, values, indices);
}

template <typename T>
constexpr bool has_radix_v = std::is_same_v<T, float> || std::is_same_v<T, int32_t>;

int64_t size_along(const Tensor& t, int64_t dim) { return t.dim() == 0 ? 1 : t.sizes()[dim]; }

void sort_impl(const Tensor& self, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  const char* op = "sort";
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), " Sort does not support complex dtypes on CPU");  // PyTorch's RuntimeError
  check_out_pair(values, indices, op);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  prepare_output(values, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, self.sizes(), ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), op, [&] {
    dim_apply({values, indices}, {self}, dim, {false, 16}, [&](const DimSlice* s) {
      if constexpr (has_radix_v<scalar_t>) {
        if (s[2].size >= kRadixMin && s[2].size <= INT32_MAX) return radix_sort_slice<scalar_t>(s[2], s[0], s[1], descending);
      }
      auto& items = load_items<scalar_t>(s[2]);
      std::stable_sort(items.begin(), items.end(), Before<scalar_t>{descending});
      store_items(items, s[2].size, s[0], s[1]);
    });
  });
}

}  // namespace

void sort_kernel(const Tensor& self, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  sort_impl(self, dim, descending, values, indices);
}

void sort_stable_kernel(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending, Tensor& values,
                        Tensor& indices) {
  (void)stable;  // every sort here is stable
  sort_impl(self, dim, descending, values, indices);
}

void topk_kernel(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, Tensor& values,
                 Tensor& indices) {
  const char* op = "topk";
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), " topk does not support complex dtypes on CPU");  // PyTorch's RuntimeError
  check_out_pair(values, indices, op);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t n = size_along(self, dim);
  TL_CHECK(k >= 0 && k <= n, op, ": selected index k out of range");
  TL_CHECK(self.dtype() != ScalarType::Bool, op, ": does not support bool dtypes on CPU");
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[dim] = k;
  prepare_output(values, shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, shape, ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta() || (k == 0 && self.dim() > 0)) return;
  if (self.dim() == 0) k = 1;  // a 0-d tensor holds one value whatever k is (0 or 1), as in PyTorch
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    auto run = [&](auto before) {
      dim_apply({values, indices}, {self}, dim, {false, 4}, [&](const DimSlice* s) {
        // PyTorch's CPU strategy, so that ties come out in its order: a partial sort when k is small
        // next to the slice, else a selection of the k-th, then (sorted) a sort of those before it.
        if (k * 64 <= s[2].size) return partial_sort_topk<scalar_t>(s[2], k, before, s[0], s[1]);
        auto& items = load_items<scalar_t>(s[2]);
        std::nth_element(items.begin(), items.begin() + (k - 1), items.end(), before);
        if (sorted) std::sort(items.begin(), items.begin() + (k - 1), before);
        store_items(items, k, s[0], s[1]);
      });
    };
    if (largest) run(BeforeIn<scalar_t, true>{});
    else run(BeforeIn<scalar_t, false>{});
  });
}

void kthvalue_kernel(const Tensor& self, int64_t k, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {
  const char* op = "kthvalue";
  check_out_pair(values, indices, op);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t n = size_along(self, dim);
  TL_CHECK_INDEX(n > 0, op, ": Expected reduction dim ", dim, " to have non-zero size.");
  TL_CHECK(k >= 1 && k <= n, op, ": selected number k out of range for dimension ", dim);
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, op, ": not implemented for 'Bool'");
  DimVector shape(self.sizes());
  if (self.dim() > 0) {
    if (keepdim) shape[dim] = 1;
    else shape.erase(dim);
  }
  prepare_output(values, shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, shape, ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  // Walk with the reduced dim kept as size 1, so outputs and input have the same rank.
  DimVector kept(self.sizes());
  if (self.dim() > 0) kept[dim] = 1;
  auto keep = [&](const Tensor& t) {
    if (self.dim() == 0 || keepdim) return t;
    DimVector strides(t.strides());
    strides.insert(dim, 0);
    return make_view(t, kept, strides, t.storage_offset());
  };
  const Tensor v = keep(values), ix = keep(indices);
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    dim_apply({v, ix}, {self}, dim, {false, 4}, [&](const DimSlice* s) {
      auto& items = load_items<scalar_t>(s[2]);
      select_kth(items, k - 1);
      s[0].as<scalar_t>()[0] = items[k - 1].v;
      s[1].as<int64_t>()[0] = items[k - 1].i;
    });
  });
}

}  // namespace tl::native
