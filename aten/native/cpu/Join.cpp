// cat: joins tensors along an existing dimension (stack, concat and concatenate are composites
// over it in native_functions.yaml).
#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/CatContiguous.h"
#include "generated/ops/cat.h"
#include "generated/ops/copy.h"

namespace tl::native {
namespace {

// PyTorch's legacy rule: a 1-D tensor with no elements joins any list, whatever its shape.
bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

}  // namespace

void cat_kernel(TensorList tensors, int64_t dim, Tensor& out) {
  TL_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // out= sharing memory with an input (cat([a, b], out=a)): resizing out would change what is
  // read (an input that is out itself changes shape), so join into a new tensor and copy it over.
  if (out.defined() && !out.is_meta() &&
      std::any_of(tensors.begin(), tensors.end(),
                  [&](const Tensor& t) { return t.defined() && t.storage().get() == out.storage().get(); })) {
    Tensor joined;
    cat_kernel(tensors, dim, joined);
    TL_CHECK_TYPE(can_cast(joined.dtype(), out.dtype()), "torch.cat(): input types can't be cast to the desired output type ",
                  legacy_type_name(out.dtype()));
    resize_output(out, joined.sizes(), "cat");
    copy_kernel(out, joined, false);
    return;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  const ScalarType dtype = result_type(tensors);
  // The shape comes from the first tensor the legacy rule keeps; dim wraps against it.
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    if (!skipped_by_cat(t)) {
      ref = &t;
      break;
    }
  }
  int64_t wrapped = maybe_wrap_dim(dim, ref ? ref->dim() : 1, "cat");
  DimVector shape = ref ? DimVector(ref->sizes()) : DimVector{0};
  if (ref) {
    int64_t total = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (skipped_by_cat(t)) continue;
      TL_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
               t.dim());
      for (int64_t d = 0; d < t.dim(); ++d) {
        if (d == wrapped) continue;
        TL_CHECK(t.sizes()[d] == ref->sizes()[d], "Sizes of tensors must match except in dimension ", wrapped,
                 ". Expected size ", ref->sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
                 " in the list.");
      }
      total += t.sizes()[wrapped];
    }
    shape[wrapped] = total;
  }
  if (!out.defined()) {
    out = empty_tensor(shape, dtype, tensors[0].device());
  } else {
    TL_CHECK_TYPE(can_cast(dtype, out.dtype()), "torch.cat(): input types can't be cast to the desired output type ",
                  legacy_type_name(out.dtype()));
    resize_output(out, shape, "cat");
  }
  if (!ref || out.is_meta()) return;
  if (cat_contiguous(tensors, wrapped, out)) return;
  // Each input is copied (and converted) into its slice of the output.
  int64_t offset = 0;
  DimVector strides(out.strides());
  for (const Tensor& t : tensors) {
    if (skipped_by_cat(t)) continue;
    const int64_t n = t.sizes()[wrapped];
    DimVector sizes(out.sizes());
    sizes[wrapped] = n;
    Tensor slice = make_view(out, sizes, strides, out.storage_offset() + offset * strides[wrapped]);
    copy_kernel(slice, t, false);
    offset += n;
  }
}

}  // namespace tl::native
