// In-place view ops (squeeze_, unsqueeze_, t_, transpose_, as_strided_): self takes the geometry its view op
// would give, sharing the same checks; only sizes and strides change, never the data. Autograd
// records them as views (tag inplace_view), so the same code serves CPU and Meta tensors.
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/t.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {
namespace {

const Tensor& take_geometry(const Tensor& self, const Tensor& view) {
  self.impl()->set_sizes_and_strides(view.sizes(), view.strides(), view.storage_offset());
  return self;
}

}  // namespace

const Tensor& squeeze__kernel(const Tensor& self) { return take_geometry(self, squeeze_kernel(self)); }

const Tensor& squeeze__dim_kernel(const Tensor& self, int64_t dim) {
  return take_geometry(self, squeeze_dim_kernel(self, dim));
}

const Tensor& squeeze__dims_kernel(const Tensor& self, IntArrayRef dim) {
  return take_geometry(self, squeeze_dims_kernel(self, dim));
}

const Tensor& unsqueeze__kernel(const Tensor& self, int64_t dim) {
  return take_geometry(self, unsqueeze_kernel(self, dim));
}

const Tensor& t__kernel(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return take_geometry(self, t_kernel(self));
}

const Tensor& transpose__kernel(const Tensor& self, int64_t dim0, int64_t dim1) {
  return take_geometry(self, transpose_kernel(self, dim0, dim1));
}

// as_strided's checks (sizes against the whole storage, from the offset given or self's own).
const Tensor& as_strided__kernel(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                                 std::optional<int64_t> storage_offset) {
  return take_geometry(self, as_strided_kernel(self, size, stride, storage_offset));
}

}  // namespace tl::native
