// Sign-related unary ops: sgn (sign for real dtypes), signbit (bool result) and angle
// (0 or pi for real inputs; integer and bool inputs give the default float dtype).
#include <cmath>

#include "aten/native/cpu/ComplexKernels.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/UnaryIterators.h"
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathLoops.h"

namespace tl::native {

namespace {

template <typename scalar_t>
void sgn_loop(TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool a) -> bool { return a; });
  } else if constexpr (std::is_unsigned_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return static_cast<scalar_t>(a > 0); });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return static_cast<scalar_t>((a > 0) - (a < 0)); });
  } else {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t {
      const opmath x = to_opmath(a);
      return from_opmath<scalar_t>(static_cast<opmath>(opmath(0) < x) - static_cast<opmath>(x < opmath(0)));
    });
  }
}

template <typename scalar_t>
void signbit_loop(TensorIterator& iter) {
  if constexpr (std::is_same_v<scalar_t, bool> || std::is_unsigned_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t) -> bool { return false; });
  } else if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> bool { return a < 0; });
  } else if constexpr (is_reduced_float_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> bool { return (a.x & 0x8000u) != 0; });
  } else if constexpr (std::is_same_v<scalar_t, float>) {
    cpu_kernel(iter, [](float a) -> bool { return (vec::float_to_bits(a) >> 31) != 0; });
  } else {
    cpu_kernel(iter, [](double a) -> bool { return (vec::double_to_bits(a) >> 63) != 0; });
  }
}

}  // namespace

// sgn of a real number is its sign: -1, 0 or 1 (nan -> 0, -0.0 -> 0.0, like PyTorch's
// vectorized sign); bool stays itself.
void sgn_kernel(const Tensor& self, Tensor& out) {
  if (is_complex_type(self.dtype())) return complex_sgn_kernel(self, out);
  auto iter = same_dtype_unary_iter(out, self, "sgn");
  TL_DISPATCH_ALL(iter.common_dtype(), "sgn", [&] { sgn_loop<scalar_t>(iter); });
}

// The sign bit: true for -0.0 and for nans with the sign bit set; false for every unsigned and
// bool value.
void signbit_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(!out.defined() || out.scalar_type() == ScalarType::Bool, "signbit: signbit does not support non-boolean outputs.");
  auto iter = TensorIteratorConfig()
                  .set_op_name("signbit")
                  .add_output(out)
                  .add_input(self)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)
                  .build();
  TL_DISPATCH_ALL_AND_UNSIGNED(self.scalar_type(), "signbit", [&] { signbit_loop<scalar_t>(iter); });
}

// angle of a real number: pi for negative values (-inf included), 0 otherwise (-0.0 too), nan
// for nan. pi is rounded to the result dtype, as PyTorch's c10::pi<scalar_t>.
void angle_kernel(const Tensor& self, Tensor& out) {
  if (is_complex_type(self.dtype())) return complex_angle_kernel(self, out);
  auto iter = float_unary_iter(out, self, "angle");
  TL_DISPATCH_FLOAT(iter.common_dtype(), "angle", [&] {
    const double pi = static_cast<double>(to_opmath(from_opmath<scalar_t>(3.14159265358979323846)));
    math_kernel<scalar_t>(iter, [pi](double x) TL_MATH_INLINE {
      return vec::dsel(vec::disnan(x), x, vec::dsel(x < 0.0, pi, 0.0));
    });
  });
}

}  // namespace tl::native
