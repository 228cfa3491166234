// Tensor.view(dtype): the same memory read as another element type. Pure metadata (CPU and Meta alike);
// the checks and their order and messages are PyTorch's view_dtype. The result is never differentiable
// (no autograd view base, like detach): bits reinterpreted have no derivative.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor view_dtype_kernel(const Tensor& self, ScalarType dtype) {
  TL_CHECK(!self.is_conj(),
           "torch.Tensor.view is not supported for conjugate view tensors when converting to a different dtype.");
  TL_CHECK(!self.is_neg(),
           "torch.Tensor.view is not supported for tensors with negative bit set when converting to a different "
           "dtype.");
  const int64_t old_size = static_cast<int64_t>(element_size(self.dtype()));
  const int64_t new_size = static_cast<int64_t>(element_size(dtype));
  const char* from = legacy_type_name(self.dtype());
  const char* to = legacy_type_name(dtype);
  // torchlite's bool kernels read a bool byte as a C++ bool (0 or 1); PyTorch's read any nonzero byte as True.
  // Other bytes seen as bool would give wrong results (0x80 summed as 128) and undefined behaviour (found by the
  // sanitized fuzzer), so viewing another dtype as bool is refused (PyTorch accepts it; docs/catalog10.md).
  TL_CHECK(dtype != ScalarType::Bool || self.dtype() == ScalarType::Bool, "view(dtype): viewing a ", from,
           " tensor as bool is not supported by torchlite (its bytes may hold values other than 0 and 1, which "
           "torchlite's bool kernels do not read as PyTorch does); use x != 0 or x.to(torch.bool)");
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset();
  const int64_t nd = self.dim();
  if (old_size != new_size) {
    TL_CHECK(nd > 0, "self.dim() cannot be 0 to view ", from, " as ", to, " (different element sizes)");
    if (old_size > new_size) {  // each element becomes `ratio` narrower ones along the last dimension
      const int64_t ratio = old_size / new_size;
      TL_CHECK(strides[nd - 1] == 1, "self.stride(-1) must be 1 to view ", from, " as ", to,
               " (different element sizes), but got ", strides[nd - 1]);
      for (int64_t d = 0; d < nd - 1; ++d) strides[d] *= ratio;
      sizes[nd - 1] *= ratio;
      offset *= ratio;
    } else {  // `ratio` consecutive elements of the last dimension become one
      const int64_t ratio = new_size / old_size;
      TL_CHECK(sizes[nd - 1] % ratio == 0, "self.size(-1) must be divisible by ", ratio, " to view ", from, " as ",
               to, " (different element sizes), but got ", sizes[nd - 1]);
      TL_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, " to view ", from, " as ",
               to, " (different element sizes), but got ", offset);
      TL_CHECK(strides[nd - 1] == 1, "self.stride(-1) must be 1 to view ", from, " as ", to,
               " (different element sizes), but got ", strides[nd - 1]);
      for (int64_t d = 0; d < nd - 1; ++d) {
        TL_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, " to view ", from,
                 " as ", to, " (different element sizes), but got ", strides[d]);
        strides[d] /= ratio;
      }
      sizes[nd - 1] /= ratio;
      offset /= ratio;
    }
  }
  Tensor v = make_view(self, sizes, strides, offset);
  v.impl()->set_view_base(intrusive_ptr<TensorImpl>());
  v.impl()->set_dtype(dtype);
  return v;
}

}  // namespace tl::native
