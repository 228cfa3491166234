// Activation backward kernels: the gradient of each activation from grad_output and the input
// (or the result, where PyTorch's kernel takes it), as PyTorch's CPU kernels compute them.
// Their own derivatives (double backward) are in aten/autograd/FunctionsManualActivation.cpp.
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/ActivationLoops.h"
#include "aten/native/cpu/VecMathErf.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/VecMathHyperbolic.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native {
using activation::binary_float;
using activation::dsel;

namespace {
constexpr double kSqrt1_2 = 0.70710678118654752440;         // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;      // 1 / sqrt(2 pi): the normal density at 0
constexpr double kSqrt2OverPi = 0.79788456080286535588;     // sqrt(2 / pi)
constexpr double kKappa = 0.044715;
}  // namespace

Tensor elu_backward_kernel(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                           bool is_result, const Tensor& self_or_result) {
  const double negcoef = alpha.to_double() * scale.to_double(), poscoef = scale.to_double(),
               negiptcoef = input_scale.to_double();
  if (is_result) {
    return binary_float(grad_output, self_or_result, "elu_backward", [=](double g, double y) TL_MATH_INLINE {
      return dsel(y <= 0, g * negiptcoef * (y + negcoef), g * poscoef);
    });
  }
  return binary_float(grad_output, self_or_result, "elu_backward", [=](double g, double x) TL_MATH_INLINE {
    return dsel(x <= 0, g * negiptcoef * negcoef * vec::exp_f64(dsel(x <= 0, x * negiptcoef, 0.0)), g * poscoef);
  });
}

Tensor gelu_backward_kernel(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  TL_CHECK(approximate == "none" || approximate == "tanh",
           "gelu_backward: approximate argument must be either none or tanh.");
  if (approximate == "tanh") {
    return binary_float(grad_output, self, "gelu_backward", [](double g, double x) TL_MATH_INLINE {
      const double t = vec::tanh_f64(kSqrt2OverPi * (x + kKappa * x * x * x));
      const double dinner = kSqrt2OverPi * (1.0 + 3.0 * kKappa * x * x);
      return g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner);
    });
  }
  return binary_float(
      grad_output, self, "gelu_backward",
      [](double g, double x) TL_MATH_INLINE {
        const double cdf = 0.5 * (1.0 + vec::erf_f64(x * kSqrt1_2));
        return g * (cdf + x * kInvSqrt2Pi * vec::exp_f64(-0.5 * x * x));
      },
      [](double g, double x) TL_MATH_INLINE {
        const double cdf = 0.5 * (1.0 + vec::erf_for_float(x * kSqrt1_2));
        return g * (cdf + x * kInvSqrt2Pi * vec::exp_for_float(-0.5 * x * x));
      });
}

Tensor silu_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return binary_float(
      grad_output, self, "silu_backward",
      [](double g, double x) TL_MATH_INLINE {
        const double s = vec::sigmoid_f64(x);
        return g * s * (1.0 + x * (1.0 - s));
      },
      [](double g, double x) TL_MATH_INLINE {
        const double s = vec::sigmoid_for_float(x);
        return g * s * (1.0 + x * (1.0 - s));
      });
}

Tensor mish_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return binary_float(
      grad_output, self, "mish_backward",
      [](double g, double x) TL_MATH_INLINE {
        const double s = vec::sigmoid_f64(x);
        const double t = vec::tanh_f64(dsel(x > 0, x, 0.0) + vec::log1p_f64(vec::exp_f64(-vec::dabs(x))));
        return g * (t + x * s * (1.0 - t * t));
      },
      [](double g, double x) TL_MATH_INLINE {
        const double s = vec::sigmoid_for_float(x);
        const double t = vec::tanh_for_float(dsel(x > 0, x, 0.0) +
                                             vec::log1p_unit_for_float(vec::exp_for_float(-vec::dabs(x))));
        return g * (t + x * s * (1.0 - t * t));
      });
}

Tensor softplus_backward_kernel(const Tensor& grad_output, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const double b = beta.to_double(), th = threshold.to_double();
  return binary_float(
      grad_output, self, "softplus_backward",
      [=](double g, double x) TL_MATH_INLINE { return dsel(x * b > th, g, g * vec::sigmoid_f64(x * b)); },
      [=](double g, double x) TL_MATH_INLINE { return dsel(x * b > th, g, g * vec::sigmoid_for_float(x * b)); });
}

Tensor leaky_relu_backward_kernel(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                                  bool self_is_result) {
  const double slope = negative_slope.to_double();
  // From the result, a negative slope flips the sign and the input's sign cannot be recovered.
  TL_CHECK(!self_is_result || slope >= 0,
           "leaky_relu_backward: In-place leakyReLu backward calculation is triggered with a negative slope which is "
           "not supported. This is caused by calling in-place forward function with a negative slope, please call "
           "out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require "
           "supporting in-place leakRelu backward calculation with negative slope");
  return binary_float(grad_output, self, "leaky_relu_backward",
                      [=](double g, double x) TL_MATH_INLINE { return dsel(x > 0, g, g * slope); });
}

Tensor hardtanh_backward_kernel(const Tensor& grad_output, const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  const double lo = min_val.to_double(), hi = max_val.to_double();
  return binary_float(grad_output, self, "hardtanh_backward",
                      [=](double g, double x) TL_MATH_INLINE { return dsel((x <= lo) | (x >= hi), 0.0, g); });
}

Tensor hardsigmoid_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return binary_float(grad_output, self, "hardsigmoid_backward",
                      [](double g, double x) TL_MATH_INLINE { return dsel((x > -3.0) & (x < 3.0), g / 6.0, 0.0); });
}

Tensor hardswish_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return binary_float(grad_output, self, "hardswish_backward", [](double g, double x) TL_MATH_INLINE {
    // PyTorch 2.13's kinks: 0 at x = -3, grad_output at x = 3
    return dsel(x <= -3.0, 0.0, dsel(x < 3.0, g * (x / 3.0 + 0.5), g));
  });
}

Tensor softshrink_backward_kernel(const Tensor& grad_output, const Tensor& self, const Scalar& lambd) {
  const double l = lambd.to_double();
  return binary_float(grad_output, self, "softshrink_backward",
                      [=](double g, double x) TL_MATH_INLINE { return dsel((x >= -l) & (x <= l), 0.0, g); });
}

Tensor hardshrink_backward_kernel(const Tensor& grad_out, const Tensor& self, const Scalar& lambd) {
  const double l = lambd.to_double();
  return binary_float(grad_out, self, "hardshrink_backward",
                      [=](double g, double x) TL_MATH_INLINE { return dsel((x >= -l) & (x <= l), 0.0, g); });
}

Tensor threshold_backward_kernel(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  TL_CHECK(self.dtype() != ScalarType::Bool && grad_output.dtype() != ScalarType::Bool,
           "threshold_backward: not implemented for 'Bool'");
  Tensor out;
  auto iter = activation::binary_iter(out, grad_output, self, "threshold_backward");
  TL_DISPATCH_NUMERIC(iter.common_dtype(), "threshold_backward", [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      const scalar_t t = threshold.to<scalar_t>();
      cpu_kernel(iter, [=](scalar_t g, scalar_t x) -> scalar_t { return x <= t ? scalar_t(0) : g; });
    } else {
      const double t = static_cast<double>(to_opmath(static_cast<scalar_t>(threshold.to_double())));
      math_kernel<scalar_t>(iter, [=](double g, double x) TL_MATH_INLINE { return dsel(x <= t, 0.0, g); });
    }
  });
  return out;
}

// PyTorch's CPU formula, from the buffer z = exp(-|x|) of log_sigmoid_forward:
// grad_output * (max_deriv - sign * z / (1 + z)), max_deriv = 1 and sign = 1 where x < 0, else 0 and -1.
Tensor log_sigmoid_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& buffer) {
  Tensor out;
  auto iter = TensorIteratorConfig()
                  .set_op_name("log_sigmoid_backward")
                  .add_output(out)
                  .add_input(self)
                  .add_input(buffer)
                  .add_input(grad_output)
                  .build();
  TL_DISPATCH_FLOAT(iter.common_dtype(), "log_sigmoid_backward", [&] {
    using opmath = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t x, scalar_t z, scalar_t g) -> scalar_t {
      const opmath xv = to_opmath(x), zv = to_opmath(z);
      const opmath neg = xv < opmath(0) ? opmath(1) : opmath(0);
      const opmath sign = xv < opmath(0) ? opmath(1) : opmath(-1);
      return from_opmath<scalar_t>(to_opmath(g) * (neg - sign * (zv / (opmath(1) + zv))));
    });
  });
  return out;
}

}  // namespace tl::native
