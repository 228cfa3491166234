// A direct depthwise convolution (groups == input channels, any channel multiplier) for 1-d and 2-d
// problems in float32/float64: forward, input gradient and weight gradient (DepthwiseConv.cpp).
// ConvolutionKernels.cpp sends qualifying shapes here; everything else keeps im2col + GEMM, where
// a depthwise problem is one shallow (K-deep) product per channel.
#pragma once
#include <cstdint>

namespace tl::native::depthwise {

// One problem in 2-d terms (a 1-d problem has H = OH = KH = 1). Channel c_out reads input channel
// c_out / mult; the weight is (channels * mult, 1, KH, KW), contiguous; planes are contiguous NCHW.
struct Problem {
  int64_t batch = 0, channels = 0, mult = 1;  // channels: the input's
  int64_t H = 1, W = 1, OH = 1, OW = 1;
  int64_t KH = 1, KW = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// out (batch, channels * mult, OH, OW) = depthwise correlation of x (batch, channels, H, W) plus bias (or none).
template <typename T>
void forward(const T* x, const T* w, const T* bias, T* out, const Problem& p);

// From grad_output go (batch, channels * mult, OH, OW): gi (batch, channels, H, W), gw (channels * mult,
// 1, KH, KW) and gb (channels * mult), each skipped when null. The weight and bias gradients are summed
// in a fixed order (blocks of images, each channel's blocks added in order), so they do not depend on
// the thread count; one pass reads each grad_output plane once for all three.
template <typename T>
void backward(const T* go, const T* x, const T* w, T* gi, T* gw, T* gb, const Problem& p);

}  // namespace tl::native::depthwise
