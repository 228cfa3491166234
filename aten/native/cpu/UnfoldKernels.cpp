// Tensor.unfold (a view: the windows along a dimension) and its gradient, unfold_backward.
#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/add.h"
#include "generated/ops/copy.h"
#include "generated/ops/unfold.h"
#include "generated/ops/unfold_backward.h"
#include "generated/ops/zeros.h"

namespace tl::native {

// A 0-d tensor unfolds as a 1-element 1-D one (windows of size 0 or 1), as in PyTorch.
Tensor unfold_kernel(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t nd = self.dim();
  const int64_t d = maybe_wrap_dim(dimension, nd, "unfold");
  const int64_t max_size = nd == 0 ? 1 : self.sizes()[d];
  TL_CHECK(size <= max_size, "unfold: maximum size for tensor at dimension ", d, " is ", max_size, " but size is ",
           size);
  TL_CHECK(size >= 0, "unfold: size is ", size, " but must be >= 0");
  TL_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  if (nd == 0) return make_view(self, {size}, {1}, self.storage_offset());
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes[d] = (sizes[d] - size) / step + 1;
  // stride * step only addresses memory when there are 2+ windows, which bounds it by the extent.
  int64_t stepped;
  if (!__builtin_mul_overflow(strides[d], step, &stepped)) strides[d] = stepped;
  sizes.push_back(size);
  strides.push_back(self.strides()[d]);
  return make_view(self, sizes, strides, self.storage_offset());
}

// Each element of the input sums the window entries it appeared in: for every position j inside a
// window, the windows' j-th entries land on a strided slice of the result (one pass per j, so
// `size` passes however many windows there are; overlapping windows add up).
Tensor unfold_backward_kernel(const Tensor& grad_in, IntArrayRef input_sizes, int64_t dim, int64_t size,
                              int64_t step) {
  const char* op = "unfold_backward";
  const int64_t nd = static_cast<int64_t>(input_sizes.size());
  const int64_t d = maybe_wrap_dim(dim, nd, op);
  TL_CHECK(step > 0, op, ": step is ", step, " but must be > 0");
  TL_CHECK(size >= 0, op, ": size is ", size, " but must be >= 0");
  const int64_t input_len = nd == 0 ? 1 : input_sizes[d];
  TL_CHECK(size <= input_len, op, ": maximum size for tensor at dimension ", d, " is ", input_len,
           " but size is ", size);
  DimVector expected(input_sizes);
  if (nd == 0) expected = {size};
  else {
    expected[d] = (input_len - size) / step + 1;
    expected.push_back(size);
  }
  TL_CHECK(grad_in.sizes() == IntArrayRef(expected), op, ": grad_in of shape ", grad_in.sizes(),
           " does not match the unfolded shape ", IntArrayRef(expected));
  Tensor out = tl::zeros(input_sizes, grad_in.dtype(), grad_in.device());
  if (out.is_meta() || grad_in.numel() == 0) return out;
  const int64_t windows = nd == 0 ? 1 : expected[d];
  DimVector sizes(out.sizes()), strides(out.strides());
  DimVector src_sizes(grad_in.sizes()), src_strides(grad_in.strides());
  const int64_t window_stride = src_strides[src_strides.size() - 1];
  src_sizes.erase(src_sizes.size() - 1);
  src_strides.erase(src_strides.size() - 1);
  const int64_t elem_stride = nd == 0 ? 0 : strides[d];
  if (nd > 0) {
    sizes[d] = windows;
    strides[d] = windows > 1 ? elem_stride * step : elem_stride;
  }
  const bool overlapping = step < size;
  for (int64_t j = 0; j < size; ++j) {
    Tensor dst = make_view(out, sizes, strides, out.storage_offset() + j * elem_stride);
    Tensor src = make_view(grad_in, src_sizes, src_strides, grad_in.storage_offset() + j * window_stride);
    if (overlapping) add_kernel(dst, src, 1, dst);
    else copy_kernel(dst, src, false);
  }
  return out;
}

}  // namespace tl::native
