// where(condition, self, other): elements of self where condition is true, of other elsewhere.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {

void where_kernel(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  const ScalarType cond_t = condition.dtype();
  // PyTorch still accepts uint8 conditions (with a deprecation warning); so do we.
  TL_CHECK(cond_t == ScalarType::Bool || cond_t == ScalarType::UInt8,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ", legacy_type_name(cond_t));
  const ScalarType common = result_type(self, other);
  TL_CHECK(!out.defined() || out.dtype() == common, "where: Expected out type to be ", legacy_type_name(common),
           " but got ", legacy_type_name(out.dtype()));
  auto iter = TensorIteratorConfig()
                  .set_op_name("where")
                  .add_output(out)
                  .add_input_keep_dtype(condition)
                  .add_input(self)
                  .add_input(other)
                  .declare_static_common_dtype(common)
                  .build();
  TL_DISPATCH_EVERY_DTYPE(common, "where", [&] {
    if (cond_t == ScalarType::Bool) {
      cpu_kernel(iter, [](bool c, scalar_t a, scalar_t b) -> scalar_t { return c ? a : b; });
    } else {
      cpu_kernel(iter, [](uint8_t c, scalar_t a, scalar_t b) -> scalar_t { return c != 0 ? a : b; });
    }
  });
}

}  // namespace tl::native
