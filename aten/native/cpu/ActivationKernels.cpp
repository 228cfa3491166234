// Activation forward kernels: elu (selu, celu), gelu, silu, mish, softplus, leaky_relu, hardtanh
// (relu6), hardsigmoid, hardswish, softshrink, hardshrink, threshold, log_sigmoid_forward.
// Formulas as PyTorch's CPU kernels; see ActivationLoops.h for the loop and docs/kernels/activations.md.
#include <cmath>
#include <limits>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/ActivationLoops.h"
#include "aten/native/cpu/SigmoidTanhFloatLanes.h"
#include "aten/native/cpu/VecMathErf.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/VecMathHyperbolic.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/add.h"
#include "generated/ops/div.h"
#include "generated/ops/exp.h"
#include "generated/ops/neg.h"

namespace tl::native {
using activation::dsel;
using activation::unary_float;

namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;                     // the cubic term of gelu's tanh form

}  // namespace

void elu_kernel(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  const double negcoef = alpha.to_double() * scale.to_double(), poscoef = scale.to_double(),
               negiptcoef = input_scale.to_double();
  unary_float(self, out, "elu", [=](double x) TL_MATH_INLINE {
    return dsel(x > 0, x * poscoef, vec::expm1_f64(x * negiptcoef) * negcoef);
  });
}

void gelu_kernel(const Tensor& self, std::string_view approximate, Tensor& out) {
  TL_CHECK(approximate == "none" || approximate == "tanh", "gelu: approximate argument must be either none or tanh.");
  if (approximate == "tanh") {
    unary_float(
        self, out, "gelu",
        [](double x) TL_MATH_INLINE { return 0.5 * x * (1.0 + vec::tanh_f64(kSqrt2OverPi * (x + kKappa * x * x * x))); },
        [](double x) TL_MATH_INLINE {
          return 0.5 * x * (1.0 + vec::tanh_for_float(kSqrt2OverPi * (x + kKappa * x * x * x)));
        });
  } else {
    unary_float(
        self, out, "gelu", [](double x) TL_MATH_INLINE { return 0.5 * x * (1.0 + vec::erf_f64(x * kSqrt1_2)); },
        [](double x) TL_MATH_INLINE { return 0.5 * x * (1.0 + vec::erf_for_float(x * kSqrt1_2)); });
  }
}

void silu_kernel(const Tensor& self, Tensor& out) {
  if (is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32) {
    // PyTorch's complex silu: x / (1 + exp(-x)) (its autograd refuses complex: the real_autograd tag).
    // div's out= rules apply; the denominator is computed first, so out may be self.
    const Tensor denom = tl::add(tl::exp(tl::neg(self)), Scalar(1));
    if (out.defined()) tl::div_out(out, self, denom);
    else out = tl::div(self, denom);
    return;
  }
  unary_float(
      self, out, "silu", [](double x) TL_MATH_INLINE { return x * vec::sigmoid_f64(x); },
      [](double x) TL_MATH_INLINE { return x * vec::sigmoid_for_float(x); },
      [](float x) TL_MATH_INLINE -> float { return vec::silu_float_lanes(x); });
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, and the log1p argument stays in (0, 1].
TL_ALWAYS_INLINE static double softplus1(double x) {
  return dsel(x > 0, x, 0.0) + vec::log1p_f64(vec::exp_f64(-vec::dabs(x)));
}
TL_ALWAYS_INLINE static double softplus1_for_float(double x) {
  return dsel(x > 0, x, 0.0) + vec::log1p_unit_for_float(vec::exp_for_float(-vec::dabs(x)));
}

void mish_kernel(const Tensor& self, Tensor& out) {
  unary_float(
      self, out, "mish", [](double x) TL_MATH_INLINE { return x * vec::tanh_f64(softplus1(x)); },
      [](double x) TL_MATH_INLINE { return x * vec::tanh_for_float(softplus1_for_float(x)); });
}

void softplus_kernel(const Tensor& self, const Scalar& beta, const Scalar& threshold, Tensor& out) {
  const double b = beta.to_double(), t = threshold.to_double();
  unary_float(
      self, out, "softplus", [=](double x) TL_MATH_INLINE { return dsel(x * b > t, x, softplus1(x * b) / b); },
      [=](double x) TL_MATH_INLINE { return dsel(x * b > t, x, softplus1_for_float(x * b) / b); });
}

void leaky_relu_kernel(const Tensor& self, const Scalar& negative_slope, Tensor& out) {
  const double slope = negative_slope.to_double();
  unary_float(self, out, "leaky_relu", [=](double x) TL_MATH_INLINE { return dsel(x > 0, x, x * slope); });
}

const Tensor& leaky_relu__kernel(const Tensor& self, const Scalar& negative_slope) {
  Tensor out = self;
  leaky_relu_kernel(self, negative_slope, out);
  return self;
}

void hardtanh_kernel(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "hardtanh: Bool inputs not supported for hardtanh");
  auto iter = activation::unary_iter(out, self, "hardtanh");
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "hardtanh", [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      if constexpr (std::is_unsigned_v<scalar_t>) {
        TL_CHECK(min_val.to_long() >= 0 && max_val.to_long() >= 0,
                 "hardtanh: cannot do hardtanh on an unsigned type with negative limits");
      }
      const scalar_t lo = min_val.to<scalar_t>(), hi = max_val.to<scalar_t>();
      cpu_kernel(iter, [=](scalar_t x) -> scalar_t { return x < lo ? lo : (x > hi ? hi : x); });
    } else {
      const double lo = min_val.to_double(), hi = max_val.to_double();
      // nan stays nan (x < lo and x > hi are false), as PyTorch's clamp.
      math_kernel<scalar_t>(iter, [=](double x) TL_MATH_INLINE { return dsel(x < lo, lo, dsel(x > hi, hi, x)); });
    }
  });
}

void hardsigmoid_kernel(const Tensor& self, Tensor& out) {
  unary_float(self, out, "hardsigmoid", [](double x) TL_MATH_INLINE {
    const double y = x + 3.0;
    return dsel(y < 0, 0.0, dsel(y > 6, 6.0, y)) / 6.0;
  });
}

void hardswish_kernel(const Tensor& self, Tensor& out) {
  unary_float(self, out, "hardswish", [](double x) TL_MATH_INLINE {
    const double y = x + 3.0;
    return x * dsel(y < 0, 0.0, dsel(y > 6, 6.0, y)) / 6.0;
  });
}

void softshrink_kernel(const Tensor& self, const Scalar& lambd, Tensor& out) {
  const double l = lambd.to_double();
  TL_CHECK(l >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", lambd, ".");
  // x * 0 in the middle keeps nan (and the sign of zero), as PyTorch.
  unary_float(self, out, "softshrink", [=](double x) TL_MATH_INLINE {
    return dsel(x > l, x - l, dsel(x < -l, x + l, x * 0.0));
  });
}

void hardshrink_kernel(const Tensor& self, const Scalar& lambd, Tensor& out) {
  const double l = lambd.to_double();
  unary_float(self, out, "hardshrink", [=](double x) TL_MATH_INLINE { return dsel((x >= -l) & (x <= l), 0.0, x); });
}

void threshold_kernel(const Tensor& self, const Scalar& threshold, const Scalar& value, Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "threshold: not implemented for 'Bool'");
  // PyTorch's threshold turns the overlap checks off: an expanded self is written in place.
  auto iter = TensorIteratorConfig().set_op_name("threshold").add_output(out).add_input(self).check_mem_overlap(false).build();
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "threshold", [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      const scalar_t t = threshold.to<scalar_t>(), v = value.to<scalar_t>();
      cpu_kernel(iter, [=](scalar_t x) -> scalar_t { return x <= t ? v : x; });
    } else {
      // threshold and value in the dtype first, as PyTorch compares them.
      const double t = static_cast<double>(to_opmath(static_cast<scalar_t>(threshold.to_double())));
      const double v = static_cast<double>(to_opmath(static_cast<scalar_t>(value.to_double())));
      math_kernel<scalar_t>(iter, [=](double x) TL_MATH_INLINE { return dsel(x <= t, v, x); });
    }
  });
}

const Tensor& threshold__kernel(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  Tensor out = self;
  threshold_kernel(self, threshold, value, out);
  return self;
}

// output = min(x, 0) - log1p(exp(-|x|)); buffer = exp(-|x|), what PyTorch's CPU kernel keeps for backward.
std::tuple<Tensor, Tensor> log_sigmoid_forward_kernel(const Tensor& self) {
  Tensor output, buffer;
  unary_float(self, buffer, "log_sigmoid_forward", [](double x) TL_MATH_INLINE { return vec::exp_f64(-vec::dabs(x)); });
  unary_float(self, output, "log_sigmoid_forward", [](double x) TL_MATH_INLINE {
    return dsel(x < 0, x, 0.0) - vec::log1p_f64(vec::exp_f64(-vec::dabs(x)));
  });
  return {output, buffer};
}

}  // namespace tl::native
