#include "aten/core/OpSupport.h"

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"

#include <string_view>

namespace tl {

namespace {
const Tensor* ptr(const Tensor* t) { return t; }
const Tensor* ptr(const Tensor& t) { return &t; }

template <typename It>
Device common_device(const char* op, It begin, It end, Device fallback) {
  const Tensor* first = nullptr;
  for (It it = begin; it != end; ++it) {
    const Tensor* t = ptr(*it);
    if (!t || !t->defined()) continue;
    if (!first) {
      first = t;
      continue;
    }
    if (t->device().type != first->device().type) {
      // A wrapped Python number follows the device of the other operands.
      if (t->impl()->is_wrapped_number()) continue;
      if (first->impl()->is_wrapped_number()) {
        first = t;
        continue;
      }
      throw RuntimeError(str(op, ": expected all tensors to be on the same device, but found at least two devices, ",
                             first->device().str(), " and ", t->device().str(), "!"));
    }
  }
  return first ? first->device() : fallback;
}
}  // namespace

Device dispatch_device(const char* op, std::initializer_list<const Tensor*> tensors, Device fallback) {
  set_current_op(op);
  return common_device(op, tensors.begin(), tensors.end(), fallback);
}

Device dispatch_device(const char* op, TensorList tensors, Device fallback) {
  set_current_op(op);
  return common_device(op, tensors.begin(), tensors.end(), fallback);
}

void no_kernel_error(const char* op, Device device) {
  throw NotImplementedError(str("Could not run '", op, "' with arguments from the '", device.str(),
                                "' backend: the op has no kernel for this device."));
}

void check_out_no_grad(const char* op, std::initializer_list<const Tensor*> inputs,
                       std::initializer_list<const Tensor*> outputs, std::initializer_list<TensorList> lists) {
  if (!autograd::GradMode::is_enabled()) return;
  auto requires_grad = [](const Tensor* t) { return t && t->defined() && t->requires_grad(); };
  bool any = false;
  for (const Tensor* t : inputs) any = any || requires_grad(t);
  for (const Tensor* t : outputs) any = any || requires_grad(t);
  for (TensorList list : lists) {
    for (const Tensor& t : list) any = any || requires_grad(&t);
  }
  if (!any) return;
  // PyTorch names the op without its overload: "add()", not "add.out()".
  const std::string_view name(op);
  throw RuntimeError(str(name.substr(0, name.find('.')),
                         "(): functions with out=... arguments don't support automatic differentiation, but one of "
                         "the arguments requires grad."));
}

void check_factory_out(const Tensor& out, std::optional<ScalarType> dtype, std::optional<Device> device) {
  TL_CHECK(!dtype || *dtype == out.dtype(), "dtype ", legacy_type_name(*dtype),
           " does not match dtype of out parameter (", legacy_type_name(out.dtype()), ")");
  TL_CHECK(!device || device->type == out.device().type, "device type ", device->str(),
           " does not match device type of out parameter (", out.device().str(), ")");
}

}  // namespace tl
