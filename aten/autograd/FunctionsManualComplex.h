// Derivative helpers for the complex ops (abs, angle), in PyTorch's convention: for a real loss L
// and z = x + iy the gradient is dL/dx + i dL/dy (the conjugate Wirtinger derivative times 2).
// Written with real ops and complex()/real()/imag(), so they stay differentiable.
#pragma once
#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl::autograd::generated {

// abs: grad * sign(self) for real self; grad * z/|z| (0 at z = 0) for complex self.
Tensor abs_backward(const Tensor& grad, const Tensor& self);
// angle: zeros for real self; grad * (-y + ix)/|z|^2 (0 at z = 0) for complex self.
Tensor angle_backward(const Tensor& grad, const Tensor& self);
// sgn: zeros for real self; complex self raises NotImplementedError (needs complex arithmetic).
Tensor sgn_backward(const Tensor& grad, const Tensor& self);

// _fft_r2c: the inverse complex transform of grad, real part; a onesided grad is first padded
// with zeros to the input's length in the last transformed dim.
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes);
// _fft_c2r: the onesided real-to-complex transform of grad, with the entries whose mirror images
// the forward's Hermitian fill produced (1 .. n - n//2 - 1 of the last dim) counted twice.
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);

}  // namespace tl::autograd::generated
