#include "aten/native/OutputUtils.h"

#include "aten/core/Exception.h"
#include "aten/native/Resize.h"
#include "generated/ops/copy.h"

namespace tl::native {

void prepare_output(Tensor& out, const OutputSpec& spec) {
  if (!out.defined()) {
    out = empty_tensor(spec.shape, spec.dtype, spec.device);
    return;
  }
  TL_CHECK(out.device().type == spec.device.type, spec.op, ": Expected out tensor to be on device ",
           spec.device.str(), ", but got ", out.device().str());
  switch (spec.rule) {
    case OutDtype::Exact:
      TL_CHECK(out.dtype() == spec.dtype, spec.op, ": Expected out tensor to have dtype ",
               scalar_type_name(spec.dtype), ", but got ", scalar_type_name(out.dtype()), " instead");
      break;
    case OutDtype::CanCast:
      TL_CHECK(can_cast(spec.dtype, out.dtype()), spec.op, ": result type ", scalar_type_name(spec.dtype),
               " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
      break;
    case OutDtype::Any:
      break;
  }
  if (spec.self && out.is_same(*spec.self)) {
    TL_CHECK(out.sizes() == spec.shape, spec.op, ": output with shape ", out.sizes(),
             " doesn't match the broadcast shape ", spec.shape);
    return;
  }
  resize_output(out, spec.shape, spec.op);
}

bool writes_directly(const Tensor& out, ScalarType dtype, const Tensor& input) {
  return out.dtype() == dtype && out.is_contiguous() && !(input.defined() && out.storage() == input.storage());
}

Tensor output_buffer(const Tensor& out, ScalarType dtype, const Tensor& input) {
  if (writes_directly(out, dtype, input)) return out;
  return empty_tensor(out.sizes(), dtype, out.device());
}

void commit_output(const Tensor& out, const Tensor& buffer) {
  if (buffer.is_same(out) || out.numel() == 0) return;
  tl::copy_(out, buffer, false);
}

}  // namespace tl::native
