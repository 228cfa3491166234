#include "aten/autograd/FunctionsManualUnary.h"

#include <cmath>

#include "generated/ops/abs.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/cos.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/lt.h"
#include "generated/ops/mul.h"
#include "generated/ops/sin.h"
#include "generated/ops/sub.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {

Tensor sinc_backward(const Tensor& grad, const Tensor& self) {
  const double pi = 3.14159265358979323846;
  const Tensor self_pi = mul(self, pi);
  const Tensor self_squared_pi = mul(mul(self, self), pi);
  const Tensor num = sub(mul(self_pi, cos(self_pi)), sin(self_pi));
  // complex: grad times the conjugate of the derivative (PyTorch's convention).
  const Tensor out = is_complex_type(self.scalar_type()) ? div(mul(grad, conj_physical(num)), conj_physical(self_squared_pi))
                                       : div(mul(grad, num), self_squared_pi);
  return where(eq(self_squared_pi, 0.0), zeros_like(out), out);
}

Tensor nan_to_num_backward(const Tensor& grad, const Tensor& self) {
  // |x| < inf is false for inf and nan alike.
  return mul(grad, lt(abs(self), INFINITY));
}

}  // namespace tl::autograd::generated
