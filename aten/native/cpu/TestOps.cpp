// Kernels of the `_test_*` ops (tag test_op in native_functions.yaml): tiny ops that exercise
// schema types no real op uses yet (named returns with out=, bool[N], Tensor?, grad_input_mask).
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "generated/ops/_test_mul_add.h"
#include "generated/ops/_test_mul_backward.h"
#include "generated/ops/_test_scale_optional.h"
#include "generated/ops/add.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/mul.h"

namespace tl::native {
namespace {

// out= semantics for one output: take `value`, or write it into the given tensor.
void assign_output(Tensor& out, const Tensor& value, const char* op) {
  if (!out.defined()) {
    out = value;
    return;
  }
  TL_CHECK(can_cast(value.dtype(), out.dtype()), op, ": result type ", legacy_type_name(value.dtype()),
           " can't be cast to the desired output type ", legacy_type_name(out.dtype()));
  resize_output(out, value.sizes(), op);
  copy_kernel(out, value, false);
}

}  // namespace

void _test_mul_add_kernel(const Tensor& self, const Tensor& other, Tensor& product, Tensor& total) {
  assign_output(product, tl::mul(self, other), "_test_mul_add");
  assign_output(total, tl::add(self, other), "_test_mul_add");
}

std::tuple<Tensor, Tensor> _test_mul_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& other,
                                                     std::array<bool, 2> output_mask) {
  return {output_mask[0] ? tl::mul(grad_output, other) : Tensor(),
          output_mask[1] ? tl::mul(grad_output, self) : Tensor()};
}

Tensor _test_scale_optional_kernel(const Tensor& self, const std::optional<Tensor>& weight) {
  return weight ? tl::mul(self, *weight) : tl::clone(self);
}

}  // namespace tl::native
