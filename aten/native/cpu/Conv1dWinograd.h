// Stride-1, undilated float32 conv1d by Winograd's minimal filtering (docs/kernels/convolution.md):
// F(m, r) computes m outputs of an r-tap correlation from m + r - 1 inputs with m + r - 1
// multiplications instead of m * r, so the channel products shrink to (m + r - 1) / (m * r) of the
// direct ones (F(4, 5): 0.4) at the price of the input and output transforms.
#pragma once
#include <cstdint>

namespace tl::native {

struct Conv1dProblem {
  int64_t batch = 0, groups = 1;
  int64_t in_channels = 0, out_channels = 0;  // in total (groups included)
  int64_t length_in = 0, length_out = 0;
  int64_t kernel = 0, padding = 0;
};

// Whether conv1d_winograd takes this problem (kernel size with a transform, channels and length enough
// that the products dominate the transforms). Stride and dilation 1 are the caller's condition.
bool conv1d_winograd_ok(const Conv1dProblem& pb);

// out (batch, out_channels, length_out) = conv1d(x, w, bias, padding) for contiguous x, w; bias may be null.
void conv1d_winograd(const float* w, const float* x, const float* bias, float* out, const Conv1dProblem& pb);

}  // namespace tl::native
