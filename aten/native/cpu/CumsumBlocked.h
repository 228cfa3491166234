// cumsum of one long contiguous float32 slice. PyTorch's serial loop (accumulating in double) is
// bound by the latency of its chain of adds, one per element. Here each block of 4 elements is
// summed locally first (off the chain) and the running total takes one add per block. The sums
// stay in double, so rounding them to float hides the reassociation: results equal PyTorch's
// except, rarely, by one ulp in an element of a very long slice. One pass, one thread: results
// never depend on the thread count.
#pragma once
#include <cstdint>

namespace tl::native {

constexpr int64_t kCumsumBlockedMin = 1 << 16;  // shorter slices keep the plain serial loop

inline void cumsum_blocked(const float* x, float* y, int64_t n) {
  double carry = 0.0;  // the sum of every element before the block
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {  // named locals, not an array: they stay in registers
    const double a0 = x[i], a1 = a0 + x[i + 1], a2 = a1 + x[i + 2], a3 = a2 + x[i + 3];
    y[i] = static_cast<float>(carry + a0);
    y[i + 1] = static_cast<float>(carry + a1);
    y[i + 2] = static_cast<float>(carry + a2);
    y[i + 3] = static_cast<float>(carry + a3);
    carry += a3;
  }
  for (; i < n; ++i) {
    carry += static_cast<double>(x[i]);
    y[i] = static_cast<float>(carry);
  }
}

}  // namespace tl::native
