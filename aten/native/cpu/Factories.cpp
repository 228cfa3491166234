// Factory kernels: empty, empty_strided, arange, rand, randn (CPU and Meta).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "aten/core/Layout.h"
#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/core/Parallel.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/arange.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_strided.h"
#include "generated/ops/rand.h"
#include "generated/ops/randn.h"

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

// ---------------------------------------------------------------------------------------- rand / randn

namespace {

ScalarType random_dtype(std::optional<ScalarType> dtype, const char* op) {
  ScalarType st = dtype.value_or(default_dtype());
  TL_CHECK_AS(NotImplementedError, is_floating_type(st), op, ": not implemented for dtype ", scalar_type_name(st),
              " (expected a floating-point dtype)");
  return st;
}

// Bits of randomness a uniform [0, 1) value of T uses: every value k * 2^-digits is exactly
// representable in T, so the result is never rounded up to 1.
template <typename T> constexpr int uniform_digits() { return std::numeric_limits<T>::digits; }
template <> constexpr int uniform_digits<Half>() { return 11; }
template <> constexpr int uniform_digits<BFloat16>() { return 8; }

template <typename T>
inline T uniform_from_bits(uint64_t bits) {
  constexpr int d = uniform_digits<T>();
  using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
  constexpr acc_t scale = acc_t(1) / static_cast<acc_t>(uint64_t(1) << d);
  return static_cast<T>(static_cast<acc_t>(bits & ((uint64_t(1) << d) - 1)) * scale);
}

// Fills `n` contiguous values with `per_block` values computed from each Philox block.
// fn(block words, out pointer, count) writes up to `per_block` values.
template <typename T, int per_block, typename Fn>
void fill_random(CPUGenerator& gen, T* data, int64_t n, Fn fn) {
  int64_t blocks = (n + per_block - 1) / per_block;
  auto [key, first] = gen.reserve(static_cast<uint64_t>(blocks));
  parallel_for(0, blocks, 2048, [&, key = key, first = first](int64_t b, int64_t e) {
    T tmp[per_block];
    for (int64_t blk = b; blk < e; ++blk) {
      auto words = philox4x32(key, first + static_cast<uint64_t>(blk));
      int64_t base = blk * per_block;
      int64_t count = std::min<int64_t>(per_block, n - base);
      fn(words, tmp);
      for (int64_t j = 0; j < count; ++j) data[base + j] = tmp[j];
    }
  });
}

}  // namespace

Tensor rand_kernel(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                   std::optional<Device> device) {
  // PyTorch quirk kept: on the meta device rand accepts any dtype (randn does not).
  if (device && device->is_meta()) return empty_tensor(size, dtype.value_or(default_dtype()), *device);
  ScalarType st = random_dtype(dtype, "rand");
  Tensor out = empty_tensor(size, st, device_or_cpu(device));
  if (out.is_meta() || out.numel() == 0) return out;
  CPUGenerator& gen = generator_or_default(generator);
  TL_DISPATCH_FLOAT(st, "rand", [&] {
    scalar_t* data = out.data_ptr<scalar_t>();
    if constexpr (std::is_same_v<scalar_t, double>) {
      fill_random<scalar_t, 2>(gen, data, out.numel(), [](const std::array<uint32_t, 4>& w, scalar_t* o) {
        o[0] = uniform_from_bits<double>((uint64_t(w[0]) << 32 | w[1]) >> 11);
        o[1] = uniform_from_bits<double>((uint64_t(w[2]) << 32 | w[3]) >> 11);
      });
    } else {
      fill_random<scalar_t, 4>(gen, data, out.numel(), [](const std::array<uint32_t, 4>& w, scalar_t* o) {
        constexpr int shift = std::max(0, 32 - uniform_digits<scalar_t>());
        for (int j = 0; j < 4; ++j) o[j] = uniform_from_bits<scalar_t>(w[j] >> shift);
      });
    }
  });
  return out;
}

Tensor randn_kernel(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  ScalarType st = random_dtype(dtype, "randn");
  Tensor out = empty_tensor(size, st, device_or_cpu(device));
  if (out.is_meta() || out.numel() == 0) return out;
  // Box-Muller: two uniforms u1 in (0, 1], u2 in [0, 1) give two independent standard normals.
  CPUGenerator& gen = generator_or_default(generator);
  TL_DISPATCH_FLOAT(st, "randn", [&] {
    scalar_t* data = out.data_ptr<scalar_t>();
    if constexpr (std::is_same_v<scalar_t, double>) {
      fill_random<scalar_t, 2>(gen, data, out.numel(), [](const std::array<uint32_t, 4>& w, scalar_t* o) {
        constexpr double k2pi = 6.283185307179586476925286766559;
        double u1 = 1.0 - uniform_from_bits<double>((uint64_t(w[0]) << 32 | w[1]) >> 11);
        double u2 = uniform_from_bits<double>((uint64_t(w[2]) << 32 | w[3]) >> 11);
        double r = std::sqrt(-2.0 * std::log(u1));
        o[0] = r * std::cos(k2pi * u2);
        o[1] = r * std::sin(k2pi * u2);
      });
    } else {
      fill_random<scalar_t, 4>(gen, data, out.numel(), [](const std::array<uint32_t, 4>& w, scalar_t* o) {
        constexpr float k2pi = 6.2831853071795864769f;
        for (int j = 0; j < 4; j += 2) {
          float u1 = 1.0f - uniform_from_bits<float>(w[j] >> 8);
          float u2 = uniform_from_bits<float>(w[j + 1] >> 8);
          float r = std::sqrt(-2.0f * std::log(u1));
          o[j] = static_cast<scalar_t>(r * std::cos(k2pi * u2));
          o[j + 1] = static_cast<scalar_t>(r * std::sin(k2pi * u2));
        }
      });
    }
  });
  return out;
}

}  // namespace tl::native
