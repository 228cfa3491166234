// _clone_contiguous: the row-major copy behind contiguous() (clone keeps the input's layout).
#include "generated/ops/_clone_contiguous.h"
#include "generated/ops/copy.h"

namespace tl::native {

Tensor clone_contiguous_kernel(const Tensor& self) {
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  copy_kernel(out, self, /*non_blocking=*/false);
  return out;
}

}  // namespace tl::native
