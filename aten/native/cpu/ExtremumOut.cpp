// max.unary_out / min.unary_out: the largest / smallest element of a tensor written into `out`.
// Unlike max()/min(), which refuse an empty tensor, PyTorch's out= forms reduce it to the
// reduction's identity (-inf / +inf, or the dtype's lowest / highest value).
#include <cmath>
#include <limits>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "generated/ops/max.h"
#include "generated/ops/min.h"

namespace tl::native {

namespace {

template <typename T>
T identity(bool largest) {
  if constexpr (std::is_same_v<T, bool>) {
    return !largest;
  } else if constexpr (std::is_integral_v<T>) {
    return largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  } else {
    return static_cast<T>(largest ? -INFINITY : INFINITY);
  }
}

const Tensor& extremum_out(const Tensor& self, const Tensor& out, bool largest, const char* op) {
  TL_CHECK(self.device() == out.device(), op, "(): expected out on device ", self.device().str(), ", but got ",
           out.device().str());
  TL_CHECK(can_cast(self.dtype(), out.dtype()), op, "(): result type ", scalar_type_name(self.dtype()),
           " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  resize_output(out, {}, op);
  if (self.is_meta()) return out;
  Tensor value;
  if (self.numel() == 0) {
    value = empty_tensor({}, self.dtype(), self.device());
    TL_DISPATCH_ALL(self.dtype(), op, [&] { *value.data_ptr<scalar_t>() = identity<scalar_t>(largest); });
  } else {
    value = largest ? max(self) : min(self);
  }
  // PyTorch fills `out` with the value as a checked conversion: an integer out refuses a value it
  // cannot hold (255 into int8), a floating one takes it rounded (to +-inf past its range).
  if (is_floating_type(out.dtype())) return copy_(out, value, false);
  return fill_(out, tensor_item(value));
}

}  // namespace

const Tensor& max_unary_out_kernel(const Tensor& self, const Tensor& out) {
  return extremum_out(self, out, true, "max");
}

const Tensor& min_unary_out_kernel(const Tensor& self, const Tensor& out) {
  return extremum_out(self, out, false, "min");
}

}  // namespace tl::native
