// fill_: sets every element of a tensor (any strides, any dtype) to a number.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

template <typename T>
TL_TARGET_CLONES void fill_contiguous(T* dst, T v, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = v;
}

template <typename T>
void fill_loop(TensorIterator& iter, T v) {
  iter.for_each([v](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == static_cast<int64_t>(sizeof(T))) {
      fill_contiguous(reinterpret_cast<T*>(data[0]), v, n);
    } else {
      char* p = data[0];
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p + i * strides[0]) = v;
    }
  });
}

}  // namespace

const Tensor& fill_kernel(const Tensor& self, const Scalar& value) {
  TL_CHECK(self.defined(), "fill_: expected a defined tensor");
  // Convert (and range-check) first, so meta tensors raise the same errors.
  TL_DISPATCH_EVERY_DTYPE(self.dtype(), "fill_", [&] {
    const scalar_t v = checked_scalar_cast<scalar_t>(value, "fill_");
    if (self.is_meta() || self.numel() == 0) return;
    Tensor out = self;
    auto iter = TensorIteratorConfig()
                    .set_op_name("fill_")
                    .add_output(out)
                    .check_mem_overlap(false)  // like PyTorch: filling an expanded tensor is fine
                    .promote_inputs_to_common_dtype(false)
                    .enforce_safe_casting_to_output(false)
                    .resize_outputs(false)
                    .build();
    // Fill the bit pattern through an unsigned type of the same size (no float conversions).
    if constexpr (sizeof(scalar_t) == 1) {
      uint8_t bits;
      std::memcpy(&bits, &v, 1);
      fill_loop<uint8_t>(iter, bits);
    } else if constexpr (sizeof(scalar_t) == 2) {
      uint16_t bits;
      std::memcpy(&bits, &v, 2);
      fill_loop<uint16_t>(iter, bits);
    } else if constexpr (sizeof(scalar_t) == 4) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      fill_loop<uint32_t>(iter, bits);
    } else if constexpr (sizeof(scalar_t) == 8) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      fill_loop<uint64_t>(iter, bits);
    } else {
      fill_loop<scalar_t>(iter, v);  // complex128
    }
  });
  return self;
}

}  // namespace tl::native
