// Factory kernels: empty, empty_strided, arange (CPU and Meta); the random ones are in RandomKernels.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "aten/core/Layout.h"
#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/arange.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_strided.h"

namespace tl::native {

namespace {
Device device_or_cpu(std::optional<Device> device) { return device.value_or(Device(DeviceType::CPU)); }
}  // namespace

namespace {
// Uninitialised bool memory is zeroed: reading a byte other than 0/1 as bool is undefined
// behaviour (empty(3, dtype=bool).tolist() gives [False, False, False]).
Tensor zero_if_bool(Tensor t) {
  if (t.dtype() == ScalarType::Bool && !t.is_meta() && t.storage()->nbytes > 0)
    std::memset(t.storage()->data(), 0, t.storage()->nbytes);
  return t;
}
}  // namespace

Tensor empty_kernel(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device,
                    std::optional<Layout> /*layout: strided is the only one*/, std::optional<MemoryFormat> memory_format) {
  // empty_tensor -> compute_numel raises "Trying to create tensor with negative dimension -1: [-1, 2]".
  if (memory_format && *memory_format != MemoryFormat::Contiguous) {
    return zero_if_bool(empty_strided_tensor(size, strides_for_memory_format(size, *memory_format),
                                             dtype.value_or(default_dtype()), device_or_cpu(device)));
  }
  return zero_if_bool(empty_tensor(size, dtype.value_or(default_dtype()), device_or_cpu(device)));
}

Tensor empty_strided_kernel(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  TL_CHECK(size.size() == stride.size(), "empty_strided: dimensionality of sizes (", size.size(),
           ") must match dimensionality of strides (", stride.size(), ")");
  compute_numel(size);  // negative sizes: the same message as empty
  for (int64_t s : stride) {
    TL_CHECK(s >= 0, "empty_strided: negative strides are not supported, got strides ", stride);
  }
  return zero_if_bool(empty_strided_tensor(size, stride, dtype.value_or(default_dtype()), device_or_cpu(device)));
}

// ---------------------------------------------------------------------------------------- arange

namespace {

// PyTorch's rules (RangeUtils.h): the bounds are validated as doubles; the length is
// ceil((end - start) / step) in double, except for int64 results, where start/end/step are first
// truncated to integers and the length is computed exactly in integer arithmetic.
template <typename scalar_t>
int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step) {
  const double dstart = start.to<double>(), dend = end.to<double>(), dstep = step.to<double>();
  TL_CHECK(dstep > 0 || dstep < 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(dstart) && std::isfinite(dend), "arange: unsupported range: ", dstart, " -> ", dend);
  TL_CHECK((dstep > 0 && dend >= dstart) || (dstep < 0 && dend <= dstart),
           "arange: upper bound and larger bound inconsistent with step sign");
  double size_d;
  if constexpr (std::is_integral_v<scalar_t>) {
    // As in PyTorch, integer bounds must fit int64 ("value cannot be converted to type int64_t
    // without overflow" for arange(1e308, dtype=int64)).
    checked_scalar_cast<int64_t>(start, "arange");
    checked_scalar_cast<int64_t>(end, "arange");
    checked_scalar_cast<int64_t>(step, "arange");
  }
  if constexpr (std::is_same_v<scalar_t, int64_t>) {
    const int64_t xstart = start.to<int64_t>(), xend = end.to<int64_t>(), xstep = step.to<int64_t>();
    TL_CHECK(xstep != 0, "arange: step must be nonzero");
    const __int128 sgn = (xstep > 0) - (xstep < 0);  // 128-bit: end - start may not fit int64
    size_d = static_cast<double>((static_cast<__int128>(xend) - xstart + xstep - sgn) / xstep);
  } else {
    size_d = std::ceil((dend - dstart) / dstep);
  }
  // 2^63 itself is out of range (a double cannot hold INT64_MAX, which rounds up to it).
  TL_CHECK(size_d >= 0 && size_d < 9223372036854775808.0, "arange: invalid size, possible overflow?");
  return static_cast<int64_t>(size_d);
}

// Writes start + i * step for i < n, rounding exactly as PyTorch's CPU kernel does, so values are
// bit-identical to torch.arange: values are computed as fma(step, i, start) in the accumulate type
// (double for float32/float64, float for float16/bfloat16, int64 for integers); torch's vectorized
// loop computes a base value every V = 32 bytes / sizeof(T) elements (two vectors per iteration),
// rounds it to T, and adds j * step to that rounded base for the rest of the vector; the tail of
// each parallel chunk (chunks as at::parallel_for makes them, grain 32768) uses the direct formula.
template <typename T>
void arange_fill(T* data, int64_t stride, int64_t n, const Scalar& start_s, const Scalar& step_s) {
  if constexpr (std::is_integral_v<T>) {
    // Wrapping (unsigned) arithmetic: step * i may exceed int64 even when start + step * i does
    // not (arange(-2**63, 2**63 - 1, 2**62)); the wrapped sum is then exact.
    const uint64_t start = static_cast<uint64_t>(start_s.to<int64_t>()), step = static_cast<uint64_t>(step_s.to<int64_t>());
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) data[i * stride] = static_cast<T>(static_cast<int64_t>(start + step * static_cast<uint64_t>(i)));
    });
  } else {
    using acc_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, double>;
    const acc_t start = start_s.to<acc_t>(), step = step_s.to<acc_t>();
    constexpr int64_t V = 32 / static_cast<int64_t>(sizeof(T));
    constexpr int64_t kTorchGrain = 32768;
    const int64_t nchunks =
        n > kTorchGrain ? std::min<int64_t>(get_num_threads(), (n + kTorchGrain - 1) / kTorchGrain) : 1;
    const int64_t chunk = (n + nchunks - 1) / nchunks;
    auto at = [&](int64_t i) -> T& { return data[i * stride]; };
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t c0 = c * chunk, c1 = std::min(n, c0 + chunk), len = c1 - c0;
        int64_t i = 0;
        for (; i + 2 * V <= len; i += 2 * V) {
          const int64_t idx = c0 + i;
          const T base = static_cast<T>(std::fma(step, static_cast<acc_t>(idx), start));
          at(idx) = base;
          const acc_t b = static_cast<acc_t>(base);
          for (int64_t j = 1; j < V; ++j) at(idx + j) = static_cast<T>(std::fma(step, static_cast<acc_t>(j), b));
          // the second vector of torch's pair
          const int64_t idx2 = idx + V;
          const T base2 = static_cast<T>(std::fma(step, static_cast<acc_t>(idx2), start));
          at(idx2) = base2;
          const acc_t b2 = static_cast<acc_t>(base2);
          for (int64_t j = 1; j < V; ++j) at(idx2 + j) = static_cast<T>(std::fma(step, static_cast<acc_t>(j), b2));
        }
        for (int64_t k = c0 + i; k < c1; ++k) at(k) = static_cast<T>(std::fma(step, static_cast<acc_t>(k), start));
      }
    });
  }
}

}  // namespace

void arange_kernel(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                   std::optional<Device> device, Tensor& out) {
  ScalarType st;
  if (out.defined()) {
    st = out.dtype();
  } else if (dtype) {
    st = *dtype;
  } else {
    bool integral = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
    st = integral ? ScalarType::Int64 : default_dtype();
  }
  TL_CHECK_AS(NotImplementedError, st != ScalarType::Bool, "arange: not implemented for dtype bool");
  int64_t n = TL_DISPATCH_NUMERIC(st, "arange", [&] { return arange_size<scalar_t>(start, end, step); });
  if (!out.defined()) {
    out = empty_tensor(DimVector{n}, st, device_or_cpu(device));
  } else {
    TL_CHECK(!device || device->type == out.device().type, "arange: expected out on device ", device->str(),
             ", but got ", out.device().str());
    resize_output(out, DimVector{n}, "arange");
  }
  if (out.is_meta() || n == 0) return;
  const int64_t stride = out.dim() == 1 ? out.strides()[0] : 1;
  TL_DISPATCH_NUMERIC(st, "arange", [&] { arange_fill<scalar_t>(out.data_ptr<scalar_t>(), stride, n, start, step); });
}

}  // namespace tl::native
