// linspace and logspace (Scalar and 0-d tensor bounds, functional and out=). Values are bit for
// bit PyTorch's: its CPU kernels compute element i from the nearer end (start + step * i in the
// first half, end - step * (steps - 1 - i) in the second). linspace steps in the element type for
// floating dtypes with the multiply-add fused (its kernel is compiled with FMA contraction), with
// per-operation rounding for float16/bfloat16 (c10::Half arithmetic rounds every step), and in
// double for integer dtypes, truncated on the store; logspace computes the exponent in double,
// unfused, and stores pow(base, x). arange is in Factories.cpp.
#include <cmath>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/FactoryOptions.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/fill.h"
#include "generated/ops/linspace.h"
#include "generated/ops/logspace.h"

namespace tl::native {

namespace {

// The dtype and device of the result; the out= tensor's own when given (a dtype that differs
// from it is PyTorch's "dtype Double does not match dtype of out parameter (Long)").
void prepare_range_output(Tensor& out, int64_t steps, std::optional<ScalarType> dtype, std::optional<Device> device,
                          Device fallback, const char* op) {
  TL_CHECK(steps >= 0, op, ": number of steps must be non-negative");
  if (out.defined()) {
    TL_CHECK(!dtype || *dtype == out.dtype(), op, ": dtype ", scalar_type_name(*dtype),
             " does not match dtype of out parameter (", scalar_type_name(out.dtype()), ")");
  }
  const ScalarType st = out.defined() ? out.dtype() : dtype.value_or(default_dtype());
  const Device dev = device.value_or(out.defined() ? out.device() : fallback);
  prepare_output(out, {op, DimVector{steps}, st, dev, OutDtype::Any});
}

// Runs `write(data)` on a contiguous buffer of out's dtype, then stores it into `out`.
template <typename F>
void write_range(const Tensor& out, F write) {
  const Tensor buf = out.is_contiguous() ? out : empty_tensor(out.sizes(), out.dtype(), out.device());
  write(buf);
  if (!buf.is_same(out)) commit_output(out, buf);
}

// c10::Half / c10::BFloat16 arithmetic: each operation in float, rounded back to the type.
template <typename T>
T round_to(float v) {
  return from_opmath<T>(v);
}

// x86's conversion of an out-of-range double (what PyTorch's plain casts compile to), without
// undefined behaviour; in range it truncates. A plain double -> uint8_t store goes through int32
// (2^40 stores 0), unlike the int64 route of PyTorch's copy_ that cast_value follows.
template <typename T>
T store_as(double v) {
  if constexpr (std::is_same_v<T, uint8_t>) return static_cast<uint8_t>(cast_value<int32_t, double>(v));
  else if constexpr (std::is_integral_v<T>) return cast_value<T, double>(v);
  else if constexpr (is_reduced_float_v<T>) return from_opmath<T>(static_cast<float>(v));
  else return static_cast<T>(v);
}

template <typename T>
void linspace_fill(T* data, const Scalar& start_s, const Scalar& end_s, int64_t steps) {
  const T start = checked_scalar_cast<T>(start_s, "linspace");
  const T end = checked_scalar_cast<T>(end_s, "linspace");
  const int64_t halfway = steps / 2;
  if constexpr (is_reduced_float_v<T>) {
    const float fs = static_cast<float>(start), fe = static_cast<float>(end);
    const T step = round_to<T>(static_cast<float>(round_to<T>(fe - fs)) /
                               static_cast<float>(round_to<T>(static_cast<float>(steps - 1))));
    const float fstep = static_cast<float>(step);
    parallel_for(0, steps, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const bool first_half = i < halfway;
        const float k = static_cast<float>(round_to<T>(static_cast<float>(first_half ? i : steps - 1 - i)));
        const float delta = static_cast<float>(round_to<T>(fstep * k));
        data[i] = round_to<T>(first_half ? fs + delta : fe - delta);
      }
    });
  } else {
    // Floating types step in their own type, integers in double.
    using step_t = std::conditional_t<std::is_integral_v<T>, double, T>;
    const step_t s = static_cast<step_t>(start), en = static_cast<step_t>(end);
    const step_t step = (en - s) / static_cast<step_t>(steps - 1);
    parallel_for(0, steps, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const step_t v = i < halfway ? std::fma(step, static_cast<step_t>(i), s)
                                     : std::fma(-step, static_cast<step_t>(steps - 1 - i), en);
        data[i] = store_as<T>(static_cast<double>(v));
      }
    });
  }
}

template <typename T>
void logspace_fill(T* data, const Scalar& start_s, const Scalar& end_s, int64_t steps, double base) {
  const T start = checked_scalar_cast<T>(start_s, "logspace");
  const T end = checked_scalar_cast<T>(end_s, "logspace");
  // end - start in the element type first (rounded for 16-bit floats, wrapping for integers),
  // then in double, as PyTorch's kernel.
  double span;
  if constexpr (is_reduced_float_v<T>) {
    span = static_cast<float>(round_to<T>(static_cast<float>(end) - static_cast<float>(start)));
  } else if constexpr (std::is_integral_v<T> && sizeof(T) < sizeof(int)) {
    span = static_cast<int>(end) - static_cast<int>(start);  // C++ promotes to int: no wrap
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    span = static_cast<double>(static_cast<T>(static_cast<U>(end) - static_cast<U>(start)));  // wraps
  } else {
    span = static_cast<double>(end - start);
  }
  const double step = span / static_cast<double>(steps - 1);
  const double ds = static_cast<double>(static_cast<opmath_t<T>>(start));
  const double de = static_cast<double>(static_cast<opmath_t<T>>(end));
  const int64_t halfway = steps / 2;
  parallel_for(0, steps, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      // Not fused: PyTorch's logspace is compiled without FMA (it is not a cpu/ kernel).
      const double x = i < halfway ? ds + step * static_cast<double>(i)
                                   : de - step * static_cast<double>(steps - 1 - i);
      data[i] = store_as<T>(std::pow(base, x));
    }
  });
}

Device tensor_bound_device(std::initializer_list<const Tensor*> bounds) {
  for (const Tensor* t : bounds) {
    if (t && t->is_meta()) return Device(DeviceType::Meta);
  }
  return Device(DeviceType::CPU);
}

// A 0-d tensor bound as a Scalar: PyTorch reads it with item(). A meta result needs no value.
Scalar bound_value(const Tensor& t) { return t.is_meta() ? Scalar(0.0) : tensor_item(t); }

void check_bounds_dims(const Tensor* start, const Tensor* end, const char* op) {
  if (start && end) {
    TL_CHECK(start->dim() == 0 && end->dim() == 0, op,
             " only supports 0-dimensional start and end tensors, but got start with ", start->dim(),
             " dimension(s) and end with ", end->dim(), " dimension(s).");
  } else if (start) {
    TL_CHECK(start->dim() == 0, op, " only supports 0-dimensional start and end tensors, but got start with ",
             start->dim(), " dimension(s).");
  } else if (end) {
    TL_CHECK(end->dim() == 0, op, " only supports 0-dimensional start and end tensors, but got end with ",
             end->dim(), " dimension(s).");
  }
}

void linspace_impl(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                   std::optional<Device> device, Device fallback, Tensor& out) {
  prepare_range_output(out, steps, dtype, device, fallback, "linspace");
  if (out.is_meta() || steps == 0) return;
  if (steps == 1) {
    fill_kernel(out, start);  // PyTorch fills: any dtype, start checked against it
    return;
  }
  write_range(out, [&](const Tensor& buf) {
    TL_DISPATCH_NUMERIC(buf.dtype(), "linspace", [&] { linspace_fill(buf.data_ptr<scalar_t>(), start, end, steps); });
  });
}

void logspace_impl(const Scalar& start, const Scalar& end, int64_t steps, double base,
                   std::optional<ScalarType> dtype, std::optional<Device> device, Device fallback, Tensor& out) {
  prepare_range_output(out, steps, dtype, device, fallback, "logspace");
  if (out.is_meta() || steps == 0) return;
  if (steps == 1) {
    fill_kernel(out, Scalar(std::pow(base, start.to_double())));
    return;
  }
  write_range(out, [&](const Tensor& buf) {
    TL_DISPATCH_NUMERIC(buf.dtype(), "logspace",
                        [&] { logspace_fill(buf.data_ptr<scalar_t>(), start, end, steps, base); });
  });
}

}  // namespace

void linspace_kernel(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                     std::optional<Layout> /*strided only*/, std::optional<Device> device,
                     std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  linspace_impl(start, end, steps, dtype, device, Device(DeviceType::CPU), out);
}

void linspace_tensor_tensor_kernel(const Tensor& start, const Tensor& end, int64_t steps,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(&start, &end, "linspace");
  linspace_impl(bound_value(start), bound_value(end), steps,
                dtype, device, tensor_bound_device({&start, &end}), out);
}

void linspace_tensor_scalar_kernel(const Tensor& start, const Scalar& end, int64_t steps,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(&start, nullptr, "linspace");
  linspace_impl(bound_value(start), end, steps, dtype, device,
                tensor_bound_device({&start}), out);
}

void linspace_scalar_tensor_kernel(const Scalar& start, const Tensor& end, int64_t steps,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(nullptr, &end, "linspace");
  linspace_impl(start, bound_value(end), steps, dtype, device,
                tensor_bound_device({&end}), out);
}

void logspace_kernel(const Scalar& start, const Scalar& end, int64_t steps, double base,
                     std::optional<ScalarType> dtype, std::optional<Layout> /*strided only*/,
                     std::optional<Device> device, std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  logspace_impl(start, end, steps, base, dtype, device, Device(DeviceType::CPU), out);
}

void logspace_tensor_tensor_kernel(const Tensor& start, const Tensor& end, int64_t steps, double base,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(&start, &end, "logspace");
  logspace_impl(bound_value(start), bound_value(end), steps,
                base, dtype, device, tensor_bound_device({&start, &end}), out);
}

void logspace_tensor_scalar_kernel(const Tensor& start, const Scalar& end, int64_t steps, double base,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(&start, nullptr, "logspace");
  logspace_impl(bound_value(start), end, steps, base, dtype, device,
                tensor_bound_device({&start}), out);
}

void logspace_scalar_tensor_kernel(const Scalar& start, const Tensor& end, int64_t steps, double base,
                                   std::optional<ScalarType> dtype, std::optional<Layout>, std::optional<Device> device,
                                   std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  check_bounds_dims(nullptr, &end, "logspace");
  logspace_impl(start, bound_value(end), steps, base, dtype, device,
                tensor_bound_device({&end}), out);
}

}  // namespace tl::native
