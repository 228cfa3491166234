// Elementwise ops with several outputs, written in one pass with cpu_kernel_multiple_outputs.
#include <cmath>
#include <tuple>

#include "aten/core/Exception.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/frexp.h"

namespace tl::native {

// mantissa has self's dtype and exponent int32 (PyTorch's rules, out= included). Outputs are
// allocated with self's layout; the iterator then sees each output's own dtype.
void frexp_kernel(const Tensor& self, Tensor& mantissa, Tensor& exponent) {
  TL_CHECK(is_floating_type(self.dtype()), "frexp(): only supports floating-point dtypes");
  TL_CHECK(!mantissa.defined() || mantissa.dtype() == self.dtype(), "frexp(): expects mantissa to have dtype ",
           scalar_type_name(self.dtype()), " but got ", scalar_type_name(mantissa.dtype()));
  TL_CHECK(!exponent.defined() || exponent.dtype() == ScalarType::Int32,
           "frexp(): expects exponent to have int dtype but got ", scalar_type_name(exponent.dtype()));
  if (!mantissa.defined()) mantissa = empty_like_preserve(self, self.dtype(), self.device());
  if (!exponent.defined()) exponent = empty_like_preserve(self, ScalarType::Int32, self.device());
  auto iter = TensorIteratorConfig()
                  .set_op_name("frexp")
                  .add_output(mantissa)
                  .add_output(exponent)
                  .add_input(self)
                  .cast_common_dtype_to_outputs(false)
                  .enforce_safe_casting_to_output(false)
                  .build();
  TL_DISPATCH_FLOAT(self.dtype(), "frexp", [&] {
    cpu_kernel_multiple_outputs(iter, [](scalar_t x) -> std::tuple<scalar_t, int32_t> {
      int e = 0;
      const auto m = std::frexp(static_cast<opmath_t<scalar_t>>(x), &e);
      return {static_cast<scalar_t>(m), static_cast<int32_t>(e)};
    });
  });
}

}  // namespace tl::native
