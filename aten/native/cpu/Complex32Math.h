// complex32 (tl::ComplexHalf) arithmetic as PyTorch's CPU kernels compute it. Two roundings exist there:
// kernels with an opmath type (add, mul, the slices of index_add) compute a whole expression in
// complex<float> and round each part of the result to float16 once (widen/narrow below), while
// kernels written over c10::complex<Half> itself (addcmul, index_add of a 1-D self) round after every
// operation (mul/add below: each computed in float, then rounded).
// Products are the schoolbook formula. Code including this must not contract a * b - c * d into an
// FMA (PyTorch's kernels do not): use it from baseline-ISA loops (cpu_kernel_novec, index_apply), not
// from the per-ISA clones (Complex32Arith.cpp has the vector version).
#pragma once
#include <cmath>
#include <complex>

#include "aten/core/Exception.h"
#include "aten/core/Scalar.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native::c32 {

TL_ALWAYS_INLINE std::complex<float> widen(ComplexHalf v) { return {to_opmath(v.re), to_opmath(v.im)}; }
TL_ALWAYS_INLINE ComplexHalf narrow(std::complex<float> v) {
  return {from_opmath<Half>(v.real()), from_opmath<Half>(v.imag())};
}

// (a + bi)(c + di) in float without FMA: ac - bd, ad + bc.
TL_ALWAYS_INLINE std::complex<float> fmul(std::complex<float> x, std::complex<float> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

// c10::complex<Half>'s operators: one operation in float, rounded.
TL_ALWAYS_INLINE ComplexHalf mul(ComplexHalf a, ComplexHalf b) { return narrow(fmul(widen(a), widen(b))); }
TL_ALWAYS_INLINE ComplexHalf add(ComplexHalf a, ComplexHalf b) { return narrow(widen(a) + widen(b)); }

// A Scalar as complex32 with PyTorch's checked conversion (Scalar::to<c10::complex<Half>>): a finite
// part beyond float16's largest value overflows (inf and nan convert).
inline ComplexHalf checked(const Scalar& value) {
  const std::complex<double> z = value.to_complex();
  const auto fits = [](double d) { return !std::isfinite(d) || std::fabs(d) <= 65504.0; };
  TL_CHECK(fits(z.real()) && fits(z.imag()), "value cannot be converted to type c10::complex<c10::Half> without overflow");
  return scalar_cast<ComplexHalf>(value);
}

}  // namespace tl::native::c32
