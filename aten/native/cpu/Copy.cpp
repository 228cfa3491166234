// copy_, _to_copy, clone, and the dtype-conversion loops the TensorIterator uses.
#include <algorithm>
#include <cstring>
#include <optional>

#include "aten/core/Layout.h"
#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/core/Warning.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/core/MathBits.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/neg.h"

namespace tl::native {
namespace {

template <typename To, typename From>
TL_TARGET_CLONES void convert_contiguous(To* dst, const From* src, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<To, From>(src[i]);
}

template <typename To, typename From>
void convert_strided(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<To*>(dst + i * ds) = cast_value<To, From>(*reinterpret_cast<const From*>(src + i * ss));
}

template <typename T>
void copy_strided_same(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<T*>(dst + i * ds) = *reinterpret_cast<const T*>(src + i * ss);
}

template <typename T>
TL_TARGET_CLONES void broadcast_fill(T* dst, T v, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = v;
}

struct Bytes16 {  // a complex128 element, moved as a whole
  uint64_t w[2];
};

void copy_same_dtype(size_t item, char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  const int64_t it = static_cast<int64_t>(item);
  if (ds == it && ss == it) {
    std::memmove(dst, src, static_cast<size_t>(n) * item);
    return;
  }
  switch (item) {
    case 1:
      if (ss == 0 && ds == 1) return (void)std::memset(dst, *src, static_cast<size_t>(n));
      return copy_strided_same<uint8_t>(dst, ds, src, ss, n);
    case 2:
      if (ss == 0 && ds == 2) return broadcast_fill(reinterpret_cast<uint16_t*>(dst), *reinterpret_cast<const uint16_t*>(src), n);
      return copy_strided_same<uint16_t>(dst, ds, src, ss, n);
    case 4:
      if (ss == 0 && ds == 4) return broadcast_fill(reinterpret_cast<uint32_t*>(dst), *reinterpret_cast<const uint32_t*>(src), n);
      return copy_strided_same<uint32_t>(dst, ds, src, ss, n);
    case 8:
      if (ss == 0 && ds == 8) return broadcast_fill(reinterpret_cast<uint64_t*>(dst), *reinterpret_cast<const uint64_t*>(src), n);
      return copy_strided_same<uint64_t>(dst, ds, src, ss, n);
    default:  // 16: complex128
      return copy_strided_same<Bytes16>(dst, ds, src, ss, n);
  }
}

// Same-dtype 2-D copy where one side is contiguous along dim 0 and the other along dim 1 (a
// transpose): 64 x 64 tiles, inner loop along dim 0, tile columns split over threads.
template <typename T>
void copy_2d_tiled(char* dst, const char* src, int64_t n0, int64_t n1, int64_t ds0, int64_t ds1, int64_t ss0,
                   int64_t ss1) {
  constexpr int64_t B = 64;
  const int64_t ncols = (n1 + B - 1) / B;
  parallel_for(0, ncols, std::max<int64_t>(1, kGrainSize / (B * n0)), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t j0 = c * B, j1 = std::min(n1, j0 + B);
      for (int64_t i0 = 0; i0 < n0; i0 += B) {
        const int64_t i1 = std::min(n0, i0 + B);
        for (int64_t j = j0; j < j1; ++j) {
          char* d = dst + j * ds1;
          const char* s = src + j * ss1;
          for (int64_t i = i0; i < i1; ++i)
            *reinterpret_cast<T*>(d + i * ds0) = *reinterpret_cast<const T*>(s + i * ss0);
        }
      }
    }
  });
}

// Transposing same-dtype copies (x.t().contiguous()); false when the geometry is not that.
bool try_copy_transpose(TensorIterator& iter, ScalarType dt) {
  if (iter.ndim() != 2 || iter.iter_size(0) < 64 || iter.iter_size(1) < 64) return false;
  const int64_t item = static_cast<int64_t>(element_size(dt));
  const int64_t ds0 = iter.stride_bytes(0, 0), ds1 = iter.stride_bytes(0, 1);
  const int64_t ss0 = iter.stride_bytes(1, 0), ss1 = iter.stride_bytes(1, 1);
  if (!((ds0 == item && ss1 == item) || (ss0 == item && ds1 == item))) return false;
  // A broadcast source (stride 0, as expand(...).contiguous()) is not a transpose: the 1-D runs fill it.
  if (ss0 == 0 || ss1 == 0) return false;
  char* d = iter.data_ptr(0);
  const char* s = iter.data_ptr(1);
  const int64_t n0 = iter.iter_size(0), n1 = iter.iter_size(1);
  switch (item) {
    case 1: copy_2d_tiled<uint8_t>(d, s, n0, n1, ds0, ds1, ss0, ss1); break;
    case 2: copy_2d_tiled<uint16_t>(d, s, n0, n1, ds0, ds1, ss0, ss1); break;
    case 4: copy_2d_tiled<uint32_t>(d, s, n0, n1, ds0, ds1, ss0, ss1); break;
    case 8: copy_2d_tiled<uint64_t>(d, s, n0, n1, ds0, ds1, ss0, ss1); break;
    default: copy_2d_tiled<Bytes16>(d, s, n0, n1, ds0, ds1, ss0, ss1); break;  // complex128
  }
  return true;
}

}  // namespace

void convert_elements(ScalarType dst_t, void* dst, int64_t dst_stride, ScalarType src_t, const void* src,
                      int64_t src_stride, int64_t n) {
  if (n <= 0) return;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (dst_t == src_t) return copy_same_dtype(element_size(dst_t), d, dst_stride, s, src_stride, n);
  // complex32 <-> complex64, both contiguous: 2n float16 <-> float32 parts through the vectorized
  // conversions (the element-wise ComplexHalf path converts each part with Half's scalar code).
  if (dst_t == ScalarType::Complex64 && src_t == ScalarType::Complex32 && dst_stride == 8 && src_stride == 4)
    return convert_contiguous<float, Half>(reinterpret_cast<float*>(d), reinterpret_cast<const Half*>(s), 2 * n);
  if (dst_t == ScalarType::Complex32 && src_t == ScalarType::Complex64 && dst_stride == 4 && src_stride == 8)
    return convert_contiguous<Half, float>(reinterpret_cast<Half*>(d), reinterpret_cast<const float*>(s), 2 * n);
  TL_DISPATCH_EVERY_DTYPE(dst_t, "copy_", [&] {
    using dst_type = scalar_t;
    TL_DISPATCH_EVERY_DTYPE(src_t, "copy_", [&] {
      using src_type = scalar_t;
      if (dst_stride == static_cast<int64_t>(sizeof(dst_type)) && src_stride == static_cast<int64_t>(sizeof(src_type))) {
        convert_contiguous<dst_type, src_type>(reinterpret_cast<dst_type*>(d), reinterpret_cast<const src_type*>(s), n);
      } else {
        convert_strided<dst_type, src_type>(d, dst_stride, s, src_stride, n);
      }
    });
  });
}

void scalar_to_buffer(const Scalar& s, ScalarType t, void* dst) {
  TL_DISPATCH_EVERY_DTYPE(t, "scalar_to_buffer", [&] { *static_cast<scalar_t*>(dst) = scalar_cast<scalar_t>(s); });
}

const Tensor& copy_kernel(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  TL_CHECK(self.defined() && src.defined(), "copy_: expected defined tensors");
  if (self.is_meta()) {
    DimVector shape = infer_size(self.sizes(), src.sizes(), "copy_");
    TL_CHECK(shape == self.sizes(), "copy_: output with shape ", self.sizes(), " doesn't match the broadcast shape ",
             shape.ref());
    return self;
  }
  TL_CHECK(!src.is_meta(), "copy_: Cannot copy out of meta tensor; no data!");
  if (self.is_same(src)) return self;
  // Lazy conjugate/negative bits (aten/core/MathBits.h): the memory of `self` receives the logical value
  // of `src` with self's own bits applied; with the same bits on both, the memory is copied as it is.
  const uint8_t dst_bits = self.math_bits(), src_bits = src.math_bits();
  if (dst_bits != 0 || src_bits != 0) {
    if (dst_bits == src_bits) {
      copy_kernel(math_bits::physical(self), math_bits::physical(src), false);
      return self;
    }
    Tensor value = empty_tensor(self.sizes(), self.dtype());
    copy_kernel(value, math_bits::resolved(src), false);
    if ((dst_bits & TensorImpl::kConjBit) && is_complex_type(value.dtype())) conj_physical_(value);
    if (dst_bits & TensorImpl::kNegBit) neg_(value);
    copy_kernel(math_bits::physical(self), value, false);
    return self;
  }
  if (is_complex_type(src.dtype()) && !is_complex_type(self.dtype())) {
    warn("Casting complex values to real discards the imaginary part");
  }
  // Same dtype, shape and contiguous layout: a (parallel) memcpy.
  if (self.dtype() == src.dtype() && self.sizes() == src.sizes() && self.is_contiguous() && src.is_contiguous()) {
    char* d = static_cast<char*>(self.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    const size_t nbytes = self.nbytes();
    if (d == s || nbytes == 0) return self;
    TL_CHECK(d + nbytes <= s || s + nbytes <= d,
             "copy_: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
             "single memory location. Please clone() the tensor before performing the operation.");
    parallel_for(0, static_cast<int64_t>(nbytes), int64_t(1) << 20, [&](int64_t b, int64_t e) {
      std::memcpy(d + b, s + b, static_cast<size_t>(e - b));
    });
    return self;
  }
  Tensor out = self;
  auto iter = TensorIteratorConfig()
                  .set_op_name("copy_")
                  .add_output(out)
                  .add_input(src)
                  .promote_inputs_to_common_dtype(false)
                  .enforce_safe_casting_to_output(false)
                  .cast_common_dtype_to_outputs(false)
                  .resize_outputs(false)
                  .build();
  const ScalarType dt = self.dtype(), st = src.dtype();
  if (dt == st && iter.numel() > 0 && try_copy_transpose(iter, dt)) return self;
  iter.for_each([dt, st](char** data, const int64_t* strides, int64_t n) {
    convert_elements(dt, data[0], strides[0], st, data[1], strides[1], n);
  });
  return self;
}

// Like PyTorch's _to_copy with memory_format=preserve_format: the copy keeps self's layout
// (x.t().double().stride() == x.t().stride() for dense x); see preserve_format_strides.
Tensor to_copy_kernel(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType dt = dtype.value_or(self.dtype());
  const Device dev = device.value_or(self.device());
  TL_CHECK(!(self.is_meta() && !dev.is_meta()), "_to_copy: Cannot copy out of meta tensor; no data!");
  Tensor result = empty_like_preserve(self, dt, dev);
  if (dev.is_meta()) return result;
  copy_kernel(result, self, false);
  return result;
}

// A copy with its own storage, keeping self's layout like PyTorch's clone (preserve_format): a
// transposed dense input gives a transposed copy. Use copy_ into a contiguous tensor for
// contiguous().
Tensor clone_kernel(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  Tensor result = !memory_format || *memory_format == MemoryFormat::Preserve
                      ? empty_like_preserve(self, self.dtype(), self.device())
                      : empty_strided_tensor(self.sizes(), strides_for_memory_format(self.sizes(), *memory_format),
                                             self.dtype(), self.device());
  if (self.is_meta()) return result;
  copy_kernel(result, self, false);
  return result;
}

}  // namespace tl::native
