#include "aten/autograd/FunctionsManualConvolution.h"

#include "aten/autograd/FunctionsManual.h"
#include "generated/ops/add.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_backward.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/conj.h"
#include "generated/ops/reshape.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace tl::autograd::generated {

std::tuple<Tensor, Tensor, Tensor> linear_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const std::optional<Tensor>& bias, std::array<bool, 3> mask) {
  Tensor gi, gw, gb;
  if (!grad.defined()) return {gi, gw, gb};
  const int64_t in_f = input.sizes()[input.dim() - 1];
  int64_t rows = 1;  // the flattened batch (explicit: -1 is ambiguous when in_f is 0)
  for (int64_t i = 0; i + 1 < input.dim(); ++i) rows *= input.sizes()[i];
  // Complex: the products' adjoints conjugate the other operand (conj is the tensor itself for real ones).
  if (weight.dim() == 2) {
    const int64_t out_f = weight.sizes()[0];
    if (mask[0]) gi = matmul(grad, conj(weight));
    if (mask[1]) gw = mm(transpose(reshape(grad, {rows, out_f}), 0, 1), conj(reshape(input, {rows, in_f})));
  } else {  // a 1-D weight: the output has no feature dim
    if (mask[0]) gi = mul(unsqueeze(grad, -1), conj(weight));
    if (mask[1]) gw = matmul(reshape(grad, {rows}), conj(reshape(input, {rows, in_f})));
  }
  if (mask[2] && bias) gb = sum_to(grad, bias->sizes());
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_from_forward(
    const Tensor& grad, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> mask) {
  if (!grad.defined()) return {Tensor(), Tensor(), Tensor()};
  OptionalIntArrayRef bias_sizes;
  if (bias) bias_sizes = bias->sizes();
  return convolution_backward(grad, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                              groups, {mask[0], mask[1], mask[2] && bias.has_value()});
}

std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& grad_output, const Tensor& input,
    const Tensor& weight, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> mask) {
  Tensor ggO, gI, gW;
  auto accumulate = [](Tensor& acc, const Tensor& t) { acc = acc.defined() ? add(acc, t) : t; };
  if (mask[0]) {
    // d/d grad_output of <ggI, gI> + <ggW, gW> + <ggb, gb>: the forward applied to each perturbation.
    if (ggI.defined())
      accumulate(ggO, convolution(ggI, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
    if (ggW.defined())
      accumulate(ggO, convolution(input, ggW, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
    if (ggb.defined()) {
      DimVector shape(static_cast<size_t>(grad_output.dim()), 1);
      shape[1] = ggb.numel();
      const Tensor b = reshape(ggb, shape);
      ggO = ggO.defined() ? add(ggO, b) : add(mul(grad_output, 0), b);
    }
  }
  // <ggW, gW(gO, I)> = <conv(I, ggW), gO>: its input gradient is the input gradient for weight ggW.
  if (mask[1] && ggW.defined())
    gI = std::get<0>(convolution_backward(grad_output, input, ggW, std::nullopt, stride, padding, dilation, transposed,
                                          output_padding, groups, {true, false, false}));
  // <ggI, gI(gO, W)> = <conv(ggI, W), gO>: its weight gradient is the weight gradient for input ggI.
  if (mask[2] && ggI.defined())
    gW = std::get<1>(convolution_backward(grad_output, ggI, weight, std::nullopt, stride, padding, dilation, transposed,
                                          output_padding, groups, {false, true, false}));
  return {ggO, gI, gW};
}

}  // namespace tl::autograd::generated
