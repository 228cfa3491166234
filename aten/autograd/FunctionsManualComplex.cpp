#include "aten/autograd/FunctionsManualComplex.h"

#include <vector>

#include "generated/ops/_fft_c2c.h"
#include "generated/ops/_fft_r2c.h"
#include "generated/ops/abs.h"
#include "generated/ops/cat.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_real.h"
#include "generated/ops/add.h"
#include "generated/ops/complex.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/imag.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/neg.h"
#include "generated/ops/real.h"
#include "generated/ops/sign.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {

namespace {
// grad / d where d != 0, else 0 (the derivative PyTorch takes at z = 0).
Tensor safe_scale(const Tensor& grad, const Tensor& d) {
  return where(eq(d, Scalar(0.0)), zeros_like(grad), div(grad, d));
}
}  // namespace

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex_type(self.dtype())) return mul(grad, sign(self));
  Tensor g = safe_scale(grad, abs(self));
  return complex(mul(g, real(self)), mul(g, imag(self)));
}

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex_type(self.dtype())) return zeros_like(grad);
  Tensor x = real(self), y = imag(self);
  Tensor g = safe_scale(grad, add(mul(x, x), mul(y, y)));
  return complex(mul(g, neg(y)), mul(g, x));
}

Tensor sgn_backward(const Tensor& grad, const Tensor& self) {
  TL_CHECK_AS(NotImplementedError, !is_complex_type(self.dtype()),
              "the derivative of sgn for complex tensors is not implemented in torchlite");
  return zeros_like(grad);
}

namespace {
int64_t wrap(int64_t d, int64_t ndim) { return d < 0 ? d + ndim : d; }
}  // namespace

Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes) {
  Tensor full = grad;
  if (onesided) {
    // The onesided result is the first half of the full transform: its gradient is the full one
    // with zeros for the half the forward dropped. Padded through the real view (pad is real-only).
    const int64_t last = wrap(dim.back(), grad.dim());
    const int64_t missing = self_sizes[last] - grad.sizes()[last];
    if (missing > 0) {
      std::vector<int64_t> pad(2 * (grad.dim() + 1), 0);
      pad[2 * (grad.dim() - last) + 1] = missing;  // pairs from the last dim of the real view backwards
      full = view_as_complex(constant_pad_nd(view_as_real(grad), pad, 0));
    }
  }
  return real(_fft_c2c(full, dim, normalization, /*forward=*/false));
}

Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  Tensor g = _fft_r2c(grad, dim, normalization, /*onesided=*/true);
  const int64_t last = wrap(dim.back(), grad.dim());
  const int64_t n = grad.sizes()[last], half = g.sizes()[last];
  const int64_t twice = n - half;  // entries 1 .. twice stand for two values of the full spectrum
  if (twice <= 0) return g;
  Tensor r = view_as_real(g);  // [..., 2]: scale along `last` by 1, 2 .. 2, 1 ..
  std::vector<Tensor> parts;
  parts.push_back(narrow(r, last, 0, 1));
  parts.push_back(mul(narrow(r, last, 1, twice), Scalar(2.0)));
  if (half - 1 - twice > 0) parts.push_back(narrow(r, last, 1 + twice, half - 1 - twice));
  return view_as_complex(contiguous(cat(parts, last)));
}

}  // namespace tl::autograd::generated
