// The loops of the activation kernels (ActivationKernels.cpp, ActivationBackwardKernels.cpp).
//
// Every activation computes in double through math_kernel (VecMathLoops.h): float32, float16 and
// bfloat16 are converted to double in blocks, mapped by one branch-free function (selects written
// with dsel, so GCC vectorizes it) and rounded once; float32 silu instead runs a float-lane function
// (unary_float with three functions, SigmoidTanhFloatLanes.h). Integer and bool inputs are refused as PyTorch
// refuses them (NotImplementedError naming the op), except where a kernel dispatches them itself.
#pragma once

#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/VecMathCommon.h"
#include "aten/native/cpu/VecMathLoops.h"

namespace tl::native::activation {

using vec::dsel;

// out= must have the result's dtype (PyTorch's activations do not cast into another one).
inline TensorIterator unary_iter(Tensor& out, const Tensor& self, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).check_exact_output_dtype(true).build();
}

inline TensorIterator binary_iter(Tensor& out, const Tensor& a, const Tensor& b, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(a).add_input(b).build();
}

// out = f(self) for floating dtypes; f: double -> double.
template <typename F>
void unary_float(const Tensor& self, Tensor& out, const char* op, const F& f) {
  auto iter = unary_iter(out, self, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
}

// Same with `f_float` for float32 / float16 / bfloat16 results: the "for float" vector functions
// (VecMath*.h), accurate to what a float result needs and cheaper than the float64 ones.
template <typename F, typename FFloat>
void unary_float(const Tensor& self, Tensor& out, const char* op, const F& f, const FFloat& f_float) {
  auto iter = unary_iter(out, self, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) math_kernel<scalar_t>(iter, f);
    else math_kernel<scalar_t>(iter, f_float);
  });
}

// Same with `f_lanes` (float -> float, in float lanes: SigmoidTanhFloatLanes.h) for float32, run by
// float_lanes_kernel (VecMathLoops.h); float16 / bfloat16 keep `f_float` in double.
template <typename F, typename FFloat, typename FLanes>
void unary_float(const Tensor& self, Tensor& out, const char* op, const F& f, const FFloat& f_float,
                 const FLanes& f_lanes) {
  auto iter = unary_iter(out, self, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) math_kernel<scalar_t>(iter, f);
    else if constexpr (std::is_same_v<scalar_t, float>) float_lanes_kernel(iter, f_lanes);
    else math_kernel<scalar_t>(iter, f_float);
  });
}

template <typename F, typename FFloat>
Tensor binary_float(const Tensor& grad_output, const Tensor& x, const char* op, const F& f, const FFloat& f_float) {
  Tensor out;
  auto iter = binary_iter(out, grad_output, x, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] {
    if constexpr (std::is_same_v<scalar_t, double>) math_kernel<scalar_t>(iter, f);
    else math_kernel<scalar_t>(iter, f_float);
  });
  return out;  // allocated by the iterator
}

// out = f(grad_output, x) for floating dtypes (the backward kernels); returns the new tensor.
template <typename F>
Tensor binary_float(const Tensor& grad_output, const Tensor& x, const char* op, const F& f) {
  Tensor out;
  auto iter = binary_iter(out, grad_output, x, op);
  TL_DISPATCH_FLOAT(iter.common_dtype(), op, [&] { math_kernel<scalar_t>(iter, f); });
  return out;  // allocated by the iterator
}

}  // namespace tl::native::activation
