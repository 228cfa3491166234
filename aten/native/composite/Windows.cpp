// The window functions (hann, hamming, blackman, bartlett, kaiser), composites of tl:: ops in
// PyTorch's order of operations. PyTorch computes each of its in-place steps in float32 for 16-bit
// dtypes and stores the step's result in the dtype: `step` does the same (float32 arithmetic, one
// rounding per step), so 16-bit windows round as PyTorch's do. Kaiser is PyTorch's one-pass kernel:
// computed in float32 (float64 for float64) and rounded once.
//
// N = window_length + 1 when `periodic` (the result drops the last point: one period of an N-point
// symmetric window), else window_length. Lengths 0 and 1 give [] and [1]; meta tensors get their
// shape only, as PyTorch's short cut.
#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/FactoryOptions.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/bartlett_window.h"
#include "generated/ops/blackman_window.h"
#include "generated/ops/copy.h"
#include "generated/ops/cos.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/full.h"
#include "generated/ops/hamming_window.h"
#include "generated/ops/hann_window.h"
#include "generated/ops/i0.h"
#include "generated/ops/kaiser_window.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ones.h"
#include "generated/ops/pow.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/sub.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Window {
  ScalarType dtype;
  Device device;
  int64_t length;  // window_length
  int64_t n;       // the symmetric window's length N
  bool periodic;
};

// PyTorch's window_function_checks, then the trivial lengths: returns false when `out` is the result.
bool window_setup(const char* name, int64_t length, bool periodic, std::optional<ScalarType> dtype,
                  std::optional<Device> device, std::optional<bool> pin_memory, Window& w, Tensor& out) {
  const ScalarType st = dtype.value_or(default_dtype());
  TL_CHECK(is_floating_type(st), name, " expects floating point dtypes, got: ", scalar_type_name(st));
  TL_CHECK(length >= 0, name, " requires non-negative window_length, got window_length=", length);
  check_pin_memory(pin_memory);
  const Device dev = device.value_or(Device(DeviceType::CPU));
  if (dev.is_meta() || length == 0) {
    out = empty(IntArrayRef{length}, st, dev);
    return false;
  }
  if (length == 1) {
    out = ones(IntArrayRef{1}, st, dev);
    return false;
  }
  // The periodic window is the symmetric one of length + 1 (no int64 overflow: such a length could
  // never be allocated anyway).
  TL_CHECK(!periodic || length < std::numeric_limits<int64_t>::max(), name, ": window_length=", length,
           " is too large");
  w = Window{st, dev, length, periodic ? length + 1 : length, periodic};
  return true;
}

// 0, 1, ..., N-1 in the window's dtype.
Tensor positions(const Window& w) { return arange(0, w.n, 1, w.dtype, w.device); }

bool reduced(const Window& w) { return w.dtype != ScalarType::Float32 && w.dtype != ScalarType::Float64; }
// The operand of a step: float32 for 16-bit windows.
Tensor up(const Window& w, const Tensor& t) { return reduced(w) ? to(t, ScalarType::Float32) : t; }
// A step's result, stored in the window's dtype.
Tensor down(const Window& w, const Tensor& t) { return reduced(w) ? to(t, w.dtype) : t; }
// A constant of a step: PyTorch's C++ code passes it as a Scalar, which the op rounds to the tensor's
// dtype first (2 pi / (N - 1) in float16 for a float16 window).
Tensor constant(const Window& w, double v) { return up(w, full(IntArrayRef{}, v, w.dtype, w.device)); }

Tensor finish(const Window& w, const Tensor& full_window) {
  return w.periodic ? narrow(full_window, 0, 0, w.n - 1) : full_window;
}

Tensor hamming(const char* name, int64_t length, bool periodic, double alpha, double beta,
               std::optional<ScalarType> dtype, std::optional<Device> device, std::optional<bool> pin_memory) {
  Window w;
  Tensor out;
  if (!window_setup(name, length, periodic, dtype, device, pin_memory, w, out)) return out;
  // alpha - beta cos(2 pi i / (N - 1)), as arange.mul_(2 pi / (N - 1)).cos_().mul_(-beta).add_(alpha)
  Tensor t = down(w, mul(up(w, positions(w)), constant(w, kPi * 2.0 / static_cast<double>(w.n - 1))));
  t = down(w, cos(up(w, t)));
  t = down(w, mul(up(w, t), constant(w, -beta)));
  return finish(w, down(w, add(up(w, t), constant(w, alpha))));
}

Tensor blackman(int64_t length, bool periodic, std::optional<ScalarType> dtype, std::optional<Device> device,
                std::optional<bool> pin_memory) {
  Window w;
  Tensor out;
  if (!window_setup("blackman_window", length, periodic, dtype, device, pin_memory, w, out)) return out;
  // t = i pi / (N - 1); 0.08 cos(4t) - 0.5 cos(2t) + 0.42, each product, cosine and sum one step.
  Tensor t = down(w, mul(up(w, positions(w)), constant(w, kPi / static_cast<double>(w.n - 1))));
  auto term = [&](double k, double c) {
    Tensor x = down(w, mul(up(w, t), k));
    x = down(w, cos(up(w, x)));
    return down(w, mul(up(w, x), constant(w, c)));
  };
  Tensor a = term(4, 0.08), b = term(2, 0.5);
  Tensor result = down(w, add(up(w, down(w, sub(up(w, a), up(w, b)))), constant(w, 0.42)));
  return finish(w, result);
}

Tensor bartlett(int64_t length, bool periodic, std::optional<ScalarType> dtype, std::optional<Device> device,
                std::optional<bool> pin_memory) {
  Window w;
  Tensor out;
  if (!window_setup("bartlett_window", length, periodic, dtype, device, pin_memory, w, out)) return out;
  Tensor result = down(w, mul(up(w, positions(w)), constant(w, 2.0 / static_cast<double>(w.n - 1))));
  // The second half falls back: 2 - 2i / (N - 1) (PyTorch's mul_(-1).add_(2) on that part: the
  // negation is exact, the sum one rounding in the dtype, as add_ computes it in float32).
  const int64_t first_half = ((w.n - 1) >> 1) + 1;
  Tensor tail = narrow(result, 0, first_half, w.n - first_half);
  copy_(tail, down(w, rsub(up(w, tail), 2)));
  return finish(w, result);
}

Tensor kaiser(int64_t length, bool periodic, double beta, std::optional<ScalarType> dtype,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  Window w;
  Tensor out;
  if (!window_setup("kaiser_window", length, periodic, dtype, device, pin_memory, w, out)) return out;
  const ScalarType ct = w.dtype == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  const double a = static_cast<double>(w.n - 1) / 2.0;
  // I0(beta * sqrt(|1 - ((i - a) / a)^2|)) / I0(beta), each step in float32 (float64 for float64).
  Tensor x = div(sub(to(positions(w), ct), a), a);
  Tensor num = i0(mul(sqrt(abs(rsub(pow(x, 2.0), 1))), beta));
  Tensor result = div(num, i0(full(IntArrayRef{}, beta, ct, w.device)));
  return finish(w, ct == w.dtype ? result : to(result, w.dtype));
}

}  // namespace

Tensor hann_window_composite(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout>,
                             std::optional<Device> device, std::optional<bool> pin_memory) {
  return hann_window_periodic_composite(window_length, true, dtype, std::nullopt, device, pin_memory);
}

Tensor hann_window_periodic_composite(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                      std::optional<Layout>, std::optional<Device> device,
                                      std::optional<bool> pin_memory) {
  return hamming("hann_window", window_length, periodic, 0.5, 0.5, dtype, device, pin_memory);
}

Tensor hamming_window_composite(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout>,
                                std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming("hamming_window", window_length, true, 0.54, 0.46, dtype, device, pin_memory);
}

Tensor hamming_window_periodic_composite(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                         std::optional<Layout>, std::optional<Device> device,
                                         std::optional<bool> pin_memory) {
  return hamming("hamming_window", window_length, periodic, 0.54, 0.46, dtype, device, pin_memory);
}

Tensor hamming_window_periodic_alpha_composite(int64_t window_length, bool periodic, double alpha,
                                               std::optional<ScalarType> dtype, std::optional<Layout>,
                                               std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming("hamming_window", window_length, periodic, alpha, 0.46, dtype, device, pin_memory);
}

Tensor hamming_window_periodic_alpha_beta_composite(int64_t window_length, bool periodic, double alpha, double beta,
                                                    std::optional<ScalarType> dtype, std::optional<Layout>,
                                                    std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming("hamming_window", window_length, periodic, alpha, beta, dtype, device, pin_memory);
}

Tensor blackman_window_composite(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout>,
                                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return blackman(window_length, true, dtype, device, pin_memory);
}

Tensor blackman_window_periodic_composite(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                          std::optional<Layout>, std::optional<Device> device,
                                          std::optional<bool> pin_memory) {
  return blackman(window_length, periodic, dtype, device, pin_memory);
}

Tensor bartlett_window_composite(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout>,
                                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return bartlett(window_length, true, dtype, device, pin_memory);
}

Tensor bartlett_window_periodic_composite(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                          std::optional<Layout>, std::optional<Device> device,
                                          std::optional<bool> pin_memory) {
  return bartlett(window_length, periodic, dtype, device, pin_memory);
}

Tensor kaiser_window_composite(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout>,
                               std::optional<Device> device, std::optional<bool> pin_memory) {
  return kaiser(window_length, true, 12.0, dtype, device, pin_memory);
}

Tensor kaiser_window_periodic_composite(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                                        std::optional<Layout>, std::optional<Device> device,
                                        std::optional<bool> pin_memory) {
  return kaiser(window_length, periodic, 12.0, dtype, device, pin_memory);
}

Tensor kaiser_window_beta_composite(int64_t window_length, bool periodic, double beta, std::optional<ScalarType> dtype,
                                    std::optional<Layout>, std::optional<Device> device,
                                    std::optional<bool> pin_memory) {
  return kaiser(window_length, periodic, beta, dtype, device, pin_memory);
}

}  // namespace tl::native
