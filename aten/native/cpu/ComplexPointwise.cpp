// The complex cases of the pointwise math ops (exp, exp2, log, logaddexp, sqrt, trigonometric and hyperbolic
// functions and their inverses, sigmoid, reciprocal, true division, pow) and of the tanh/sigmoid
// backward kernels. The real kernels (TranscendentalOps.cpp, UnaryOps.cpp, BinaryOps.cpp) build the
// iterator, so promotion, broadcasting and out= checks are theirs; they call in here when the common
// dtype is complex (ComplexPointwise.h). Element functions: ComplexMath.h.
#include <cmath>
#include <complex>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/cpu/ComplexPointwise.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {

namespace {

template <typename F>
void unary_loop(TensorIterator& iter, const char* op, const F& f) {
  TL_DISPATCH_COMPLEX(iter.common_dtype(), op, [&] {
    cpu_kernel_novec(iter, [&f](scalar_t z) -> scalar_t { return f(z); });  // library calls: no clones
  });
}

constexpr double kLn2 = 0.69314718055994530942;

}  // namespace

bool complex_unary(TensorIterator& iter, std::string_view op) {
  if (iter.is_meta()) return true;
  const char* name = op.data();
  // One entry per op: the name the real kernel passes, and the element function.
#define TL_COMPLEX_UNARY(NAME, EXPR)                            \
  if (op == NAME) {                                             \
    unary_loop(iter, name, [](auto z) { return EXPR; });        \
    return true;                                                \
  }
  TL_COMPLEX_UNARY("exp", std::exp(z))
  TL_COMPLEX_UNARY("exp2", std::exp(z * static_cast<typename decltype(z)::value_type>(kLn2)))  // e^(z ln 2)
  TL_COMPLEX_UNARY("expm1", cmath::expm1(z))
  TL_COMPLEX_UNARY("log", std::log(z))
  TL_COMPLEX_UNARY("log2", cmath::log_base(z, kLn2))
  TL_COMPLEX_UNARY("log10", std::log10(z))
  TL_COMPLEX_UNARY("log1p", cmath::log1p(z))
  TL_COMPLEX_UNARY("sqrt", std::sqrt(z))
  TL_COMPLEX_UNARY("rsqrt", cmath::rsqrt(z))
  TL_COMPLEX_UNARY("reciprocal", cmath::reciprocal(z))
  TL_COMPLEX_UNARY("sin", std::sin(z))
  TL_COMPLEX_UNARY("cos", std::cos(z))
  TL_COMPLEX_UNARY("tan", std::tan(z))
  TL_COMPLEX_UNARY("asin", std::asin(z))
  TL_COMPLEX_UNARY("acos", cmath::acos(z))
  TL_COMPLEX_UNARY("atan", std::atan(z))
  TL_COMPLEX_UNARY("sinh", std::sinh(z))
  TL_COMPLEX_UNARY("cosh", std::cosh(z))
  TL_COMPLEX_UNARY("tanh", std::tanh(z))
  TL_COMPLEX_UNARY("asinh", std::asinh(z))
  TL_COMPLEX_UNARY("acosh", std::acosh(z))
  TL_COMPLEX_UNARY("atanh", std::atanh(z))
  TL_COMPLEX_UNARY("sigmoid", cmath::sigmoid(z))
#undef TL_COMPLEX_UNARY
  return false;
}

// tensor + / - alpha * number, and number - alpha * tensor (rsub), PyTorch's element formulas.
void complex_add_scalar(TensorIterator& iter, const Scalar& other, const Scalar& alpha, int sign) {
  if (iter.is_meta()) return;
  if (iter.common_dtype() == ScalarType::Complex32) {
    // The number rounded to complex32 (PyTorch wraps it as a 0-d tensor of the common dtype), the
    // sum in complex<float>, each part rounded back to float16.
    const std::complex<float> o = scalar_cast<ComplexHalf>(other).to_cfloat();
    const std::complex<float> b = cmath::mul(static_cast<std::complex<float>>(alpha.to_complex()), o) * float(sign);
    cpu_kernel(iter, [b](ComplexHalf a) -> ComplexHalf { return ComplexHalf(a.to_cfloat() + b); });
    return;
  }
  TL_DISPATCH_COMPLEX(iter.common_dtype(), sign > 0 ? "add" : "sub", [&] {
    using T = typename scalar_t::value_type;
    const scalar_t b = cmath::mul(scalar_cast<scalar_t>(alpha), scalar_cast<scalar_t>(other)) * T(sign);
    cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return a + b; });
  });
}

void complex_rsub_scalar(TensorIterator& iter, const Scalar& other, const Scalar& alpha) {
  if (iter.is_meta()) return;
  if (iter.common_dtype() == ScalarType::Complex32) {
    const std::complex<float> b = scalar_cast<ComplexHalf>(other).to_cfloat();
    const std::complex<float> m = static_cast<std::complex<float>>(alpha.to_complex());
    cpu_kernel(iter, [b, m](ComplexHalf a) -> ComplexHalf { return ComplexHalf(b - cmath::mul(m, a.to_cfloat())); });
    return;
  }
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "rsub", [&] {
    const scalar_t b = scalar_cast<scalar_t>(other), m = scalar_cast<scalar_t>(alpha);
    cpu_kernel(iter, [b, m](scalar_t a) -> scalar_t { return b - cmath::mul(m, a); });
  });
}

void complex_div(TensorIterator& iter) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "div", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return cmath::div(a, b); });
  });
}

void complex_div_scalar(TensorIterator& iter, const Scalar& other) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "div", [&] {
    const scalar_t b = scalar_cast<scalar_t>(other);
    cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return cmath::div(a, b); });
  });
}

void complex_pow(TensorIterator& iter) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "pow", [&] {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return std::pow(a, b); });
  });
}

// PyTorch's shortcuts (and so its values at infinities): 0 fills 1, 1 copies, 1/2 is sqrt, -1/2
// rsqrt, -1 reciprocal, 2 and 3 products, -2 the reciprocal of the square; other exponents the
// library's complex power.
void complex_pow_tensor_scalar(TensorIterator& iter, const Scalar& exponent) {
  if (iter.is_meta()) return;
  const std::complex<double> e = exponent.is_complex() ? exponent.to_complex()
                                                       : std::complex<double>(exponent.to_double(), 0.0);
  if (e == 0.5) return (void)complex_unary(iter, "sqrt");
  if (e == -0.5) return (void)complex_unary(iter, "rsqrt");
  if (e == -1.0) return (void)complex_unary(iter, "reciprocal");
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "pow", [&] {
    using T = typename scalar_t::value_type;
    if (e == 0.0) {
      cpu_kernel(iter, [](scalar_t) -> scalar_t { return scalar_t(1, 0); });
    } else if (e == 1.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; });
    } else if (e == 2.0) {  // products without the FMA contraction of the per-ISA clones (PyTorch's inf - inf)
      cpu_kernel_novec(iter, [](scalar_t a) -> scalar_t { return cmath::mul(a, a); });
    } else if (e == 3.0) {
      cpu_kernel_novec(iter, [](scalar_t a) -> scalar_t { return cmath::mul(cmath::mul(a, a), a); });
    } else if (e == -2.0) {
      cpu_kernel_novec(iter, [](scalar_t a) -> scalar_t { return cmath::reciprocal(cmath::mul(a, a)); });
    } else {
      const scalar_t ec(static_cast<T>(e.real()), static_cast<T>(e.imag()));
      cpu_kernel_novec(iter, [ec](scalar_t a) -> scalar_t { return std::pow(a, ec); });
    }
  });
}

void complex_pow_scalar_base(TensorIterator& iter, const Scalar& base) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "pow", [&] {
    const scalar_t b = scalar_cast<scalar_t>(base);
    if (b == scalar_t(1, 0)) {  // 1 ** x == 1, nan and infinities included, as PyTorch
      cpu_kernel(iter, [](scalar_t) -> scalar_t { return scalar_t(1, 0); });
      return;
    }
    cpu_kernel_novec(iter, [b](scalar_t e) -> scalar_t { return std::pow(b, e); });
  });
}

void complex_logaddexp(TensorIterator& iter) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "logaddexp", [&] {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return cmath::logaddexp(a, b); });
  });
}

// grad * conj(1 - y^2) and grad * conj((1 - y) y): PyTorch's complex tanh/sigmoid backward.
void complex_tanh_backward(TensorIterator& iter) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "tanh_backward", [&] {
    cpu_kernel(iter, [](scalar_t g, scalar_t y) -> scalar_t {
      return cmath::mul(g, std::conj(scalar_t(1, 0) - cmath::mul(y, y)));
    });
  });
}

void complex_sigmoid_backward(TensorIterator& iter) {
  if (iter.is_meta()) return;
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "sigmoid_backward", [&] {
    cpu_kernel(iter, [](scalar_t g, scalar_t y) -> scalar_t {
      return cmath::mul(g, std::conj(cmath::mul(scalar_t(1, 0) - y, y)));
    });
  });
}

}  // namespace tl::native
