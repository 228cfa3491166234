// Transcendental pointwise ops: exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, sin, cos,
// tan, asin, acos, atan, atan2, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid, erf, erfc, logaddexp,
// logaddexp2, and the tanh / sigmoid backward kernels.
//
// Every op computes in double with the vectorizable functions of VecMath*.h (float32, float16
// and bfloat16 convert to double and round once), so one implementation serves every dtype.
// Integer and bool inputs give the default float dtype (except logaddexp/logaddexp2, which
// PyTorch does not implement for them). Complex inputs go to ComplexPointwise.cpp.
//
// sanitized-build: -O1 (the vector math's float64 polynomials contract into FMAs as in the release build;
// at -Og erf and exp2 miss their ulp bounds and tanh's gradient PyTorch's: tests/test_vecmath.py)
#include <cmath>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/ComplexPointwise.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/SigmoidTanhFloatLanes.h"
#include "aten/native/cpu/VecMathErf.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/VecMathHyperbolic.h"
#include "aten/native/cpu/VecMathLoops.h"
#include "aten/native/cpu/VecMathTrig.h"

namespace tl::native {
namespace {

TensorIterator unary_float_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(self)
      .promote_integer_inputs_to_float(true)
      .build();
}

TensorIterator binary_float_iter(Tensor& out, const Tensor& a, const Tensor& b, const char* op, bool int_to_float) {
  return TensorIteratorConfig()
      .set_op_name(op)
      .add_output(out)
      .add_input(a)
      .add_input(b)
      .promote_integer_inputs_to_float(int_to_float)
      .build();
}

// out = f(self) for f: double -> double (vectorizable).
template <typename MathF>
void unary_math(const Tensor& self, Tensor& out, const char* op, const MathF& f) {
  auto iter = unary_float_iter(out, self, op);
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, op)) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
}

// Same with `f_float` for float32 / float16 / bfloat16 results (see binary_math).
template <typename MathF, typename MathFloatF>
void unary_math(const Tensor& self, Tensor& out, const char* op, const MathF& f, const MathFloatF& f_float) {
  auto iter = unary_float_iter(out, self, op);
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, op)) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, f);
    } else {
      math_kernel<scalar_t>(iter, f_float);
    }
  });
}

// Same with `f_lanes` (float -> float, in float lanes, SigmoidTanhFloatLanes.h) for float32 (8 or 16 lanes, any
// layout: float_lanes_kernel). float16 / bfloat16 keep `f_float` in double (rounded once).
template <typename MathF, typename MathFloatF, typename LanesF>
void unary_math_lanes(const Tensor& self, Tensor& out, const char* op, const MathF& f, const MathFloatF& f_float,
                      const LanesF& f_lanes) {
  auto iter = unary_float_iter(out, self, op);
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, op)) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, f);
    } else if constexpr (std::is_same_v<scalar_t, float>) {
      float_lanes_kernel(iter, f_lanes);
    } else {
      math_kernel<scalar_t>(iter, f_float);
    }
  });
}

// Same for sin/cos/tan: blocks holding |x| > kTrigFastMax, inf or nan go to libm.
template <typename MathF, typename LibmF>
void unary_trig(const Tensor& self, Tensor& out, const char* op, const MathF& f, const LibmF& libm) {
  auto iter = unary_float_iter(out, self, op);
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, op)) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    math_kernel<scalar_t>(iter, f, [](double x) -> bool { return !(vec::dabs(x) <= vec::kTrigFastMax); }, libm);
  });
}

// out = f(a, b); `int_to_float` promotes integer inputs (atan2), otherwise they are refused
// with PyTorch's message (logaddexp).
// `f_float` computes float32 / float16 / bfloat16 results (in double, only as accurately as they
// need), `f` float64 ones.
template <typename MathF, typename MathFloatF>
void binary_math(const Tensor& a, const Tensor& b, Tensor& out, const char* op, bool int_to_float, const MathF& f,
                 const MathFloatF& f_float) {
  auto iter = binary_float_iter(out, a, b, op, int_to_float);
  const ScalarType dt = iter.common_dtype();
  // Meta: PyTorch's meta function accepts integers and refuses bool (its formula subtracts).
  if (iter.is_meta() && dt != ScalarType::Bool) return;
  if (is_complex_type(dt) && std::string_view(op) == "logaddexp") return complex_logaddexp(iter);  // not logaddexp2
  if (!is_floating_type(dt)) {
    throw NotImplementedError(str(op, ": \"", op, "_cpu\" not implemented for '", legacy_type_name(dt), "'"));
  }
  TL_DISPATCH_FLOAT(dt, op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, f);
    } else {
      math_kernel<scalar_t>(iter, f_float);
    }
  });
}

}  // namespace

void exp_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_float_iter(out, self, "exp");
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, "exp")) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), "exp", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      cpu_kernel(iter, [](double a) -> double { return vec::exp_f64(a); });
    } else {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(vec::exp_f32(to_opmath(a))); });
    }
  });
}

void exp2_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "exp2", [](double x) TL_MATH_INLINE { return vec::exp2_f64(x); });
}
void expm1_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "expm1", [](double x) TL_MATH_INLINE { return vec::expm1_f64(x); });
}
void log_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "log", [](double x) TL_MATH_INLINE { return vec::log_f64(x); });
}
void log2_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "log2", [](double x) TL_MATH_INLINE { return vec::log2_f64(x); });
}
void log10_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "log10", [](double x) TL_MATH_INLINE { return vec::log10_f64(x); });
}
void log1p_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "log1p", [](double x) TL_MATH_INLINE { return vec::log1p_f64(x); });
}

void sqrt_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_float_iter(out, self, "sqrt");
  if (is_complex_type(iter.common_dtype()) && complex_unary(iter, "sqrt")) return;
  TL_DISPATCH_FLOAT(iter.common_dtype(), "sqrt", [&] {
    using opmath = opmath_t<scalar_t>;  // the hardware sqrt, correctly rounded in the op's precision
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::sqrt(opmath(to_opmath(a)))); });
  });
}

// 1 / sqrt(x) in double: float results round once (correctly rounded but for near-halfway
// cases); float64 results round twice (< 1.5 ulp), as PyTorch's 1 / sqrt(x).
void rsqrt_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "rsqrt", [](double x) TL_MATH_INLINE { return 1.0 / std::sqrt(x); });
}

void sin_kernel(const Tensor& self, Tensor& out) {
  unary_trig(self, out, "sin", [](double x) TL_MATH_INLINE { return vec::sin_f64(x); }, [](double x) { return std::sin(x); });
}
void cos_kernel(const Tensor& self, Tensor& out) {
  unary_trig(self, out, "cos", [](double x) TL_MATH_INLINE { return vec::cos_f64(x); }, [](double x) { return std::cos(x); });
}
void tan_kernel(const Tensor& self, Tensor& out) {
  unary_trig(self, out, "tan", [](double x) TL_MATH_INLINE { return vec::tan_f64(x); }, [](double x) { return std::tan(x); });
}
void asin_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "asin", [](double x) TL_MATH_INLINE { return vec::asin_f64(x); },
             [](double x) TL_MATH_INLINE { return vec::asin_for_float(x); });
}
void acos_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "acos", [](double x) TL_MATH_INLINE { return vec::acos_f64(x); },
             [](double x) TL_MATH_INLINE { return vec::acos_for_float(x); });
}
void atan_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "atan", [](double x) TL_MATH_INLINE { return vec::atan_f64(x); });
}
void atan2_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  binary_math(
      self, other, out, "atan2", true, [](double y, double x) TL_MATH_INLINE { return vec::atan2_f64(y, x); },
      [](double y, double x) TL_MATH_INLINE { return vec::atan2_for_float(y, x); });
}

void sinh_kernel(const Tensor& self, Tensor& out) {
  unary_math(
      self, out, "sinh", [](double x) TL_MATH_INLINE { return vec::sinh_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::sinh_for_float(x); });
}
void cosh_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "cosh", [](double x) TL_MATH_INLINE { return vec::cosh_f64(x); });
}
void tanh_kernel(const Tensor& self, Tensor& out) {
  unary_math_lanes(
      self, out, "tanh", [](double x) TL_MATH_INLINE { return vec::tanh_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::tanh_for_float(x); },
      [](float x) TL_MATH_INLINE -> float { return vec::tanh_float_lanes(x); });
}
void asinh_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "asinh", [](double x) TL_MATH_INLINE { return vec::asinh_f64(x); });
}
void acosh_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "acosh", [](double x) TL_MATH_INLINE { return vec::acosh_f64(x); });
}
void atanh_kernel(const Tensor& self, Tensor& out) {
  unary_math(self, out, "atanh", [](double x) TL_MATH_INLINE { return vec::atanh_f64(x); },
             [](double x) TL_MATH_INLINE { return vec::atanh_for_float(x); });
}
void sigmoid_kernel(const Tensor& self, Tensor& out) {
  unary_math_lanes(
      self, out, "sigmoid", [](double x) TL_MATH_INLINE { return vec::sigmoid_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::sigmoid_for_float(x); },
      [](float x) TL_MATH_INLINE -> float { return vec::sigmoid_float_lanes(x); });
}

void erf_kernel(const Tensor& self, Tensor& out) {
  unary_math(
      self, out, "erf", [](double x) TL_MATH_INLINE { return vec::erf_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::erf_for_float(x); });
}
void erfc_kernel(const Tensor& self, Tensor& out) {
  unary_math(
      self, out, "erfc", [](double x) TL_MATH_INLINE { return vec::erfc_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::erfc_for_float(x); });
}

void logaddexp_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  binary_math(
      self, other, out, "logaddexp", false, [](double a, double b) TL_MATH_INLINE { return vec::logaddexp_f64(a, b); },
      [](double a, double b) TL_MATH_INLINE { return vec::logaddexp_for_float(a, b); });
}
void logaddexp2_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  binary_math(
      self, other, out, "logaddexp2", false, [](double a, double b) TL_MATH_INLINE { return vec::logaddexp2_f64(a, b); },
      [](double a, double b) TL_MATH_INLINE { return vec::logaddexp2_for_float(a, b); });
}

// grad_output * (1 - output^2), in the op's precision (float for half/bfloat16), as PyTorch.
void tanh_backward_kernel(const Tensor& grad_output, const Tensor& output, Tensor& out) {
  auto iter = binary_float_iter(out, grad_output, output, "tanh_backward", false);
  if (is_complex_type(iter.common_dtype())) return complex_tanh_backward(iter);
  TL_DISPATCH_FLOAT(iter.common_dtype(), "tanh_backward", [&] {
    using opmath = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t g, scalar_t y) -> scalar_t {
      const opmath yy = to_opmath(y);
      return from_opmath<scalar_t>(to_opmath(g) * (opmath(1) - yy * yy));
    });
  });
}

// grad_output * (1 - output) * output.
void sigmoid_backward_kernel(const Tensor& grad_output, const Tensor& output, Tensor& out) {
  auto iter = binary_float_iter(out, grad_output, output, "sigmoid_backward", false);
  if (is_complex_type(iter.common_dtype())) return complex_sigmoid_backward(iter);
  TL_DISPATCH_FLOAT(iter.common_dtype(), "sigmoid_backward", [&] {
    using opmath = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t g, scalar_t y) -> scalar_t {
      const opmath yy = to_opmath(y);
      return from_opmath<scalar_t>(to_opmath(g) * (opmath(1) - yy) * yy);
    });
  });
}

}  // namespace tl::native
