// Advanced indexing: index.Tensor (self[indices]) and index_put/index_put_ (self[indices] = values)
// with integer and bool index tensors, as PyTorch defines them (docs/indexing.md).
//
// Both ops go through one plan: masks become their nonzero() columns, the index tensors are
// broadcast together to a shape B and converted to int64, and the result's shape is self's with the
// indexed dims replaced by B (in place when the indexed dims are adjacent, first otherwise). A
// position n of B then names one block of self: the "rest" dims no index touches, at the offset
// the indices give. The kernels copy (or add) blocks, in parallel over n, after checking each index
// value against its dim (IndexError "index 5 is out of bounds for dimension 0 with size 3").
//
// A single mask indexing self's leading dims (x[mask], x[mask] = v) skips nonzero(): it is read
// in two parallel passes (count, then copy) through MaskCounts (aten/native/AdvancedIndex.h).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "aten/native/AdvancedIndex.h"
#include "aten/native/IndexEngine.h"
#include "aten/native/cpu/ComplexDispatch.h"
#include "aten/native/cpu/Loops.h"  // wrapping_add, wrapping_mul
#include "aten/native/ShapeUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/index.h"
#include "generated/ops/index_put.h"

namespace tl::native {

namespace {

// index_put's accumulation: bool `or`, integers wrapping as PyTorch's (no UB), every other type its sum.
template <typename T>
void accumulate_value(T& dst, const T& src) {
  if constexpr (std::is_same_v<T, bool>) dst = dst || src;
  else if constexpr (std::is_integral_v<T>) dst = wrapping_add(dst, src);
  else dst = static_cast<T>(dst + src);
}

bool is_mask_dtype(ScalarType t) { return t == ScalarType::Bool || t == ScalarType::UInt8; }

void check_index_dtype(const Tensor& t) {
  const ScalarType s = t.dtype();
  TL_CHECK_INDEX(s == ScalarType::Int64 || s == ScalarType::Int32 || is_mask_dtype(s),
                 "tensors used as indices must be long, int, byte or bool tensors");
}

// The dims [d, d + mask.dim()) of self must have the mask's shape.
void check_mask_shape(const Tensor& self, const Tensor& mask, int64_t d) {
  for (int64_t j = 0; j < mask.dim(); ++j) {
    TL_CHECK_INDEX(d + j < self.dim() && mask.sizes()[j] == self.sizes()[d + j], "The shape of the mask ",
                   mask.sizes(), " at index ", j, " does not match the shape of the indexed tensor ", self.sizes(),
                   " at index ", d + j);
  }
}

// A view of `t` with `t`'s trailing dims aligned to `shape` (stride 0 where it is broadcast).
Tensor expand_view(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  auto [sizes, strides] = infer_expand_geometry(t.sizes(), t.strides(), shape);
  return make_view(t, sizes, strides, t.storage_offset());
}

struct Plan {
  std::vector<Tensor> idx;  // int64, contiguous, shape `bshape`: one per indexed dim (empty on meta)
  DimVector dims;           // the dim of self each of them indexes
  DimVector bshape;         // the broadcast shape of the index tensors
  int64_t nb = 1;           // its numel
  int64_t first = 0;        // where B's dims sit in the result
  DimVector rest;           // self's dims no index touches, in order
  DimVector result;         // the shape of self[indices]
};

Plan make_plan(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  TL_CHECK_INDEX(!indices.empty(), "at least one index must be provided");
  TL_CHECK_INDEX(static_cast<int64_t>(indices.size()) <= self.dim(), "too many indices for tensor of dimension ",
                 self.dim(), " (got ", indices.size(), ")");
  Plan p;
  std::vector<Tensor> lists;
  int64_t d = 0;
  for (const std::optional<Tensor>& opt : indices) {
    if (!opt || !opt->defined()) {
      ++d;
      continue;
    }
    const Tensor& t = *opt;
    check_index_dtype(t);
    TL_CHECK(t.is_cpu() || t.device() == self.device(),
             "indices should be either on cpu or on the same device as the indexed tensor (",
             device_type_name(self.device().type), ")");
    if (!is_mask_dtype(t.dtype())) {
      lists.push_back(t);
      p.dims.push_back(d++);
      continue;
    }
    check_mask_shape(self, t, d);
    if (t.is_meta())
      throw NotImplementedError("nonzero: a bool index needs the mask's values, which a meta tensor does not have");
    const Tensor nz = nonzero_of(t);  // [count, k]: column j indexes dim d + j
    const int64_t k = t.dim();
    for (int64_t j = 0; j < k; ++j) {
      lists.push_back(make_view(nz, {nz.sizes()[0]}, {k}, nz.storage_offset() + j));
      p.dims.push_back(d + j);
    }
    d += k;
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    try {
      p.bshape = i == 0 ? DimVector(lists[0].sizes()) : broadcast_shapes(p.bshape, lists[i].sizes());
    } catch (const Error&) {
      std::string shapes;
      for (size_t j = 0; j < lists.size(); ++j) shapes += str(j ? ", " : "", lists[j].sizes());
      throw IndexError(str("shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes));
    }
  }
  for (int64_t s : p.bshape) p.nb *= s;
  bool adjacent = !p.dims.empty();
  for (size_t i = 1; i < p.dims.size(); ++i) adjacent &= p.dims[i] == p.dims[i - 1] + 1;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (std::find(p.dims.begin(), p.dims.end(), i) == p.dims.end()) p.rest.push_back(i);
  p.first = adjacent ? p.dims[0] : 0;
  // self's sizes with the indexed dims replaced by B: in place when adjacent, in front otherwise
  for (int64_t i = 0; i < p.first; ++i) p.result.push_back(self.sizes()[i]);
  for (int64_t s : p.bshape) p.result.push_back(s);
  for (int64_t i : p.rest)
    if (i >= p.first) p.result.push_back(self.sizes()[i]);
  for (const Tensor& t : lists) {
    if (t.is_meta()) {
      p.idx.clear();
      break;
    }
    if (t.dtype() == ScalarType::Int64 && t.is_contiguous() && t.sizes() == IntArrayRef(p.bshape)) {
      p.idx.push_back(t);
    } else {
      Tensor c = empty_tensor(p.bshape, ScalarType::Int64);
      copy_kernel(c, expand_view(t, p.bshape), false);
      p.idx.push_back(c);
    }
  }
  return p;
}

// Dims walked together in two tensors (a: read, b: written), each with its own stride; size-1
// dims are dropped and neighbours merged where both allow it, so a contiguous block is one dim.
struct Walk {
  DimVector size, sa, sb;
  int64_t numel = 1;

  void add(int64_t n, int64_t a, int64_t b) {
    numel *= n;
    if (n == 1) return;
    if (!size.empty() && sa.back() == a * n && sb.back() == b * n) {
      size.back() *= n;
      sa.back() = a;
      sb.back() = b;
      return;
    }
    size.push_back(n);
    sa.push_back(a);
    sb.push_back(b);
  }
};

// op(b_element, a_element) over every element of `w`, from a and b (element pointers).
template <typename T, typename Op>
void walk(const Walk& w, const T* a, T* b, const Op& op) {
  const int64_t nd = static_cast<int64_t>(w.size.size());
  if (w.numel == 0) return;
  if (nd == 0) return op(*b, *a);
  const int64_t n = w.size[nd - 1], as = w.sa[nd - 1], bs = w.sb[nd - 1];
  const int64_t outer = w.numel / n;
  DimVector ctr(nd, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < n; ++i) op(b[ob + i * bs], a[oa + i * as]);
    for (int64_t d = nd - 2; d >= 0; --d) {  // next outer position
      oa += w.sa[d];
      ob += w.sb[d];
      if (++ctr[d] < w.size[d]) break;
      oa -= w.sa[d] * w.size[d];
      ob -= w.sb[d] * w.size[d];
      ctr[d] = 0;
    }
  }
}

// Copies the block `w` describes; a contiguous block is one memcpy.
template <typename T>
void copy_block(const Walk& w, const T* a, T* b) {
  if (w.size.size() == 1 && w.sa[0] == 1 && w.sb[0] == 1) {
    std::memcpy(b, a, static_cast<size_t>(w.numel) * sizeof(T));
    return;
  }
  walk(w, a, b, [](T& y, const T& x) { y = x; });
}

// Offset, along B's dims of a tensor whose B dims have `strides`, of flat position n of B.
struct FlatOffset {
  DimVector sizes, strides;
  int64_t single = 0;  // when B's dims collapse to one stride
  bool collapsed = true;

  FlatOffset(IntArrayRef bshape, IntArrayRef bstrides) {
    Walk w;
    for (size_t i = 0; i < bshape.size(); ++i) w.add(bshape[i], bstrides[i], bstrides[i]);
    collapsed = w.size.size() <= 1;
    single = w.size.empty() ? 0 : w.sa[0];
    sizes = w.size;
    strides = w.sa;
  }
  int64_t operator()(int64_t n) const {
    if (collapsed) return n * single;
    int64_t off = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      off += (n % sizes[d]) * strides[d];
      n /= sizes[d];
    }
    return off;
  }
};

// Where the block of B's flat position n starts in self (in elements), every index value
// checked and wrapped.
struct BlockOffsets {
  std::vector<const int64_t*> idx;
  DimVector dims, size, stride;

  BlockOffsets(const Plan& p, const Tensor& self) {
    for (size_t j = 0; j < p.idx.size(); ++j) {
      idx.push_back(p.idx[j].data_ptr<int64_t>());
      dims.push_back(p.dims[j]);
      size.push_back(self.sizes()[p.dims[j]]);
      stride.push_back(self.strides()[p.dims[j]]);
    }
  }
  // The offset for a single index tensor (the common x[idx]): no loop over index tensors.
  int64_t one(int64_t n) const { return position(n) * stride[0]; }
  // The checked, wrapped index value of a single index tensor at n.
  // Inlined into the kernels' loops: a call per element costs more than the copy itself.
  [[gnu::always_inline]] int64_t position(int64_t n) const {
    const int64_t v = idx[0][n];
    const int64_t wrapped = v < 0 ? v + size[0] : v;
    if (__builtin_expect(static_cast<uint64_t>(wrapped) >= static_cast<uint64_t>(size[0]), 0)) out_of_bounds(v, 0);
    return wrapped;
  }
  [[noreturn, gnu::cold, gnu::noinline]] void out_of_bounds(int64_t v, size_t j) const {
    throw IndexError(str("index ", v, " is out of bounds for dimension ", dims[j], " with size ", size[j]));
  }
  int64_t operator()(int64_t n) const {
    int64_t off = 0;
    for (size_t j = 0; j < idx.size(); ++j) {
      int64_t v = idx[j][n];
      const int64_t wrapped = v < 0 ? v + size[j] : v;
      TL_CHECK_INDEX(wrapped >= 0 && wrapped < size[j], "index ", v, " is out of bounds for dimension ", dims[j],
                     " with size ", size[j]);
      off += wrapped * stride[j];
    }
    return off;
  }
};

// Position in the result of each of p.rest's dims (B's dims sit at [first, first + |B|)).
int64_t rest_position(const Plan& p, size_t r) {
  const int64_t pos = static_cast<int64_t>(r);
  return pos < p.first ? pos : pos + static_cast<int64_t>(p.bshape.size());
}

// The walk over the rest dims: a = `src` at self's rest dims, b = `dst` at the result's positions
// (or reversed for index_put: a = values at the result's positions, b = self).
Walk rest_walk(const Plan& p, const Tensor& self, const Tensor& result_like, bool self_is_source) {
  Walk w;
  for (size_t r = 0; r < p.rest.size(); ++r) {
    const int64_t s = self.strides()[p.rest[r]];
    const int64_t t = result_like.strides()[rest_position(p, r)];
    w.add(self.sizes()[p.rest[r]], self_is_source ? s : t, self_is_source ? t : s);
  }
  return w;
}

// Stride of B's flat position in a contiguous result (B's dims are adjacent there).
int64_t flat_stride(const Plan& p, const Tensor& result) {
  return p.bshape.empty() ? 0 : result.strides()[p.first + p.bshape.size() - 1];
}

// The mask of self[mask] when that is the whole index: one mask over self's leading dims (at
// least one), whose elements sit one stride apart in self. Sets `stride` to it.
const Tensor* lone_mask(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, int64_t& stride) {
  if (indices.empty() || !indices[0] || !indices[0]->defined() || self.is_meta()) return nullptr;
  const Tensor& m = *indices[0];
  if (!is_mask_dtype(m.dtype()) || m.dim() == 0 || m.is_meta()) return nullptr;
  for (size_t i = 1; i < indices.size(); ++i)
    if (indices[i] && indices[i]->defined()) return nullptr;
  check_mask_shape(self, m, 0);
  stride = 1;
  int64_t expect = -1;
  for (int64_t d = m.dim() - 1; d >= 0; --d) {
    const int64_t n = self.sizes()[d];
    if (n == 1) continue;
    if (expect < 0) stride = self.strides()[d];
    else if (self.strides()[d] != expect) return nullptr;
    expect = self.strides()[d] * n;
  }
  return &m;
}

// Shape of self[mask] for a lone mask with `count` trues: [count, self's other dims].
DimVector mask_result_shape(const Tensor& self, int64_t k, int64_t count) {
  DimVector s{count};
  for (int64_t d = k; d < self.dim(); ++d) s.push_back(self.sizes()[d]);
  return s;
}

// The walk over a lone mask's rest dims: self (a) to a contiguous [count, rest] result (b).
Walk mask_rest_walk(const Tensor& self, int64_t k, const Tensor& packed, bool self_is_source) {
  Walk w;
  for (int64_t d = k; d < self.dim(); ++d) {
    const int64_t s = self.strides()[d], t = packed.strides()[d - k + 1];
    w.add(self.sizes()[d], self_is_source ? s : t, self_is_source ? t : s);
  }
  return w;
}

Tensor index_lone_mask(const Tensor& self, const Tensor& mask, int64_t stride) {
  const MaskCounts mc = count_mask(mask);
  Tensor out = empty_tensor(mask_result_shape(self, mask.dim(), mc.total), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const Walk w = mask_rest_walk(self, mask.dim(), out, true);
  const int64_t row = w.numel;
  const uint8_t* m = mc.data();
  dispatch_itemsize(self.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(self.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    mc.for_each_chunk([&](int64_t b, int64_t e, int64_t pos) {
      if (row == 1 && w.size.empty()) {
        // Branch-free: every element is written at the next free slot, which only a true one
        // keeps; stopping at the chunk's last true keeps the writes inside the chunk's slots.
        int64_t last = e - 1;
        while (last >= b && !m[last]) --last;
        for (int64_t i = b; i <= last; ++i) {
          y[pos] = x[i * stride];
          pos += m[i] != 0;
        }
        return;
      }
      for (int64_t i = b; i < e; ++i)
        if (m[i]) copy_block(w, x + i * stride, y + (pos++) * row);
    });
  });
  return out;
}

// self[mask] = values (not accumulating) for a lone mask.
void index_put_lone_mask(Tensor& out, const Tensor& mask, int64_t stride, const Tensor& values) {
  const int64_t k = mask.dim();
  if (values.numel() == 1) {  // a fill: no need to count
    Tensor m = mask;
    if (!m.is_contiguous()) {
      m = empty_tensor(mask.sizes(), ScalarType::Bool);
      copy_kernel(m, mask, false);
    }
    const uint8_t* mk = static_cast<const uint8_t*>(m.data_ptr());
    Walk w;
    for (int64_t d = k; d < out.dim(); ++d) w.add(out.sizes()[d], 0, out.strides()[d]);
    if (w.numel == 0) return;
    dispatch_itemsize(out.itemsize(), [&](auto tag) {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, values.data_ptr(), sizeof(T));
      T* y = static_cast<T*>(out.data_ptr());
      parallel_for(0, m.numel(), kGrainSize / std::max<int64_t>(w.numel, 1), [&](int64_t b, int64_t e) {
        if (w.numel == 1) {
          for (int64_t i = b; i < e; ++i) {
            T& t = y[i * stride];
            t = mk[i] ? v : t;
          }
          return;
        }
        for (int64_t i = b; i < e; ++i)
          if (mk[i]) walk(w, &v, y + i * stride, [](T& dst, const T& src) { dst = src; });
      });
    });
    return;
  }
  const MaskCounts mc = count_mask(mask);
  const DimVector shape = mask_result_shape(out, k, mc.total);
  TL_CHECK(is_expandable_to(values.sizes(), shape), "shape mismatch: value tensor of shape ", values.sizes(),
           " cannot be broadcast to indexing result of shape ", IntArrayRef(shape));
  const Tensor ve = expand_view(values, shape);
  const Walk w = mask_rest_walk(out, k, ve, false);
  const int64_t vstride = ve.strides()[0];
  const uint8_t* m = mc.data();
  dispatch_itemsize(out.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(ve.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    mc.for_each_chunk([&](int64_t b, int64_t e, int64_t pos) {
      for (int64_t i = b; i < e; ++i)
        if (m[i]) copy_block(w, x + (pos++) * vstride, y + i * stride);
    });
  });
}

// True when the only index tensor of `indices` is a mask (the others are None).
bool lone_mask_anywhere(const std::vector<std::optional<Tensor>>& indices) {
  int masks = 0;
  for (const std::optional<Tensor>& i : indices) {
    if (!i || !i->defined()) continue;
    if (!is_mask_dtype(i->dtype())) return false;
    ++masks;
  }
  return masks == 1;
}

Tensor index_impl(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  int64_t stride = 0;
  if (const Tensor* mask = lone_mask(self, indices, stride)) return index_lone_mask(self, *mask, stride);
  const Plan p = make_plan(self, indices);
  Tensor out = empty_tensor(p.result, self.dtype(), self.device());
  if (self.is_meta() || (p.idx.empty() && !p.dims.empty())) return out;
  const BlockOffsets block(p, self);
  const Walk w = rest_walk(p, self, out, true);
  const int64_t sn = flat_stride(p, out);
  const int64_t grain = std::max<int64_t>(kGrainSize / std::max<int64_t>(w.numel, 1), 1);
  dispatch_itemsize(self.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(self.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    parallel_for(0, p.nb, grain, [&](int64_t b, int64_t e) {
      if (w.size.empty()) {  // one element per position
        if (w.numel == 0) {
          for (int64_t n = b; n < e; ++n) block(n);  // nothing to copy; indices still checked
          return;
        }
        if (block.idx.size() == 1) {
          for (int64_t n = b; n < e; ++n) {
            // random reads: ask for the element a few positions ahead early
            if (n + 16 < e) __builtin_prefetch(x + block.stride[0] * block.idx[0][n + 16] + (block.idx[0][n + 16] < 0 ? block.stride[0] * block.size[0] : 0));
            y[n * sn] = x[block.one(n)];
          }
          return;
        }
        for (int64_t n = b; n < e; ++n) y[n * sn] = x[block(n)];
        return;
      }
      for (int64_t n = b; n < e; ++n) copy_block(w, x + block(n), y + n * sn);
    });
  });
  return out;
}

}  // namespace

void index_kernel(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, Tensor& out) {
  Tensor result = index_impl(self, indices);
  if (!out.defined()) {
    out = result;
    return;
  }
  // out=: the result is computed first, so an out that overlaps self reads nothing it wrote
  prepare_output(out, result.sizes(), self.dtype(), self, OutDtype::Exact, "index");
  if (!self.is_meta()) copy_kernel(out, result, false);
}

void index_put_kernel(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                      bool accumulate, Tensor& out) {
  const char* op = "index_put";
  check_not_barebones_unsigned(self.dtype(), op);
  Tensor v = values;
  if (!accumulate && values.numel() == 1 && lone_mask_anywhere(indices)) {
    // PyTorch fills through masked_fill_ here: the number converts to self's dtype, and a uint8 mask
    // is refused
    for (const std::optional<Tensor>& i : indices)
      if (i && i->defined())
        TL_CHECK(i->dtype() == ScalarType::Bool,
                 "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char");
    v = values.is_meta() ? empty_tensor({}, self.dtype(), values.device())
                         : scalar_to_tensor(tensor_item(values), self.dtype(), values.device());
  }
  TL_CHECK(v.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
           legacy_type_name(self.dtype()), " for the destination and ", legacy_type_name(v.dtype()),
           " for the source.");
  init_from_self(self, out, op, /*allow_overlap=*/true);  // PyTorch writes through an expanded self
  if (!v.is_meta() && v.storage() == out.storage()) {  // read values before any write through self
    v = empty_tensor(values.sizes(), values.dtype());
    copy_kernel(v, values, false);
  }
  int64_t stride = 0;
  if (!accumulate) {
    if (const Tensor* mask = lone_mask(out, indices, stride)) return index_put_lone_mask(out, *mask, stride, v);
  }
  const Plan p = make_plan(out, indices);
  TL_CHECK(is_expandable_to(v.sizes(), p.result), "shape mismatch: value tensor of shape ", v.sizes(),
           " cannot be broadcast to indexing result of shape ", IntArrayRef(p.result));
  if (out.is_meta() || (p.idx.empty() && !p.dims.empty())) return;
  const Tensor ve = expand_view(v, p.result);
  const BlockOffsets block(p, out);
  const Walk w = rest_walk(p, out, ve, false);
  const FlatOffset voff(IntArrayRef(p.bshape),
                        IntArrayRef(ve.strides().data() + p.first, p.bshape.size()));
  if (accumulate) {  // in index order, on one thread: duplicates add up deterministically
    TL_DISPATCH_ALL_AND_COMPLEX(out.dtype(), op, [&] {
      const scalar_t* x = static_cast<const scalar_t*>(ve.data_ptr());
      scalar_t* y = static_cast<scalar_t*>(out.data_ptr());
      auto add = [](scalar_t& dst, const scalar_t& src) { accumulate_value(dst, src); };
      if (w.size.empty() && w.numel == 1 && block.idx.size() == 1 && voff.collapsed) {  // x.index_put_((idx,), v, True)
        // Each thread owns a range of the indexed dim and adds, in index order, the values landing
        // there: the same sums as one thread, in parallel.
        const int64_t size = block.size[0], vs = voff.single;
        const int64_t parts = p.nb >= kGrainSize ? std::min<int64_t>(get_num_threads(), size) : 1;
        parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
          for (int64_t part = b; part < e; ++part) {
            const int64_t lo = size * part / parts, hi = size * (part + 1) / parts;
            for (int64_t n = 0; n < p.nb; ++n) {
              const int64_t i = block.position(n);  // every index checked, in every part
              if (i >= lo && i < hi) add(y[i * block.stride[0]], x[n * vs]);
            }
          }
        });
        return;
      }
      for (int64_t n = 0; n < p.nb; ++n) walk(w, x + voff(n), y + block(n), add);
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(kGrainSize / std::max<int64_t>(w.numel, 1), 1);
  dispatch_itemsize(out.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(ve.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    parallel_for(0, p.nb, grain, [&](int64_t b, int64_t e) {
      if (w.size.empty() && w.numel == 1) {
        if (block.idx.size() == 1 && voff.collapsed) {
          // x[idx] = v: the index read, checked and wrapped inline (no call per element); no
          // prefetch, which costs more than it saves on these scattered writes.
          const int64_t vs = voff.single, size = block.size[0], st = block.stride[0];
          const int64_t* ix = block.idx[0];
          for (int64_t n = b; n < e; ++n) {
            const int64_t i = ix[n], wrapped = i < 0 ? i + size : i;
            if (__builtin_expect(static_cast<uint64_t>(wrapped) >= static_cast<uint64_t>(size), 0))
              block.out_of_bounds(i, 0);
            y[wrapped * st] = x[n * vs];
          }
          return;
        }
        for (int64_t n = b; n < e; ++n) y[block(n)] = x[voff(n)];
        return;
      }
      for (int64_t n = b; n < e; ++n) {
        const int64_t dst = block(n);
        copy_block(w, x + voff(n), y + dst);
      }
    });
  });
}

}  // namespace tl::native
