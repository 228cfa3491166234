// Ops built on pow: float_power (pow computed in float64) and ldexp (self * 2 ** other).
// They reuse the pow and mul kernels on converted inputs rather than a loop of their own.
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"

namespace tl::native {
namespace {

// float_power's result is always float64: an in-place base or an out= tensor of another dtype is
// refused (pow would cast), with PyTorch's messages.
void check_float_power_out(const Tensor& out, const Tensor* self) {
  if (!out.defined() || out.dtype() == ScalarType::Float64) return;
  if (self && out.is_same(*self)) {
    throw RuntimeError(str("float_power_: the base given to float_power_ has dtype ", scalar_type_name(out.dtype()),
                           " but the operation's result requires dtype Double"));
  }
  throw RuntimeError(str("float_power: the output given to float_power has dtype ", scalar_type_name(out.dtype()),
                         " but the operation's result requires dtype Double"));
}

// The input as float64, without recording history (the caller's autograd node covers the op).
Tensor as_double(const Tensor& t) {
  if (t.dtype() == ScalarType::Float64) return t;
  autograd::NoGradGuard no_grad;
  return tl::_to_copy(t, ScalarType::Float64);
}

}  // namespace

void float_power_kernel(const Tensor& self, const Tensor& exponent, Tensor& out) {
  check_float_power_out(out, &self);
  pow_kernel(as_double(self), as_double(exponent), out);
}

void float_power_tensor_scalar_kernel(const Tensor& self, const Scalar& exponent, Tensor& out) {
  check_float_power_out(out, &self);
  pow_tensor_scalar_kernel(as_double(self), Scalar(exponent.to_double()), out);
}

void float_power_scalar_kernel(const Scalar& self, const Tensor& exponent, Tensor& out) {
  check_float_power_out(out, nullptr);
  pow_scalar_kernel(Scalar(self.to_double()), as_double(exponent), out);
}

// self * 2 ** other, the two steps PyTorch takes (so results and dtypes are the same).
void ldexp_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  Tensor scale;
  pow_scalar_kernel(Scalar(2.0), other, scale);
  mul_kernel(self, scale, out);
}

}  // namespace tl::native
