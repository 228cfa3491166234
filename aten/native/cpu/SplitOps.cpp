// split, split_with_sizes and unbind: several views of one tensor along a dimension, made by one op
// (so autograd records one node for them all and refuses in-place changes of them, as PyTorch does;
// chunk and split.sizes call split, tensor_split is a composite over slice).
#include <algorithm>

#include "aten/core/Allocator.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/split.h"
#include "generated/ops/split_with_sizes.h"
#include "generated/ops/unbind.h"

namespace tl::native {

// What one view costs: its handle and its TensorImpl (sizes, strides, autograd metadata).
constexpr size_t kViewBytes = sizeof(Tensor) + sizeof(TensorImpl);

std::vector<Tensor> unbind_kernel(const Tensor& self, int64_t dim) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "unbind");  // range first, as PyTorch
  TL_CHECK_INDEX(self.dim() > 0, "unbind: Dimension specified as 0 but tensor has no dimensions");
  DimVector sizes(self.sizes()), strides(self.strides());
  const int64_t n = sizes[d], step = strides[d];
  sizes.erase(d);
  strides.erase(d);
  check_list_fits(static_cast<uint64_t>(n), kViewBytes);
  std::vector<Tensor> result;
  result.reserve(n);
  for (int64_t i = 0; i < n; ++i) result.push_back(make_view(self, sizes, strides, self.storage_offset() + i * step));
  return result;
}

namespace {

// The view of `self` covering [begin, begin + length) of dimension d.
Tensor piece(const Tensor& self, int64_t d, int64_t begin, int64_t length) {
  DimVector sizes(self.sizes());
  sizes[d] = length;
  return make_view(self, sizes, self.strides(), self.storage_offset() + begin * self.strides()[d]);
}

}  // namespace

std::vector<Tensor> split_kernel(const Tensor& self, int64_t split_size, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  TL_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  TL_CHECK(split_size != 0 || size == 0,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  const int64_t pieces = split_size == 0 || size == 0 ? 1 : (size - 1) / split_size + 1;  // ceil, no overflow
  check_list_fits(static_cast<uint64_t>(pieces), kViewBytes);
  std::vector<Tensor> result;
  result.reserve(pieces);
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t begin = i * split_size;
    result.push_back(piece(self, d, begin, std::min(split_size, size - begin)));
  }
  return result;
}

std::vector<Tensor> split_with_sizes_kernel(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  int64_t total = 0;
  bool too_large = false;  // the sum passed the size (checked before adding, so it cannot overflow)
  for (int64_t s : split_sizes) {
    TL_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             split_sizes);
    too_large = too_large || s > size - total;
    if (!too_large) total += s;
  }
  TL_CHECK(!too_large && total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
           " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> result;
  result.reserve(split_sizes.size());
  int64_t begin = 0;
  for (int64_t s : split_sizes) {
    result.push_back(piece(self, d, begin, s));
    begin += s;
  }
  return result;
}

}  // namespace tl::native
