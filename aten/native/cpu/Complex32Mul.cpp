// complex32 mul as PyTorch's CPU computes it (each product in complex<float> with the schoolbook formula,
// ac - bd and ad + bc, each part rounded to float16), in loops the per-ISA clones vectorize: the
// float16 <-> float32 conversions are Loops.h's branch-free ones, so a contiguous run becomes vector
// code (AVX-512/AVX2) instead of the scalar loop that made it 3x slower than PyTorch's.
//
// Why this file has FMA contraction off: in the AVX2/AVX-512 clones GCC would contract ac - bd into
// fma(a, c, -bd), which rounds once instead of twice; that changes last bits of finite products and
// turns PyTorch's inf - inf = nan into -inf or inf (tests/test_complex32_gaps.py checks bit equality
// with PyTorch on random, special and subnormal values). The pragma must precede every include so the
// loop templates instantiated here (Loops.h) are compiled under it.
#pragma GCC optimize("fp-contract=off")

#include "aten/native/cpu/Complex32Mul.h"

#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {

void complex32_mul(TensorIterator& iter) {
  cpu_kernel(iter, [](ComplexHalf a, ComplexHalf b) -> ComplexHalf { return c32::mul(a, b); });
}

void complex32_mul_scalar(TensorIterator& iter, std::complex<float> c) {
  cpu_kernel(iter, [c](ComplexHalf a) -> ComplexHalf { return c32::narrow(c32::fmul(c32::widen(a), c)); });
}

}  // namespace tl::native
