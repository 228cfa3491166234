// The public convolutions (conv1d/2d/3d, their padding='same'/'valid' overloads, conv_transpose1d/2d/3d)
// on top of the one `convolution` op: unbatched inputs get a batch dim of 1, and 'same' padding
// becomes symmetric padding (an odd total pads one more at the end: the convolution runs with one
// more on both sides and the first output position is dropped).
#include <string>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/conv1d.h"
#include "generated/ops/conv2d.h"
#include "generated/ops/conv3d.h"
#include "generated/ops/conv_transpose1d.h"
#include "generated/ops/conv_transpose2d.h"
#include "generated/ops/conv_transpose3d.h"
#include "generated/ops/convolution.h"
#include "generated/ops/narrow.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

namespace {

Tensor conv_nd(const char* op, int64_t nsp, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
               bool transposed, IntArrayRef output_padding, int64_t groups) {
  const bool batched = input.dim() == nsp + 2;
  TL_CHECK(batched || input.dim() == nsp + 1, op, ": Expected ", nsp + 1, "D (unbatched) or ", nsp + 2,
           "D (batched) input to ", op, ", but got input of size: ", input.sizes());
  const Tensor x = batched ? input : unsqueeze(input, 0);
  const Tensor y = convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
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
