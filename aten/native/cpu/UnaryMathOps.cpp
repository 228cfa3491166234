// Floating unary ops outside the transcendental family: sinc, deg2rad, rad2deg (integer and
// bool inputs give the default float dtype; sinc also takes complex) and nan_to_num (keeps the
// dtype; complex: each part).
#include <cmath>
#include <limits>
#include <optional>

#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/UnaryIterators.h"
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathLoops.h"
#include "aten/native/cpu/VecMathTrig.h"

namespace tl::native {
namespace {

constexpr double kPi = 3.14159265358979323846;

// sin(p) / p with sinc(0) = 1, in double on the vectorized sin.
TL_ALWAYS_INLINE double sin_over(double p) {
  return vec::dsel(p == 0.0, 1.0, vec::sin_f64(p) / vec::dsel(p == 0.0, 1.0, p));
}

// out = self * factor, computed in the opmath type with the factor rounded to it (PyTorch's
// deg2rad/rad2deg are a multiplication by the constant).
void scale_kernel(const Tensor& self, Tensor& out, const char* op, double factor) {
  auto iter = float_unary_iter(out, self, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    using opmath = opmath_t<scalar_t>;
    const opmath f = static_cast<opmath>(factor);
    cpu_kernel(iter, [f](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(to_opmath(a) * f); });
  });
}

// nan_to_num over one dtype; nan, posinf and neginf are the replacement values before rounding.
template <typename scalar_t>
void nan_to_num_loop(TensorIterator& iter, std::optional<double> nan, std::optional<double> posinf,
                     std::optional<double> neginf) {
  if constexpr (is_complex_v<scalar_t>) {  // the real and imaginary parts each, as PyTorch
    using T = typename scalar_t::value_type;
    const T largest = std::numeric_limits<T>::max();
    const T nan_v = static_cast<T>(nan.value_or(0.0));
    const T pos_v = static_cast<T>(posinf.value_or(largest));
    const T neg_v = static_cast<T>(neginf.value_or(-largest));
    const auto fix = [nan_v, pos_v, neg_v](T x) {
      const T inf = std::numeric_limits<T>::infinity();
      return x != x ? nan_v : x == inf ? pos_v : x == -inf ? neg_v : x;
    };
    cpu_kernel(iter, [fix](scalar_t a) -> scalar_t { return scalar_t(fix(a.real()), fix(a.imag())); });
  } else if constexpr (!std::is_floating_point_v<opmath_t<scalar_t>>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; });
  } else {
    using opmath = opmath_t<scalar_t>;
    const auto to_dtype = [](double v) { return to_opmath(from_opmath<scalar_t>(v)); };
    const double largest = std::is_same_v<scalar_t, Half>       ? 65504.0
                           : std::is_same_v<scalar_t, BFloat16> ? 3.3895313892515355e38
                                                                : static_cast<double>(std::numeric_limits<opmath>::max());
    const opmath nan_v = to_dtype(nan.value_or(0.0));
    const opmath pos_v = to_dtype(posinf.value_or(largest));
    const opmath neg_v = to_dtype(neginf.value_or(-largest));
    cpu_kernel(iter, [nan_v, pos_v, neg_v](scalar_t a) -> scalar_t {
      const opmath x = to_opmath(a);
      const opmath inf = std::numeric_limits<opmath>::infinity();
      opmath r = x != x ? nan_v : x;
      r = x == inf ? pos_v : r;
      r = x == -inf ? neg_v : r;
      return from_opmath<scalar_t>(r);
    });
  }
}

}  // namespace

// sin(pi x) / (pi x). As in PyTorch, float32/float16/bfloat16 inputs form pi x in float (so
// sinc of a large or integer x matches its rounding of pi x); sin and the quotient are then
// computed in double and rounded once. Inputs where pi x leaves sin's fast range (or is not
// finite) go to libm.
void sinc_kernel(const Tensor& self, Tensor& out) {
  auto iter = float_unary_iter(out, self, "sinc");
  if (is_complex_type(iter.common_dtype())) {
    // sin(pi z) / (pi z) and 1 at 0, with c10::complex's product and quotient (as PyTorch's kernel).
    TL_DISPATCH_COMPLEX(iter.common_dtype(), "sinc", [&] {
      using T = typename scalar_t::value_type;
      cpu_kernel(iter, [](scalar_t z) -> scalar_t {
        if (z == scalar_t(0)) return scalar_t(1);
        const scalar_t p = cmath::mul(scalar_t(static_cast<T>(kPi), T(0)), z);
        return cmath::div(std::sin(p), p);
      });
    });
    return;
  }
  const auto rare = [](double x) -> bool { return !(vec::dabs(x) <= vec::kTrigFastMax / 4); };
  TL_DISPATCH_FLOAT(iter.common_dtype(), "sinc", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, [](double x) TL_MATH_INLINE { return sin_over(kPi * x); }, rare, [](double x) {
        const double p = kPi * x;
        return p == 0.0 ? 1.0 : std::sin(p) / p;
      });
    } else {
      math_kernel<scalar_t>(
          iter,
          [](double x) TL_MATH_INLINE {
            return sin_over(static_cast<double>(static_cast<float>(kPi) * static_cast<float>(x)));
          },
          rare, [](double x) {
            const double p = static_cast<double>(static_cast<float>(kPi) * static_cast<float>(x));
            return p == 0.0 ? 1.0 : std::sin(p) / p;
          });
    }
  });
}

// PyTorch refuses complex input to these two with a RuntimeError (not a missing kernel).
void deg2rad_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), "deg2rad is not supported for complex tensors.");
  scale_kernel(self, out, "deg2rad", kPi / 180.0);
}
void rad2deg_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(!(is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32), "rad2deg is not supported for complex tensors.");
  scale_kernel(self, out, "rad2deg", 180.0 / kPi);
}

// nan, +inf and -inf replaced by the given values (default 0, the dtype's largest and lowest
// finite values), each rounded to the dtype (so a posinf too large for float16 stays inf, as in
// PyTorch). Integer and bool tensors have none of them: the result is a copy.
void nan_to_num_kernel(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf, Tensor& out) {
  TL_CHECK(!out.defined() || out.scalar_type() == self.scalar_type(), "nan_to_num: dtype of out: ",
           legacy_type_name(out.defined() ? out.scalar_type() : self.scalar_type()), " should be same as input: ",
           legacy_type_name(self.scalar_type()));
  // Integer and bool tensors are copied; in place that is nothing (PyTorch's copy_ of a tensor
  // onto itself, so an expanded self is not refused as an overlapping output).
  if (out.defined() && out.is_same(self) && !is_floating_type(self.scalar_type()) && !is_complex_type(self.scalar_type()))
    return;
  auto iter = same_dtype_unary_iter(out, self, "nan_to_num");
  TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(iter.common_dtype(), "nan_to_num",
                                       [&] { nan_to_num_loop<scalar_t>(iter, nan, posinf, neginf); });
}

}  // namespace tl::native
