// Elementwise ops with several outputs, written in one pass with cpu_kernel_multiple_outputs.
#include <cmath>
#include <tuple>

#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/native/TensorIterator.h"
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

// Output and bool mask in one pass over input. Element k of the mask (k = its position in the
// fresh mask's memory) draws word k % 4 of Philox block `first + k / 4`, so the result depends on
// the seed and the call sequence only, never on the number of threads. The element needs its
// position, which cpu_kernel_multiple_outputs' element function does not see, so the loop is its
// strided loop written out, deriving k from the mask pointer.
std::tuple<Tensor, Tensor> native_dropout_kernel(const Tensor& input, double p, std::optional<bool> train) {
  // PyTorch quirk kept: an empty input gives two empty tensors of input's dtype.
  if (input.numel() == 0) {
    return {empty_like_preserve(input, input.dtype(), input.device()),
            empty_like_preserve(input, input.dtype(), input.device())};
  }
  Tensor mask = empty_like_preserve(input, ScalarType::Bool, input.device());
  if (!train.value_or(true)) {
    if (!mask.is_meta()) fill_(mask, true);
    return {clone(input), mask};
  }
  // PyTorch draws the mask with bernoulli_(1 - p) and reports that probability (training only).
  TL_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  TL_CHECK(is_floating_type(input.dtype()), "result type Float can't be cast to the desired output type ",
           legacy_type_name(input.dtype()));
  Tensor output = empty_like_preserve(input, input.dtype(), input.device());
  if (input.is_meta()) return {output, mask};
  auto iter = TensorIteratorConfig()
                  .set_op_name("native_dropout")
                  .add_output(output)
                  .add_output(mask)
                  .add_input(input)
                  .cast_common_dtype_to_outputs(false)
                  .enforce_safe_casting_to_output(false)
                  .build();
  // Kept when the 32-bit word is below (1 - p) * 2^32: all for p = 0, none for p = 1.
  const uint64_t threshold = static_cast<uint64_t>((1.0 - p) * 4294967296.0);
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  auto [key, first] = default_cpu_generator().reserve(static_cast<uint64_t>((input.numel() + 3) / 4));
  const bool* mask_base = mask.data_ptr<bool>();
  TL_DISPATCH_FLOAT(input.dtype(), "native_dropout", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t s = static_cast<acc_t>(scale);
    iter.for_each([&, key = key, first = first](char** data, const int64_t* strides, int64_t n) {
      uint64_t block = UINT64_MAX;
      std::array<uint32_t, 4> words{};
      for (int64_t i = 0; i < n; ++i) {
        bool* m = reinterpret_cast<bool*>(data[1] + i * strides[1]);
        const auto k = static_cast<uint64_t>(m - mask_base);
        if (k / 4 != block) {
          block = k / 4;
          words = philox4x32(key, first + block);
        }
        const bool keep = words[k % 4] < threshold;
        const acc_t x = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[2] + i * strides[2]));
        // x * mask * scale as PyTorch computes it: a dropped inf or nan gives nan, a dropped -x gives -0.
        *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = static_cast<scalar_t>(x * acc_t(keep) * s);
        *m = keep;
      }
    });
  });
  return {output, mask};
}

}  // namespace tl::native
