// Elementwise ops with several outputs, written in one pass with cpu_kernel_multiple_outputs.
#include <cmath>
#include <tuple>

#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Distributions.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/clone.h"
#include "generated/ops/fill.h"
#include "generated/ops/frexp.h"
#include "generated/ops/native_dropout.h"

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

// The mask is drawn first, as PyTorch's bernoulli_(1 - p) on a fresh bool tensor (one float64
// uniform per element, in memory order: the same stream as PyTorch's), then output and mask are
// combined in one pass over input.
std::tuple<Tensor, Tensor> native_dropout_kernel(const Tensor& input, double p, std::optional<bool> train) {
  // PyTorch quirk kept: an empty input gives two empty tensors of input's dtype.
  if (input.numel() == 0) {
    return {empty_like_preserve(input, input.dtype(), input.device()),
            empty_like_preserve(input, input.dtype(), input.device())};
  }
  if (!train.value_or(true)) {
    Tensor mask = empty_like_preserve(input, ScalarType::Bool, input.device());
    if (!mask.is_meta()) fill_(mask, true);
    return {clone(input), mask};
  }
  // PyTorch draws the mask with bernoulli_(1 - p) and reports that probability (training only).
  TL_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  TL_CHECK(is_floating_type(input.dtype()), "result type Float can't be cast to the desired output type ",
           legacy_type_name(input.dtype()));
  // The mask takes input's layout (dense, so its memory is numel() bools), drawn in memory order.
  Tensor mask = empty_like_preserve(input, ScalarType::Bool, input.device());
  Tensor output = empty_like_preserve(input, input.dtype(), input.device());
  if (input.is_meta()) return {output, mask};
  {
    CPUGenerator& g = default_cpu_generator();
    auto guard = g.lock();
    bool* m = mask.data_ptr<bool>();
    for (int64_t k = 0, n = mask.numel(); k < n; ++k) m[k] = dist::bernoulli(g, 1.0 - p) != 0;
  }
  auto iter = TensorIteratorConfig()
                  .set_op_name("native_dropout")
                  .add_output(output)
                  .add_input_keep_dtype(mask)
                  .add_input(input)
                  .cast_common_dtype_to_outputs(false)
                  .enforce_safe_casting_to_output(false)
                  .build();
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  TL_DISPATCH_FLOAT(input.dtype(), "native_dropout", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t s = static_cast<acc_t>(scale);
    // x * mask * scale as PyTorch computes it: a dropped inf or nan gives nan, a dropped -x gives -0.
    cpu_kernel(iter, [s](bool keep, scalar_t x) -> scalar_t {
      return static_cast<scalar_t>(static_cast<acc_t>(x) * acc_t(keep) * s);
    });
  });
  return {output, mask};
}

}  // namespace tl::native
