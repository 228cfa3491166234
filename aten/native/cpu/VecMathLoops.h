// cpu_kernel_guarded: a vectorized fast op with a scalar fallback for rare inputs.
//
//   cpu_kernel_guarded(iter, fast, rare, slow);
//
// Each 1-D run is cut into blocks of 1024 elements; a block where `rare(inputs...)` holds for
// some element runs `slow` (scalar libm) on the whole block, the others run `fast` with
// cpu_kernel's vectorized loops. The block is scanned before it is written, so outputs that
// alias inputs are fine. Used where a branch-free formula covers the common inputs only (sin
// of |x| > 2^20 needs a longer reduction; pow has libm's many special cases).
#pragma once
#include <algorithm>
#include <utility>

#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace vecmath_detail {

template <typename P, size_t... I>
TL_TARGET_CLONES bool any_rare(char* const* data, const int64_t* strides, int64_t n, const P& rare,
                               std::index_sequence<I...>) {
  using traits = function_traits<P>;
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    any |= rare(*reinterpret_cast<const typename traits::template arg<I>*>(data[1 + I] + i * strides[1 + I])...);
  }
  return any;
}

}  // namespace vecmath_detail

template <typename F, typename P, typename S>
void cpu_kernel_guarded(TensorIterator& iter, const F& fast, const P& rare, const S& slow) {
  constexpr size_t arity = function_traits<F>::arity;
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t kBlock = 1024;
    char* block[arity + 1];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      for (size_t k = 0; k <= arity; ++k) block[k] = data[k] + b * strides[k];
      if (vecmath_detail::any_rare(block, strides, m, rare, std::make_index_sequence<arity>{})) {
        BasicLoop<S, false>{slow}(block, strides, m);
      } else {
        BasicLoop<F>{fast}(block, strides, m);
      }
    }
  });
}

}  // namespace tl::native
