// The public convolutions (conv1d/2d/3d, their padding='same'/'valid' overloads, conv_transpose1d/2d/3d)
// on top of the one `convolution` op: unbatched inputs get a batch dim of 1, and 'same' padding
// becomes symmetric padding (an odd total pads one more at the end: the convolution runs with one
// more on both sides and the first output position is dropped). Complex inputs are convolved as
// PyTorch does, with three real convolutions (Gauss's trick), so their gradients (conjugate
// Wirtinger) and double backward come from the real convolution's.
#include <string>
#include <utility>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/complex.h"
#include "generated/ops/add.h"
#include "generated/ops/conv1d.h"
#include "generated/ops/conv2d.h"
#include "generated/ops/conv3d.h"
#include "generated/ops/conv_transpose1d.h"
#include "generated/ops/conv_transpose2d.h"
#include "generated/ops/conv_transpose3d.h"
#include "generated/ops/convolution.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/select.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {

namespace {

// The real and imaginary parts of a complex tensor, as views (the composite's inputs carry no
// conjugate bit: the dispatcher resolves them first).
std::pair<Tensor, Tensor> real_parts(const Tensor& z) {
  const Tensor r = view_as_real(z);
  return {select(r, -1, 0), select(r, -1, 1)};
}

// conv(x, W, b) for complex x, W, b from three real convolutions:
//   a = conv(xr, Wr, br), b = conv(xi, Wi), c = conv(xr + xi, Wr + Wi, br + bi)
//   re = a - b, im = c - a - b
// (PyTorch's complex_convolution; 3/4 of the four-product form's work).
Tensor complex_convolution(const char* op, const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups) {
  TL_CHECK(weight.dtype() == x.dtype(), op, ": Input type (", scalar_type_name(x.dtype()), ") and weight type (",
           scalar_type_name(weight.dtype()), ") should be the same");
  TL_CHECK(!bias || bias->dtype() == x.dtype(), op, ": Input type (", scalar_type_name(x.dtype()), ") and bias type (",
           scalar_type_name(bias->dtype()), ") should be the same");
  const auto [xr, xi] = real_parts(x);
  const auto [wr, wi] = real_parts(weight);
  std::optional<Tensor> br, bsum;
  if (bias) {
    const auto [r, i] = real_parts(*bias);
    br = r;
    bsum = add(r, i);
  }
  const Tensor a = convolution(xr, wr, br, stride, padding, dilation, transposed, output_padding, groups);
  const Tensor b = convolution(xi, wi, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  const Tensor c =
      convolution(add(xr, xi), add(wr, wi), bsum, stride, padding, dilation, transposed, output_padding, groups);
  // In place (sub records no saved tensor, and convolution saves its inputs, not its result): two fresh
  // output-sized buffers fewer, whose page faults cost more than the subtractions (conv2d 8x16x32x32 -> 32:
  // ~1000 faults a call, 8.4 -> 6.5 ms of CPU time for the combination under load).
  const Tensor im = sub_(sub_(c, a), b);
  const Tensor re = sub_(a, b);
  // complex() has no float16 -> complex32 form: PyTorch's own a - b + i * (c - a - b) there.
  if (re.dtype() == ScalarType::Float16) return add(re, mul(im, Scalar(std::complex<double>(0, 1))));
  return complex(re, im);
}

Tensor conv_nd(const char* op, int64_t nsp, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
               bool transposed, IntArrayRef output_padding, int64_t groups) {
  const bool batched = input.dim() == nsp + 2;
  TL_CHECK(batched || input.dim() == nsp + 1, op, ": Expected ", nsp + 1, "D (unbatched) or ", nsp + 2,
           "D (batched) input to ", op, ", but got input of size: ", input.sizes());
  const Tensor x = batched ? input : unsqueeze(input, 0);
  const Tensor y =
      is_complex_type(x.dtype())
          ? complex_convolution(op, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
          : convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  return batched ? y : squeeze(y, 0);
}

DimVector per_dim(IntArrayRef v, int64_t nsp) {
  return v.size() == 1 ? DimVector(static_cast<size_t>(nsp), v[0]) : DimVector(v);
}

Tensor conv_nd_mode(const char* op, int64_t nsp, const Tensor& input, const Tensor& weight,
                    const std::optional<Tensor>& bias, IntArrayRef stride, std::string_view padding,
                    IntArrayRef dilation, int64_t groups) {
  const DimVector zeros(static_cast<size_t>(nsp), 0);
  if (padding == "valid") return conv_nd(op, nsp, input, weight, bias, stride, zeros, dilation, false, zeros, groups);
  TL_CHECK(padding == "same", op, ": Invalid padding string: '", std::string(padding), "'");
  for (int64_t s : stride) TL_CHECK(s == 1, op, ": padding='same' is not supported for strided convolutions");
  TL_CHECK(weight.dim() == nsp + 2, op, ": Expected ", nsp + 2, "-dimensional weight, but got weight of size ",
           weight.sizes());
  const DimVector dil = per_dim(dilation, nsp);
  DimVector pad(static_cast<size_t>(nsp), 0);
  std::vector<int64_t> odd;  // dims whose total padding is odd
  for (int64_t i = 0; i < nsp; ++i) {
    const int64_t total = dil[i] * (weight.sizes()[2 + i] - 1);
    pad[i] = total / 2 + total % 2;
    if (total % 2) odd.push_back(i);
  }
  Tensor y = conv_nd(op, nsp, input, weight, bias, stride, pad, dil, false, zeros, groups);
  // Dims padded one more on the left than 'same' asks: the first window position is not wanted.
  for (int64_t i : odd) {
    const int64_t d = y.dim() - nsp + i;
    y = narrow(y, d, 1, y.sizes()[d] - 1);
  }
  return y;
}

}  // namespace

Tensor conv1d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, false, {0}, groups);
}
Tensor conv2d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, false, {0, 0}, groups);
}
Tensor conv3d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, false, {0, 0, 0}, groups);
}

Tensor conv1d_padding_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d_padding_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d_padding_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  return conv_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}
Tensor conv_transpose2d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  return conv_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}
Tensor conv_transpose3d_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  return conv_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

}  // namespace tl::native
