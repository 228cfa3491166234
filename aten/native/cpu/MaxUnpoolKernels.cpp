// max_unpool2d/3d: each input element written at its max-pool index into a zeroed output plane (the
// last write wins where indices repeat, as PyTorch's serial per-plane loop). max_unpool3d's stride and
// padding are only checked, as PyTorch's.
#include "aten/native/DimEngine.h"
#include "aten/native/cpu/PoolingShape.h"
#include "generated/ops/max_unpool2d.h"
#include "generated/ops/max_unpool3d.h"

namespace tl::native {

using namespace pooling;

namespace {

void max_unpool_nd(const Tensor& self, const Tensor& indices, IntArrayRef output_size, int n, const char* op,
                   Tensor& out) {
  const int64_t nd = self.dim();
  for (int64_t i = 1; i < nd; ++i)
    TL_CHECK(self.sizes()[i] > 0, op, ": Expected input to have non-zero size for non-batch dimensions, but got ",
             self.sizes(), " with dimension ", i, " being empty.");
  for (int64_t s : output_size)
    TL_CHECK(s >= 0, op, ": output_size must contain non-negative spatial dimensions, but got ", output_size);
  Dims3 o{1, 1, 1};
  for (int i = 0; i < n; ++i) o[3 - n + i] = output_size[i];
  const DimVector shape = pooled_shape(self, n, o);
  prepare_output(out, shape, self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  Tensor ob = write_buffer(out, self);
  scatter_planes(contiguous_of(self), contiguous_of(indices), ob, planes_of(self, n).planes, o[0] * o[1] * o[2], false,
                 op);
  commit(out, ob);
}

void check_unpool_common(const Tensor& self, const Tensor& indices, int n, const char* op) {
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": elements in indices should be type int64 but got: ",
           scalar_type_name(indices.dtype()));
  TL_CHECK(self.dim() == n + 1 || self.dim() == n + 2, op, ": Input to ", op, " should be a ", n + 1, "d or ", n + 2,
           "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TL_CHECK(self.sizes() == indices.sizes(), op,
           ": Expected shape of indices to be same as that of the input tensor (", self.sizes(),
           ") but got indices tensor with shape: ", indices.sizes());
}

}  // namespace

void max_unpool2d_kernel(const Tensor& self, const Tensor& indices, IntArrayRef output_size, Tensor& out) {
  const char* op = "max_unpool2d";
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": elements in indices should be type int64 but got: ",
           scalar_type_name(indices.dtype()));
  TL_CHECK(output_size.size() == 2, op,
           ": There should be exactly two elements (height, width) in output_size, but got ", output_size.size(),
           " elements.");
  check_unpool_common(self, indices, 2, op);
  max_unpool_nd(self, indices, output_size, 2, op, out);
}

void max_unpool3d_kernel(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                         IntArrayRef padding, Tensor& out) {
  const char* op = "max_unpool3d";
  check_unpool_common(self, indices, 3, op);
  TL_CHECK(output_size.size() == 3, op,
           ": There should be exactly three elements (depth, height, width) in output_size, but got ",
           output_size.size(), " elements.");
  TL_CHECK(stride.size() == 3, op, ": There should be exactly three elements (depth, height, width) in stride, but got: ",
           stride.size(), " elements.");
  TL_CHECK(padding.size() == 3, op,
           ": There should be exactly three elements (depth, height, width) in padding, but got: ", padding.size(),
           " elements.");
  for (int64_t s : stride) TL_CHECK(s > 0, op, ": strides should be greater than zero, but got stride: ", stride);
  max_unpool_nd(self, indices, output_size, 3, op, out);
}

}  // namespace tl::native
