#include "aten/native/ShapeUtils.h"

#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"

namespace tl {

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  const char* pre = op ? op : "";
  const char* sep = op ? ": " : "";
  DimVector res(shape);
  int64_t newsize = 1;
  std::optional<size_t> infer_dim;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TL_CHECK(!infer_dim, pre, sep, "only one dimension can be inferred");
      infer_dim = i;
    } else {
      TL_CHECK(shape[i] >= 0, pre, sep, "invalid shape dimension ", shape[i], " at index ", i, " of shape ", shape);
      TL_CHECK(!__builtin_mul_overflow(newsize, shape[i], &newsize), pre, sep, "shape '", shape,
               "' is invalid for input of size ", numel);
    }
  }
  if (numel == newsize || (infer_dim && newsize > 0 && numel % newsize == 0)) {
    if (infer_dim) {
      // A -1 next to sizes whose product is 0 could stand for anything: PyTorch refuses it.
      TL_CHECK(newsize != 0, pre, sep, "cannot reshape tensor of 0 elements into shape ", shape,
               " because the unspecified dimension size -1 can be any value and is ambiguous");
      res[*infer_dim] = numel / newsize;
    }
    return res;
  }
  TL_ERROR(pre, sep, "shape '", shape, "' is invalid for input of size ", numel);
}

std::optional<DimVector> compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape) {
  DimVector newstride(newshape.size());
  if (oldshape.empty()) {  // a 0-d tensor: every new dim has size 1
    for (auto& s : newstride) s = 1;
    return newstride;
  }
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape.equals(newshape)) return DimVector(oldstride);
  if (numel == 0) {
    // No data to keep in place: contiguous strides (as if sizes of 0 were 1) are as good as any.
    for (int64_t k = static_cast<int64_t>(newshape.size()) - 1; k >= 0; --k) {
      if (k == static_cast<int64_t>(newshape.size()) - 1) newstride[k] = 1;
      else TL_CHECK(!__builtin_mul_overflow(std::max<int64_t>(newshape[k + 1], 1), newstride[k + 1], &newstride[k]),
                    "Stride calculation overflowed");
    }
    return newstride;
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();  // stride of the innermost dim of the current chunk
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // A chunk ends at the first dim, or where the next outer dim is not laid out right after it.
    if (tensor_d == 0 ||
        (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t na = a.size(), nb = b.size(), n = std::max(na, nb);
  DimVector out(n);
  for (size_t k = 0; k < n; ++k) {  // k counts from the last dim
    int64_t i = static_cast<int64_t>(n) - 1 - static_cast<int64_t>(k);
    int64_t sa = k < na ? a[na - 1 - k] : 1;
    int64_t sb = k < nb ? b[nb - 1 - k] : 1;
    TL_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa, ") must match the size of tensor b (",
             sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

DimVector broadcast_shapes(ArrayRef<IntArrayRef> shapes) {
  DimVector out;
  for (const IntArrayRef& s : shapes) out = broadcast_shapes(out, s);
  return out;
}

bool is_expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t k = 0; k < from.size(); ++k) {
    int64_t f = from[from.size() - 1 - k], t = to[to.size() - 1 - k];
    if (f != t && f != 1) return false;
  }
  return true;
}

std::pair<DimVector, DimVector> infer_expand_geometry(IntArrayRef tensor_sizes, IntArrayRef tensor_strides,
                                                      IntArrayRef sizes) {
  int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t tensor_dim = static_cast<int64_t>(tensor_sizes.size());
  TL_CHECK(ndim >= tensor_dim, "expand: the number of sizes provided (", ndim,
           ") must be greater or equal to the number of dimensions in the tensor (", tensor_dim, ")");
  DimVector out_sizes(ndim), out_strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    int64_t offset = ndim - 1 - i;
    int64_t dim = tensor_dim - 1 - offset;
    int64_t size = dim >= 0 ? tensor_sizes[dim] : 1;
    // A new leading dim gets the stride it would have if contiguous after the next one; it is
    // only kept when the size is 1 (otherwise the stride becomes 0 below).
    int64_t stride = dim >= 0 ? tensor_strides[dim]
                              : (i + 1 < ndim ? out_sizes[i + 1] * out_strides[i + 1] : 1);
    int64_t target = sizes[i];
    if (target == -1) {
      TL_CHECK(dim >= 0, "expand: The expanded size of the tensor (", target,
               ") isn't allowed in a leading, non-existing dimension ", i);
      target = size;
    }
    if (size != target) {
      TL_CHECK(size == 1, "expand: The expanded size of the tensor (", target, ") must match the existing size (", size,
               ") at non-singleton dimension ", i, ".  Target sizes: ", sizes, ".  Tensor sizes: ", tensor_sizes);
      TL_CHECK(target >= 0, "expand: the expanded size of the tensor (", target, ") must be non-negative",
               ".  Target sizes: ", sizes, ".  Tensor sizes: ", tensor_sizes);
      size = target;
      stride = 0;
    }
    out_sizes[i] = size;
    out_strides[i] = stride;
  }
  return {std::move(out_sizes), std::move(out_strides)};
}

uint64_t dims_to_bitmask(IntArrayRef dims, int64_t ndim, const char* op) {
  TL_CHECK(ndim <= 64, op, ": only tensors with up to 64 dims are supported");
  uint64_t mask = 0;
  for (int64_t d : dims) {
    int64_t w = maybe_wrap_dim(d, ndim, op);
    TL_CHECK(!(mask & (uint64_t(1) << w)), op, ": dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

}  // namespace tl
