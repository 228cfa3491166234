// The complex-specific ops: the views between complex and real layouts (view_as_real,
// view_as_complex), conj_physical, complex(real, imag), and the complex cases of abs, angle and
// sgn. std::complex<T> is two T's (real, imaginary), so a complex tensor of n elements is a real
// tensor of 2n elements with the same storage.
#include <cmath>
#include <type_traits>
#include <complex>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/Complex32Arith.h"
#include "aten/native/cpu/ComplexKernels.h"
#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {

namespace {

// A view of `base`'s storage with another element type (the view's autograd metadata and version
// counter are make_view's).
Tensor dtype_view(const Tensor& base, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor v = make_view(base, sizes, strides, offset);
  v.impl()->set_dtype(dtype);
  return v;
}

template <typename T>
void conj_loop(TensorIterator& iter) {
  if constexpr (is_complex_v<T>) {
    cpu_kernel(iter, [](T a) -> T { return std::conj(a); });
  } else if constexpr (std::is_same_v<T, ComplexHalf>) {
    // The imaginary part's sign bit flipped (exact, as -x of a float16).
    cpu_kernel(iter, [](T a) -> T { return T(a.re, Half(static_cast<uint16_t>(a.im.x ^ 0x8000u), Half::from_bits_t{})); });
  } else {
    cpu_kernel(iter, [](T a) -> T { return a; });
  }
}

}  // namespace

// Real and imaginary parts as a last dimension of size 2: strides double, the new dimension has
// stride 1.
Tensor view_as_real_kernel(const Tensor& self) {
  TL_CHECK(is_complex_type(self.dtype()), "view_as_real is only supported for complex tensors");
  TL_CHECK(!self.is_conj(), "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so "
                            "you can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor "
                            "will NOT alias the original.");
  DimVector sizes(self.sizes());
  DimVector strides;
  for (int64_t s : self.strides()) strides.push_back(s * 2);
  sizes.push_back(2);
  strides.push_back(1);
  return dtype_view(self, to_real_type(self.dtype()), sizes, strides, self.storage_offset() * 2);
}

// The lazy math bits' views (aten/core/MathBits.h): the same memory, the bit flipped. Only complex
// tensors take the conjugate bit (`conj` of a real tensor is the tensor; PyTorch's _conj asserts).
Tensor conj_view_kernel(const Tensor& self) {
  TL_CHECK(is_complex_type(self.dtype()), "_conj: expected a complex tensor, got ", scalar_type_name(self.dtype()));
  Tensor v = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  v.impl()->set_conj(!self.is_conj());
  return v;
}

Tensor neg_view_kernel(const Tensor& self) {
  Tensor v = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  v.impl()->set_neg(!self.is_neg());
  return v;
}

// The inverse: a last dimension of size 2 and stride 1 becomes one complex element; the other
// strides (of dimensions longer than 1) and the offset must be even, in real elements.
Tensor view_as_complex_kernel(const Tensor& self) {
  const ScalarType t = self.dtype();
  TL_CHECK(t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16,
           "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: ",
           legacy_type_name(t));
  TL_CHECK(self.dim() > 0, "Input tensor must have one or more dimensions");
  TL_CHECK(self.sizes().back() == 2, "Tensor must have a last dimension of size 2");
  const ScalarType ct = to_complex_type(t);  // float16 raises: torchlite has no complex32
  DimVector sizes(IntArrayRef(self.sizes().data(), self.sizes().size() - 1));
  if (self.numel() == 0) {
    // No element to address: any strides will do (NumPy gives empty arrays zero strides).
    return dtype_view(self, ct, sizes, contiguous_strides(sizes), self.storage_offset() / 2);
  }
  TL_CHECK(self.strides().back() == 1, "Tensor must have a last dimension with stride 1");
  DimVector strides;
  for (size_t i = 0; i + 1 < self.sizes().size(); ++i) {
    TL_CHECK(self.sizes()[i] == 1 || self.strides()[i] % 2 == 0,
             "Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(self.strides()[i] / 2);
  }
  TL_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return dtype_view(self, ct, sizes, strides, self.storage_offset() / 2);
}

// The conjugate, computed (torchlite has no lazy conjugate bit); a copy for real dtypes.
void conj_physical_kernel(const Tensor& self, Tensor& out) {
  if (!is_complex_type(self.dtype()) && out.defined() && out.is_same(self)) return;  // conj_physical_ of real: nothing
  // out= must have the result's dtype, as PyTorch's unary_op (no casting into another one).
  auto iter = TensorIteratorConfig().set_op_name("conj_physical").add_output(out).add_input(self).check_exact_output_dtype(true).build();
  if (iter.is_meta()) return;
  TL_DISPATCH_EVERY_DTYPE(iter.common_dtype(), "conj_physical", [&] { conj_loop<scalar_t>(iter); });
}

// complex(real, imag): both float16, float32 or float64 (broadcast), giving complex32/64/128.
void complex_kernel(const Tensor& real, const Tensor& imag, Tensor& out) {
  const ScalarType rt = real.dtype(), it = imag.dtype();
  TL_CHECK(rt == it, "Expected object of scalar type ", legacy_type_name(rt), " but got scalar type ",
           legacy_type_name(it), " for second argument");
  TL_CHECK(rt == ScalarType::Float32 || rt == ScalarType::Float64 || rt == ScalarType::Float16,
           "Expected both inputs to be Half, Float or Double tensors but got ", legacy_type_name(rt), " and ",
           legacy_type_name(it));
  const ScalarType ct = to_complex_type(rt);
  TL_CHECK(!out.defined() || out.dtype() == ct, "Expected object of scalar type ", legacy_type_name(ct),
           " but got scalar type ", legacy_type_name(out.dtype()), " for argument 'out'");
  auto iter = TensorIteratorConfig()
                  .set_op_name("complex")
                  .add_output(out)
                  .add_input(real)
                  .add_input(imag)
                  .promote_inputs_to_common_dtype(false)
                  .declare_static_output_dtype(ct)
                  .build();
  if (iter.is_meta()) return;
  TL_DISPATCH_SWITCH(rt, "complex",
                     TL_DISPATCH_CASE(Float32, float, [&] {
                       cpu_kernel(iter, [](float a, float b) -> std::complex<float> { return {a, b}; });
                     }) TL_DISPATCH_CASE(Float64, double, [&] {
                       cpu_kernel(iter, [](double a, double b) -> std::complex<double> { return {a, b}; });
                     }) TL_DISPATCH_CASE(Float16, Half, [&] {
                       cpu_kernel(iter, [](Half a, Half b) -> ComplexHalf { return {a, b}; });
                     }));
}

namespace {

// out = f(z) for complex z with a real result (abs, angle): out may have any dtype the real result
// casts to safely, as PyTorch's. half_ok: whether PyTorch's CPU kernel takes complex32 (abs does,
// angle does not).
template <typename F>
void complex_to_real(const Tensor& self, Tensor& out, const char* op, const F& f, bool half_ok) {
  const ScalarType rt = to_real_type(self.dtype());
  TL_CHECK(!out.defined() || can_cast(rt, out.dtype()), op, ": result type ", legacy_type_name(rt),
           " can't be cast to the desired output type ", legacy_type_name(out.dtype()));
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(self)
                  .declare_static_output_dtype(rt)
                  .enforce_safe_casting_to_output(false)  // the result is real: checked above
                  .build();
  if (iter.is_meta()) return;
  if (self.dtype() == ScalarType::Complex32) {
    // In float, the result rounded to float16 (as PyTorch's ComplexHalf kernels compute in complex<float>).
    TL_CHECK_AS(NotImplementedError, half_ok, "\"", op, "_cpu\" not implemented for 'ComplexHalf'");
    cpu_kernel(iter, [&f](ComplexHalf a) -> Half { return Half(f(static_cast<float>(a.re), static_cast<float>(a.im))); });
    return;
  }
  TL_DISPATCH_COMPLEX(self.dtype(), op, [&] {
    using R = typename scalar_t::value_type;
    cpu_kernel(iter, [&f](scalar_t a) -> R { return f(a.real(), a.imag()); });
  });
}

}  // namespace

namespace {

// hypot(re, im) for double without a library call, so that the loop vectorizes (glibc's hypot was 1.8x
// PyTorch's vectorized Sleef hypot on complex128 abs): the square root of the fma-computed sum of squares,
// corrected by the rounding error of h^2 (Borges, "An improved algorithm for hypot(a, b)", 2019), on
// operands scaled into a range where the squares neither overflow nor lose precision. Within one ulp, as
// glibc's and Sleef's (which themselves differ by one ulp on ~0.3% of random inputs). Branch-free selects.
inline double abs_f64(double re, double im) {
  const double ax = std::fabs(re), ay = std::fabs(im);
  const double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
  const double scale = big > 0x1p500 ? 0x1p-600 : (big < 0x1p-500 ? 0x1p600 : 1.0);
  const double x = big * scale, y = small * scale;
  double h = std::sqrt(std::fma(x, x, y * y));
  const double h_sq = h * h, x_sq = x * x;
  // x^2 + y^2 - h^2 exactly up to rounding: h_sq - x_sq is exact (Sterbenz), the fmas give the squares' errors
  const double e = std::fma(y, y, -(h_sq - x_sq)) + std::fma(x, x, -x_sq) - std::fma(h, h, -h_sq);
  h = h > 0 ? h + e / (2 * h) : h;
  const double r = h / scale;
  return (ax == HUGE_VAL || ay == HUGE_VAL) ? HUGE_VAL : r;  // inf wins over nan, as hypot
}

}  // namespace

// |z| of complex elements, as a real tensor (no overflow for large parts).
void complex_abs_kernel(const Tensor& self, Tensor& out) {
  complex_to_real(self, out, "abs", [](auto re, auto im) {
    if constexpr (std::is_same_v<decltype(re), double>) return abs_f64(re, im);
    else return std::hypot(re, im);
  }, /*half_ok=*/true);
}

// arg(z) of complex elements, as a real tensor.
void complex_angle_kernel(const Tensor& self, Tensor& out) {
  complex_to_real(self, out, "angle", [](auto re, auto im) { return std::atan2(im, re); }, /*half_ok=*/false);
}

// z / |z| (0 for 0), as PyTorch's sgn of complex numbers.
void complex_sgn_kernel(const Tensor& self, Tensor& out) {
  auto iter = TensorIteratorConfig().set_op_name("sgn").add_output(out).add_input(self).check_exact_output_dtype(true).build();
  if (iter.is_meta()) return;
  if (self.dtype() == ScalarType::Complex32) {
    cpu_kernel(iter, [](ComplexHalf a) -> ComplexHalf {
      const std::complex<float> z = a.to_cfloat();
      // z / |z| as a complex division (c10's, which PyTorch's ComplexHalf sgn uses): inf or nan parts give nan + nan i.
      const float m = std::hypot(z.real(), z.imag());
      return m == 0.0f ? ComplexHalf() : ComplexHalf(cmath::div(z, std::complex<float>(m, 0.0f)));
    });
    return;
  }
  TL_DISPATCH_COMPLEX(self.dtype(), "sgn", [&] {
    using R = typename scalar_t::value_type;
    cpu_kernel(iter, [](scalar_t a) -> scalar_t {
      const R m = std::hypot(a.real(), a.imag());
      return m == R(0) ? scalar_t(0, 0) : scalar_t(a.real() / m, a.imag() / m);
    });
  });
}

// ---------------------------------------------------------------- arithmetic

namespace {
// The schoolbook product, as PyTorch's c10::complex (std::complex's operator* follows C's Annex G
// for infinities through a library call per element).
template <typename C>
inline C cmul(C a, C b) {
  return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}
}  // namespace

// complex32 (add, sub, mul, neg: the arithmetic PyTorch's CPU kernels run on it): computed in
// complex<float>, each part of the result rounded to float16.
// Through Loops.h's branch-free float16 conversions (the same bits as Half's own, which do not vectorize
// and made these loops 3-4x slower than PyTorch's).
inline std::complex<float> cf(ComplexHalf v) { return {to_opmath(v.re), to_opmath(v.im)}; }
inline ComplexHalf ch(std::complex<float> v) { return {from_opmath<Half>(v.real()), from_opmath<Half>(v.imag())}; }

void complex_add_sub(TensorIterator& iter, const Scalar& alpha, int sign) {
  if (iter.common_dtype() == ScalarType::Complex32) {
    // Always a + alpha * b with the schoolbook product, as PyTorch's ComplexHalf kernel (so alpha = 1 turns an
    // infinite or nan part of b into a nan in the other part, as there), in c10::complex<Half> arithmetic:
    // alpha converted to complex32 (with its overflow check), the product rounded, then the sum.
    // sub is add with -alpha: a real alpha keeps a +0 imaginary part (-(1 + 0i) would make it -0).
    const Scalar neg = alpha.is_complex() ? Scalar(-alpha.to_complex()) : Scalar(-alpha.to_double());
    const ComplexHalf m = c32::checked(sign > 0 ? alpha : neg);
    complex32_add(iter, m);  // vectorized (Complex32Arith.cpp)
    return;
  }
  TL_DISPATCH_COMPLEX(iter.common_dtype(), sign > 0 ? "add" : "sub", [&] {
    const scalar_t m = scalar_cast<scalar_t>(alpha) * typename scalar_t::value_type(sign);
    if (m == scalar_t(1)) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a + b; });
    } else if (m == scalar_t(-1)) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a - b; });
    } else {
      cpu_kernel(iter, [m](scalar_t a, scalar_t b) -> scalar_t { return a + cmul(m, b); });
    }
  });
}

void complex_mul(TensorIterator& iter) {
  if (iter.common_dtype() == ScalarType::Complex32) {
    complex32_mul(iter);  // vectorized (Complex32Arith.cpp)
    return;
  }
  // novec: the per-ISA clones would contract ac - bd into an FMA (-inf where PyTorch's inf - inf is nan).
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "mul", [&] {
    cpu_kernel_novec(iter, [](scalar_t a, scalar_t b) -> scalar_t { return cmul(a, b); });
  });
}

void complex_mul_scalar(TensorIterator& iter, const Scalar& other) {
  if (iter.common_dtype() == ScalarType::Complex32) {
    // The number rounded to complex32 first, as the tensor-tensor product would see it.
    complex32_mul_scalar(iter, scalar_cast<ComplexHalf>(other));
    return;
  }
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "mul", [&] {
    const scalar_t c = scalar_cast<scalar_t>(other);
    cpu_kernel(iter, [c](scalar_t a) -> scalar_t { return cmul(a, c); });
  });
}

void complex_neg(TensorIterator& iter) {
  if (iter.common_dtype() == ScalarType::Complex32) {
    cpu_kernel(iter, [](ComplexHalf a) -> ComplexHalf { return ch(-cf(a)); });
    return;
  }
  TL_DISPATCH_COMPLEX(iter.common_dtype(), "neg", [&] {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return -a; });
  });
}

}  // namespace tl::native
