// Special-function pointwise ops: erfinv, lgamma, digamma, polygamma, i0, logit, xlogy and the
// special_* kernels (erfcx, i0e, i1, i1e, ndtri, log_ndtr, entr, xlog1py, zeta, bessel_j0/j1).
//
// float64 computes with the accurate functions of VecMathSpecial.h (lgamma and the Bessel functions
// of the first kind with libm's lgamma_r, j0, j1). float32, float16 and bfloat16 convert to double,
// compute and round once: through the same functions, or, where they are costly (erfinv, ndtri,
// lgamma, mvlgamma, digamma, polygamma, zeta, bessel_j0/j1), through the branch-free float-accuracy
// approximations of VecMathSpecialFloat.h, which math_kernel vectorizes. Integer and bool inputs give
// the default float dtype.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/VecMathExpLog.h"
#include "aten/native/cpu/VecMathLoops.h"
#include "aten/native/cpu/VecMathSpecial.h"
#include "aten/native/cpu/VecMathSpecialFloat.h"

namespace tl::native {
namespace {

// PyTorch implements some special functions for float32 / float64 only: NotImplementedError
// '"erfcx_cpu" not implemented for 'Half'' for the others (named by PyTorch's kernel name).
void check_no_half(ScalarType dt, const char* op, const char* kernel) {
  if (dt == ScalarType::Float16 || dt == ScalarType::BFloat16) {
    throw NotImplementedError(str(op, ": \"", kernel, "\" not implemented for '", legacy_type_name(dt), "'"));
  }
}

TensorIterator unary_iter(const Tensor& self, Tensor& out, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).promote_integer_inputs_to_float(true).build();
}

// out = f(self), integer inputs promoted to the default float dtype; with `kernel`, float16 and
// bfloat16 are refused.
template <typename MathF>
void special_unary(const Tensor& self, Tensor& out, const char* op, const MathF& f, const char* kernel = nullptr) {
  auto iter = unary_iter(self, out, op);
  if (kernel) check_no_half(iter.common_dtype(), op, kernel);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
}

// Same with `f_float` for float32 / float16 / bfloat16 results (a variant only as accurate as
// they need, see docs/vecmath.md).
template <typename MathF, typename MathFloatF>
void special_unary(const Tensor& self, Tensor& out, const char* op, const MathF& f, const MathFloatF& f_float,
                   const char* kernel) {
  auto iter = unary_iter(self, out, op);
  if (kernel) check_no_half(iter.common_dtype(), op, kernel);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, f);
    } else {
      math_kernel<scalar_t>(iter, f_float);
    }
  });
}

// For functions that call libm or loop per element (lgamma, digamma, zeta...): a plain strided
// loop (cpu_kernel). math_kernel's per-ISA clones and double buffers buy nothing there, and calling
// libm's SSE code from the AVX-512 clone was measured several times slower.
template <typename F, typename FFloat>
void special_unary_scalar(const Tensor& self, Tensor& out, const char* op, const F& f, const FFloat& f_float,
                          const char* kernel = nullptr) {
  auto iter = unary_iter(self, out, op);
  if (kernel) check_no_half(iter.common_dtype(), op, kernel);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    cpu_kernel(iter, [&](scalar_t a) -> scalar_t {
      const double x = static_cast<double>(to_opmath(a));
      if constexpr (std::is_same_v<scalar_t, double>) {
        return f(x);
      } else {
        return from_opmath<scalar_t>(static_cast<opmath_t<scalar_t>>(f_float(x)));
      }
    });
  });
}

// float64 through the scalar `f` (libm, data-dependent loops: as special_unary_scalar);
// float32 / float16 / bfloat16 through the branch-free `f_float` of VecMathSpecialFloat.h, which
// math_kernel vectorizes.
template <typename F, typename FFloat>
void special_unary_float_vec(const Tensor& self, Tensor& out, const char* op, const F& f, const FFloat& f_float,
                             const char* kernel = nullptr) {
  auto iter = unary_iter(self, out, op);
  if (kernel) check_no_half(iter.common_dtype(), op, kernel);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      cpu_kernel(iter, [&](double x) -> double { return f(x); });
    } else {
      math_kernel<scalar_t>(iter, f_float);
    }
  });
}

// out = f(a, b) with broadcasting and promotion, integer inputs to the default float dtype.
template <typename MathF>
void special_binary(const Tensor& a, const Tensor& b, Tensor& out, const char* op, const MathF& f,
                    const char* kernel = nullptr) {
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(a)
                  .add_input(b)
                  .promote_integer_inputs_to_float(true)
                  .build();
  if (kernel) check_no_half(iter.common_dtype(), op, kernel);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
}

double lgamma_libm(double x) {
  int sign;  // lgamma_r: the reentrant form (lgamma writes the global signgam)
  return ::lgamma_r(x, &sign);
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 (n! exact to 22!, inf from 171!).
double polygamma_f64(int64_t n, double x) {
  if (n == 0) return vec::digamma_f64(x);
  if (n == 1) return vec::trigamma_f64(x);
  double factorial = 1.0;
  for (int64_t k = 2; k <= n && factorial < vec::kInf; ++k) factorial *= static_cast<double>(k);
  const double sign = (n % 2) ? 1.0 : -1.0;
  return sign * factorial * vec::zeta_f64(static_cast<double>(n) + 1.0, x);
}

}  // namespace

// float64: the accurate solver, blocks holding an input in the far tails (1 - |x| below
// kErfinvFarTailQ, or nan) through the variant with the far-tail guess. Float results: the direct
// fit of VecMathSpecialFloat.h (no far tail for float inputs).
void erfinv_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_iter(self, out, "erfinv");
  TL_DISPATCH_FLOAT(iter.common_dtype(), "erfinv", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(
          iter, [](double x) TL_MATH_INLINE { return vec::erfinv_f64<false>(x); },
          [](double x) { return !(vec::dabs(x) < 1.0 - vec::kErfinvFarTailQ); },
          [](double x) { return vec::erfinv_f64<true>(x); });
    } else {
      math_kernel<scalar_t>(iter, [](double x) TL_MATH_INLINE { return vec::erfinv_for_float(x); });
    }
  });
}

void lgamma_kernel(const Tensor& self, Tensor& out) {
  special_unary_float_vec(self, out, "lgamma", lgamma_libm,
                          [](double x) TL_MATH_INLINE { return vec::lgamma_for_float(x); });
}

void digamma_kernel(const Tensor& self, Tensor& out) {
  special_unary_float_vec(self, out, "digamma", vec::digamma_f64,
                          [](double x) TL_MATH_INLINE { return vec::digamma_for_float(x); });
}

void polygamma_kernel(int64_t n, const Tensor& self, Tensor& out) {
  TL_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  const auto f = [n](double x) { return polygamma_f64(n, x); };
  if (n == 0) {
    special_unary_float_vec(self, out, "polygamma", f, [](double x) TL_MATH_INLINE { return vec::digamma_for_float(x); });
  } else if (n == 1) {
    special_unary_float_vec(self, out, "polygamma", f, [](double x) TL_MATH_INLINE { return vec::trigamma_for_float(x); });
  } else {
    // n >= 2: (-1)^(n+1) n! zeta(n + 1, x); float results through zeta_for_float, blocks holding x <= 0,
    // inf or nan through polygamma_f64.
    auto iter = unary_iter(self, out, "polygamma");
    const double s = static_cast<double>(n) + 1.0;
    const double log_factorial = std::lgamma(s);  // once per call: a libm call is fine here
    const double sign = (n % 2) ? 1.0 : -1.0;
    TL_DISPATCH_FLOAT(iter.common_dtype(), "polygamma", [&] {
      if constexpr (std::is_same_v<scalar_t, double>) {
        math_kernel<scalar_t>(iter, f);
      } else {
        math_kernel<scalar_t>(
            iter, [sign, s, log_factorial](double x) TL_MATH_INLINE { return sign * vec::zeta_for_float(s, x, log_factorial); },
            [](double x) { return !(x > 0.0) | !(x < vec::kInf); }, f);
      }
    });
  }
}

// sum_{j < p} lgamma(x - j/2) + p (p - 1) / 4 log(pi), in double, rounded once. As PyTorch: no
// check of the domain (poles give inf), bool inputs and p < 1 refused.
void mvlgamma_kernel(const Tensor& self, int64_t p, Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "mvlgamma: The input tensor may not be a boolean tensor.");
  TL_CHECK(p >= 1, "mvlgamma: p has to be greater than or equal to 1");
  // PyTorch materialises the p lgamma arguments of every element (p * numel values) and fails to
  // allocate them for huge p; the same p here would loop for ever: refused likewise.
  const double work = static_cast<double>(p) * static_cast<double>(std::max<int64_t>(self.numel(), 1));
  TL_CHECK(work <= 4294967296.0, "mvlgamma: can't allocate memory: p = ", p, " needs ", work,
           " lgamma arguments (PyTorch materialises p of them per element)");
  const double c = static_cast<double>(p) * static_cast<double>(p - 1) * 0.28618247146235004;  // log(pi) / 4
  const auto f = [p, c](double x) {
    double sum = c;
    for (int64_t j = 0; j < p; ++j) sum += lgamma_libm(x - 0.5 * static_cast<double>(j));
    return sum;
  };
  // float results: p = 1 .. 4 unrolled (vectorized), larger p in a loop.
  const auto run = [&](auto P) {
    special_unary_float_vec(self, out, "mvlgamma", f, [p, c](double x) TL_MATH_INLINE {
      return vec::mvlgamma_for_float<decltype(P)::value>(x, p, c);
    });
  };
  switch (p) {
    case 1: run(std::integral_constant<int, 1>()); break;
    case 2: run(std::integral_constant<int, 2>()); break;
    case 3: run(std::integral_constant<int, 3>()); break;
    case 4: run(std::integral_constant<int, 4>()); break;
    default: run(std::integral_constant<int, 0>());
  }
}

void i0_kernel(const Tensor& self, Tensor& out) {
  special_unary(
      self, out, "i0", [](double x) TL_MATH_INLINE { return vec::i0_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::i0_f64<true>(x); }, nullptr);
}

// log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps >= 0 (a nan x stays nan).
void logit_kernel(const Tensor& self, std::optional<double> eps, Tensor& out) {
  if (eps && *eps >= 0.0) {
    const double lo = *eps, hi = 1.0 - *eps;
    special_unary(self, out, "logit", [lo, hi](double x) TL_MATH_INLINE {
      const double z = vec::dsel(x < lo, lo, vec::dsel(x > hi, hi, x));
      return vec::log_f64(z / (1.0 - z));
    });
  } else {
    special_unary(self, out, "logit", [](double x) TL_MATH_INLINE { return vec::log_f64(x / (1.0 - x)); });
  }
}

// x log(y), 0 where x == 0 unless y is nan.
void xlogy_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  special_binary(self, other, out, "xlogy", [](double x, double y) TL_MATH_INLINE {
    const double r = vec::dsel(x == 0.0, 0.0, x * vec::log_f64(y));
    return vec::dsel(vec::disnan(y), y, r);
  });
}

// The number is a wrapped 0-d tensor, so it takes part in type promotion as PyTorch's.
void xlogy_scalar_other_kernel(const Tensor& self, const Scalar& other, Tensor& out) {
  xlogy_kernel(self, scalar_to_tensor(other, other.type(), self.device(), true), out);
}

void special_xlog1py_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  special_binary(self, other, out, "special_xlog1py", [](double x, double y) TL_MATH_INLINE {
    const double r = vec::dsel(x == 0.0, 0.0, x * vec::log1p_f64(y));
    return vec::dsel(vec::disnan(y), y, r);
  });
}

// float64: zeta_f64 (scalar loops); float32: the fixed-shape zeta_for_float, vectorized, blocks
// holding s <= 1, q <= 0, inf or nan through zeta_f64.
void special_zeta_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  auto iter = TensorIteratorConfig()
                  .set_op_name("special_zeta")
                  .add_output(out)
                  .add_input(self)
                  .add_input(other)
                  .promote_integer_inputs_to_float(true)
                  .build();
  check_no_half(iter.common_dtype(), "special_zeta", "zeta_cpu");
  const auto exact = [](double s, double q) { return vec::zeta_f64(s, q); };
  TL_DISPATCH_FLOAT(iter.common_dtype(), "special_zeta", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(iter, exact);
    } else {
      math_kernel<scalar_t>(
          iter, [](double s, double q) TL_MATH_INLINE { return vec::zeta_for_float(s, q); },
          [](double s, double q) { return !(s > 1.0) | !(q > 0.0) | !(s < vec::kInf) | !(q < vec::kInf); }, exact);
    }
  });
}

void special_erfcx_kernel(const Tensor& self, Tensor& out) {
  special_unary(self, out, "special_erfcx", [](double x) TL_MATH_INLINE { return vec::erfcx_f64(x); }, "erfcx_cpu");
}

void special_i0e_kernel(const Tensor& self, Tensor& out) {
  special_unary(
      self, out, "special_i0e", [](double x) TL_MATH_INLINE { return vec::i0e_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::i0e_f64<true>(x); }, nullptr);
}

void special_i1_kernel(const Tensor& self, Tensor& out) {
  special_unary(
      self, out, "special_i1", [](double x) TL_MATH_INLINE { return vec::i1_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::i1_f64<true>(x); }, nullptr);
}

void special_i1e_kernel(const Tensor& self, Tensor& out) {
  special_unary(
      self, out, "special_i1e", [](double x) TL_MATH_INLINE { return vec::i1e_f64(x); },
      [](double x) TL_MATH_INLINE { return vec::i1e_f64<true>(x); }, nullptr);
}

void special_ndtri_kernel(const Tensor& self, Tensor& out) {
  auto iter = unary_iter(self, out, "special_ndtri");
  check_no_half(iter.common_dtype(), "special_ndtri", "ndtri_cpu");
  constexpr double lo = 0.5 * vec::kErfinvFarTailQ;
  const auto far = [](double p) { return !(p > lo && p < 1.0 - lo); };
  TL_DISPATCH_FLOAT(iter.common_dtype(), "special_ndtri", [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      math_kernel<scalar_t>(
          iter, [](double p) TL_MATH_INLINE { return vec::ndtri_f64<false>(p); }, far,
          [](double p) { return vec::ndtri_f64<true>(p); });
    } else {
      math_kernel<scalar_t>(
          iter, [](double p) TL_MATH_INLINE { return vec::ndtri_for_float<false>(p); }, far,
          [](double p) { return vec::ndtri_for_float<true>(p); });
    }
  });
}

void special_log_ndtr_kernel(const Tensor& self, Tensor& out) {
  special_unary(self, out, "special_log_ndtr", [](double x) TL_MATH_INLINE { return vec::log_ndtr_f64(x); }, "log_ndtr_cpu");
}

// -x log(x): 0 at 0, -inf below 0, nan for nan.
void special_entr_kernel(const Tensor& self, Tensor& out) {
  special_unary(self, out, "special_entr", [](double x) TL_MATH_INLINE {
    const double r = vec::dsel(x > 0.0, -x * vec::log_f64(x), vec::dsel(x == 0.0, 0.0, -vec::kInf));
    return vec::dsel(vec::disnan(x), x, r);
  });
}

// libm's j0 / j1; nan at ±inf, as PyTorch (whose approximations do not reach the limit 0).
static double j0_or_nan(double x) { return std::isinf(x) ? vec::kNaN : ::j0(x); }
static double j1_or_nan(double x) { return std::isinf(x) ? vec::kNaN : ::j1(x); }

// float64: libm's j0 / j1; float32: the branch-free Cephes form of VecMathSpecialFloat.h, blocks
// holding |x| > kTrigFastMax, inf or nan through libm.
template <int nu>
void bessel_j_kernel(const Tensor& self, Tensor& out, const char* op, const char* kernel) {
  auto iter = unary_iter(self, out, op);
  check_no_half(iter.common_dtype(), op, kernel);
  const auto libm = [](double x) { return nu == 0 ? j0_or_nan(x) : j1_or_nan(x); };
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) {
      cpu_kernel(iter, [&](double x) -> double { return libm(x); });
    } else {
      math_kernel<scalar_t>(
          iter, [](double x) TL_MATH_INLINE { return vec::bessel_j_for_float<nu>(x); },
          [](double x) { return !(vec::dabs(x) <= vec::kTrigFastMax); }, libm);
    }
  });
}

void special_bessel_j0_kernel(const Tensor& self, Tensor& out) {
  bessel_j_kernel<0>(self, out, "special_bessel_j0", "bessel_j0_cpu");
}

void special_bessel_j1_kernel(const Tensor& self, Tensor& out) {
  bessel_j_kernel<1>(self, out, "special_bessel_j1", "bessel_j1_cpu");
}

}  // namespace tl::native
