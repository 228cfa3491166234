// View kernels: pure metadata over the input's storage (make_view), so the same code serves CPU
// and Meta tensors. Every dim argument wraps when negative (IndexError when out of range).
#include <algorithm>
#include <limits>
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/alias.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/detach.h"
#include "generated/ops/expand.h"
#include "generated/ops/permute.h"
#include "generated/ops/select.h"
#include "generated/ops/slice.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/t.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor view_kernel(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "view");
  std::optional<DimVector> stride = compute_view_strides(self.sizes(), self.strides(), shape);
  TL_CHECK(stride.has_value(),
           "view: view size is not compatible with input tensor's size and stride (at least one dimension spans "
           "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *stride, self.storage_offset());
}

Tensor as_strided_kernel(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                         std::optional<int64_t> storage_offset) {
  TL_CHECK(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape: sizes ", size,
           " and strides ", stride);
  int64_t offset = storage_offset.value_or(self.storage_offset());
  TL_CHECK(offset >= 0, "as_strided: invalid storage offset ", offset);
  for (int64_t st : stride) {
    TL_CHECK(st >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  }
  // compute_numel rejects negative sizes with PyTorch's "negative dimension" message.
  int64_t numel = compute_numel(size);
  if (numel > 0) {
    int64_t extent = 1;  // elements spanned: 1 + sum((size-1)*stride)
    bool overflow = false;
    for (size_t i = 0; i < size.size(); ++i) {
      int64_t term;
      overflow |= __builtin_mul_overflow(size[i] - 1, stride[i], &term);
      overflow |= __builtin_add_overflow(extent, term, &extent);
    }
    int64_t needed_bytes = 0;
    overflow |= __builtin_add_overflow(extent, offset, &needed_bytes);
    overflow |= __builtin_mul_overflow(needed_bytes, static_cast<int64_t>(self.itemsize()), &needed_bytes);
    TL_CHECK(!overflow, "as_strided: storage size calculation overflowed with sizes=", size,
             " and strides=", stride);
    // Meta tensors are checked too (their storage records its size): torch's meta kernel does not,
    // torchlite's meta kernels raise the CPU errors.
    int64_t have = static_cast<int64_t>(self.storage()->nbytes);
    TL_CHECK(needed_bytes <= have, "as_strided: sizes ", size, ", strides ", stride, ", storage offset ", offset,
             ", and itemsize ", self.itemsize(), " requiring a storage size of ", needed_bytes,
             " are out of bounds for storage of size ", have);
  }
  return make_view(self, size, stride, offset);
}

Tensor alias_kernel(const Tensor& self) {
  return make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

// Shares self's data and version counter but is not a view of it for autograd (no view base), so
// an in-place change of the result leaves self's history alone, as in PyTorch.
Tensor detach_kernel(const Tensor& self) {
  Tensor out = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  out.impl()->set_view_base(intrusive_ptr<TensorImpl>());
  return out;
}

Tensor transpose_kernel(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t nd = self.dim();
  int64_t d0 = maybe_wrap_dim(dim0, nd, "transpose");
  int64_t d1 = maybe_wrap_dim(dim1, nd, "transpose");
  if (nd == 0 || d0 == d1) return alias_kernel(self);
  DimVector sizes(self.sizes()), strides(self.strides());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t_kernel(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  if (self.dim() < 2) return alias_kernel(self);
  return transpose_kernel(self, 0, 1);
}

Tensor permute_kernel(const Tensor& self, IntArrayRef dims) {
  int64_t nd = self.dim();
  TL_CHECK(static_cast<int64_t>(dims.size()) == nd,
           "permute(): number of dimensions in the tensor input does not match the length of the desired "
           "ordering of dimensions i.e. input.dim() = ",
           nd, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(nd), strides(nd);
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = maybe_wrap_dim(dims[i], nd, "permute");
    TL_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand_kernel(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  auto [sizes, strides] = infer_expand_geometry(self.sizes(), self.strides(), size);
  return make_view(self, sizes, strides, self.storage_offset());
}

// Drops the dims whose bit is set in `mask` and whose size is 1.
static Tensor squeeze_mask(const Tensor& self, uint64_t mask) {
  DimVector sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if ((mask >> i & 1) && self.sizes()[i] == 1) continue;
    sizes.push_back(self.sizes()[i]);
    strides.push_back(self.strides()[i]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_kernel(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (self.sizes()[i] == 1) continue;
    sizes.push_back(self.sizes()[i]);
    strides.push_back(self.strides()[i]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_dim_kernel(const Tensor& self, int64_t dim) {
  int64_t d = maybe_wrap_dim(dim, self.dim(), "squeeze");
  if (self.dim() == 0) return alias_kernel(self);
  return squeeze_mask(self, uint64_t(1) << d);
}

Tensor squeeze_dims_kernel(const Tensor& self, IntArrayRef dim) {
  uint64_t mask = dims_to_bitmask(dim, self.dim(), "squeeze");
  if (self.dim() == 0) return alias_kernel(self);
  return squeeze_mask(self, mask);
}

Tensor unsqueeze_kernel(const Tensor& self, int64_t dim) {
  int64_t nd = self.dim();
  int64_t d = maybe_wrap_dim(dim, nd + 1, "unsqueeze");
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t new_stride = d >= nd ? 1 : sizes[d] * strides[d];
  sizes.insert(d, 1);
  strides.insert(d, new_stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor select_kernel(const Tensor& self, int64_t dim, int64_t index) {
  TL_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = maybe_wrap_dim(dim, self.dim(), "select");
  int64_t size = self.sizes()[d];
  TL_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                 self.sizes(), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(d);
  strides.erase(d);
  return make_view(self, sizes, strides, offset);
}

Tensor slice_kernel(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                    int64_t step) {
  TL_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  // RuntimeError like aten::slice; Python indexing (x[::-1]) raises ValueError itself, as torch does.
  TL_CHECK(step > 0, "slice step must be positive");
  int64_t d = maybe_wrap_dim(dim, self.dim(), "slice");
  int64_t size = self.sizes()[d];
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(std::numeric_limits<int64_t>::max());
  // Python semantics: negative bounds count from the end, then both clamp to [0, size].
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  // PyTorch's count, (e - s + step - 1) / step, wraps in int64 for steps near INT64_MAX (x[::2**63]
  // of 6 elements is empty, of 3 an error); the same results here, in defined arithmetic.
  const int64_t len = static_cast<int64_t>(static_cast<uint64_t>(e - s) + static_cast<uint64_t>(step - 1)) / step;
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + s * strides[d];
  sizes[d] = len;
  if (len < 0) {
    strides[d] = static_cast<int64_t>(static_cast<uint64_t>(strides[d]) * static_cast<uint64_t>(step));
    TL_CHECK(false, "Storage size calculation overflowed with sizes=", IntArrayRef(sizes), " and strides=",
             IntArrayRef(strides));
  }
  // With 2+ elements stride * step is at most the dimension's span; it can only overflow when the
  // result has one element or none, whose stride is never used: then the old stride stays.
  int64_t stepped;
  if (!__builtin_mul_overflow(strides[d], step, &stepped)) strides[d] = stepped;
  return make_view(self, sizes, strides, offset);
}

}  // namespace tl::native
