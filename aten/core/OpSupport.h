// What the generated op headers (generated/ops/*.h) need: the value types of the C++ API.
#pragma once
#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Device.h"
#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl {

// The device whose kernel runs an op: that of its tensor arguments, which must agree
// (0-d CPU tensors made from Python numbers may join tensors of any device), else `fallback`.
// Null pointers (absent optional tensors) are skipped.
Device dispatch_device(const char* op, std::initializer_list<const Tensor*> tensors,
                       Device fallback = Device(DeviceType::CPU));
Device dispatch_device(const char* op, TensorList tensors, Device fallback = Device(DeviceType::CPU));

// Raised when an op has no kernel for a device.
[[noreturn]] void no_kernel_error(const char* op, Device device);

// out= variants do not record autograd history: PyTorch's rule, checked before running them. In
// grad mode no input and no output may require grad ("add(): functions with out=... arguments
// don't support automatic differentiation, but one of the arguments requires grad."). `lists`
// holds the op's Tensor[] arguments, whose elements count as inputs.
void check_out_no_grad(const char* op, std::initializer_list<const Tensor*> inputs,
                       std::initializer_list<const Tensor*> outputs = {},
                       std::initializer_list<TensorList> lists = {});

// The out= variant of a factory (zeros, arange, ...): an explicit dtype or device must be out's
// ("dtype Bool does not match dtype of out parameter (Double)", PyTorch's check and wording).
void check_factory_out(const Tensor& out, std::optional<ScalarType> dtype, std::optional<Device> device);

inline int device_index(Device d) { return static_cast<int>(d.type); }
inline const Tensor* opt_ptr(const std::optional<Tensor>& t) { return t ? &*t : nullptr; }

namespace native { enum class OutDtype; }  // aten/native/OutputUtils.h
// Writes `result` into the out= tensor `out`, resized to fit, its dtype checked by `rule` (the
// entry's `out_dtype:`; PyTorch's usual rule, can_cast, by default). Used by the out= variants the
// generator derives for composite ops.
const Tensor& copy_to_out(const Tensor& out, const Tensor& result, const char* op, native::OutDtype rule);

}  // namespace tl
