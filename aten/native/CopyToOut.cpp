// copy_to_out: how the out= variants of composite ops write their result (see OpSupport.h).
#include "aten/core/OpSupport.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/Resize.h"
#include "generated/ops/copy.h"

namespace tl {

const Tensor& copy_to_out(const Tensor& out, const Tensor& result, const char* op, native::OutDtype rule) {
  using native::OutDtype;
  TL_CHECK(rule != OutDtype::Exact || out.dtype() == result.dtype(), op, ": Expected out tensor to have dtype ",
           scalar_type_name(result.dtype()), ", but got ", scalar_type_name(out.dtype()), " instead");
  TL_CHECK(rule == OutDtype::Any || can_cast(result.dtype(), out.dtype()), op, ": result type ",
           scalar_type_name(result.dtype()), " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  native::resize_output(out, result.sizes(), op);
  return copy_(out, result);
}

}  // namespace tl
