// The random ops: in-place samplers (uniform_, normal_, random_, bernoulli_, exponential_,
// geometric_, log_normal_, cauchy_), the factories built on them (rand, randn, randint, randperm)
// and bernoulli/normal with tensor parameters. Every draw comes from the generator in
// PyTorch's order (the tensor's memory order, one element after the other), under its lock, so
// the numbers are PyTorch's for the same seed (docs/random.md).
#include <cmath>
#include <limits>
#include <optional>

#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/BoxMullerFill.h"
#include "aten/native/cpu/Distributions.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/add.h"
#include "generated/ops/amin.h"
#include "generated/ops/bernoulli.h"
#include "generated/ops/cauchy.h"
#include "generated/ops/exponential.h"
#include "generated/ops/geometric.h"
#include "generated/ops/log_normal.h"
#include "generated/ops/mul.h"
#include "generated/ops/normal.h"
#include "generated/ops/rand.h"
#include "generated/ops/randn.h"
#include "generated/ops/random.h"
#include "generated/ops/randperm.h"
#include "generated/ops/uniform.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {
namespace {

// Runs fn() -> T for every element of `self` in memory order, storing each result.
template <typename T, typename Fn>
void serial_fill(const Tensor& self, const char* op, Fn fn) {
  Tensor out = self;
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(out).resize_outputs(false).build();
  iter.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(data[0] + i * strides[0]) = fn();
      },
      0, iter.numel());
}

void check_float_dtype(const Tensor& self, const char* op) {
  if (!is_floating_type(self.dtype()))
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
}

}  // namespace

// ---------------------------------------------------------------------------------------- uniform_, normal_

const Tensor& uniform_kernel(const Tensor& self, double from, double to, std::optional<Generator> generator) {
  if (is_complex_type(self.dtype())) {
    // As PyTorch: both parts uniform in [from, to), drawn through the real view (so the stream is the
    // real tensor's of twice the length, part by part).
    uniform_kernel(view_as_real_kernel(self), from, to, generator);
    return self;
  }
  check_float_dtype(self, "uniform_");
  TL_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  TL_DISPATCH_FLOAT(self.dtype(), "uniform_", [&] {
    using A = dist::acc_t<scalar_t>;
    const double limit = dist::max_finite<scalar_t>();
    TL_CHECK(to - from <= limit, "uniform_ expects to-from <= numeric_limits<", scalar_type_name(self.dtype()),
             ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
    if (self.is_meta() || self.numel() == 0) return;
    // from and to are rounded to the tensor's dtype first, as PyTorch does.
    const A lo = static_cast<A>(static_cast<scalar_t>(from)), hi = static_cast<A>(static_cast<scalar_t>(to));
    CPUGenerator& g = generator_or_default(generator);
    auto guard = g.lock();
    serial_fill<scalar_t>(self, "uniform_", [&] {
      const auto v = static_cast<scalar_t>(dist::uniform_real<scalar_t>(g, lo, hi));
      // float16/bfloat16: a float draw that rounds up to `to` becomes `from`, keeping [from, to) (PyTorch).
      if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
        if (static_cast<A>(v) == hi) return static_cast<scalar_t>(lo);
      }
      return v;
    });
  });
  return self;
}

const Tensor& normal_kernel(const Tensor& self, double mean, double std, std::optional<Generator> generator) {
  TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) return self;  // PyTorch returns before its dtype check
  if (is_complex_type(self.dtype())) {
    // As PyTorch: each part normal with std / sqrt(2) (so E|z - mean|^2 = std^2), through the real view.
    normal_kernel(view_as_real_kernel(self), mean, std / std::sqrt(2.0), generator);
    return self;
  }
  check_float_dtype(self, "normal_");
  if (self.is_meta()) return self;
  CPUGenerator& g = generator_or_default(generator);
  TL_DISPATCH_FLOAT(self.dtype(), "normal_", [&] {
    auto guard = g.lock();
    if (self.numel() >= 16 && self.is_contiguous()) {
      dist::normal_fill<scalar_t>(g, self.data_ptr<scalar_t>(), self.numel(), mean, std);
    } else {
      serial_fill<scalar_t>(self, "normal_", [&] { return static_cast<scalar_t>(dist::normal(g, mean, std)); });
    }
  });
  return self;
}

Tensor rand_kernel(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                   std::optional<Device> device) {
  // PyTorch quirk kept: on the meta device rand accepts any dtype (randn does not).
  if (device && device->is_meta()) return empty_tensor(size, dtype.value_or(default_dtype()), *device);
  Tensor out = empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device(DeviceType::CPU)));
  if (!is_complex_type(out.dtype())) check_float_dtype(out, "rand");
  uniform_kernel(out, 0.0, 1.0, generator);
  return out;
}

Tensor randn_kernel(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  Tensor out = empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device(DeviceType::CPU)));
  if (!is_complex_type(out.dtype())) check_float_dtype(out, "randn");
  normal_kernel(out, 0.0, 1.0, generator);
  return out;
}

// ---------------------------------------------------------------------------------------- random_

namespace {

// [from, to_inc] must hold values of `dtype`. For floating dtypes PyTorch only warns (integers
// beyond 2^mantissa bits are rounded), so torchlite accepts them.
void check_from_to_in_range(int64_t from, int64_t to_inc, ScalarType dtype) {
  if (is_floating_type(dtype)) return;
  const auto name = scalar_type_name(dtype);
  if (dtype == ScalarType::Bool) {
    TL_CHECK(from >= 0 && from <= 1, "from is out of bounds for ", name);
    TL_CHECK(to_inc >= 0 && to_inc <= 1, "to - 1 is out of bounds for ", name);
    return;
  }
  TL_DISPATCH_SWITCH(dtype, "random_", TL_CASES_INTEGRAL([&] {
    const int64_t lo = static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest());
    const int64_t hi = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
    TL_CHECK(from >= lo && from <= hi, "from is out of bounds for ", name);
    TL_CHECK(to_inc >= lo && to_inc <= hi, "to - 1 is out of bounds for ", name);
  }));
}

void random_from_to_fill(const Tensor& self, uint64_t range, int64_t base, std::optional<Generator> generator) {
  if (self.is_meta() || self.numel() == 0) return;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_ALL(self.dtype(), "random_", [&] {
    serial_fill<scalar_t>(self, "random_", [&] { return dist::int_from_to<scalar_t>(g, range, base); });
  });
}

}  // namespace

const Tensor& random_from_kernel(const Tensor& self, int64_t from, std::optional<int64_t> to,
                                 std::optional<Generator> generator) {
  const ScalarType st = self.dtype();
  if (to) {
    TL_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    check_from_to_in_range(from, *to - 1, st);
    random_from_to_fill(self, static_cast<uint64_t>(*to) - static_cast<uint64_t>(from), from, generator);
    return self;
  }
  if (from == std::numeric_limits<int64_t>::lowest()) {  // all of int64: 2^64 values
    TL_CHECK(st == ScalarType::Int64 || st == ScalarType::Float64 || st == ScalarType::Float32 ||
                 st == ScalarType::BFloat16,
             "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
    if (self.is_meta() || self.numel() == 0) return self;
    CPUGenerator& g = generator_or_default(generator);
    auto guard = g.lock();
    TL_DISPATCH_ALL(st, "random_", [&] {
      serial_fill<scalar_t>(self, "random_", [&] { return dist::int_full_64<scalar_t>(g); });
    });
    return self;
  }
  // [from, the largest value of the dtype]
  int64_t to_inc = 0;
  if (is_floating_type(st)) {
    TL_DISPATCH_FLOAT(st, "random_", [&] { to_inc = int64_t(1) << dist::digits<scalar_t>(); });
    TL_CHECK(from < to_inc, "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
             "dtype, but got from=", from, " > to_inc=", to_inc);
  } else if (st == ScalarType::Bool) {
    to_inc = 1;
  } else {
    TL_DISPATCH_SWITCH(st, "random_", TL_CASES_INTEGRAL([&] {
      to_inc = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
    }));
  }
  check_from_to_in_range(from, to_inc, st);
  random_from_to_fill(self, static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1, from, generator);
  return self;
}

const Tensor& random_to_kernel(const Tensor& self, int64_t to, std::optional<Generator> generator) {
  return random_from_kernel(self, 0, to, generator);
}

const Tensor& random_kernel(const Tensor& self, std::optional<Generator> generator) {
  if (self.is_meta() || self.numel() == 0) return self;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_ALL(self.dtype(), "random_", [&] {
    serial_fill<scalar_t>(self, "random_", [&] { return dist::int_full<scalar_t>(g); });
  });
  return self;
}

// ---------------------------------------------------------------------------------------- other distributions

namespace {

// A float-dtype in-place sampler drawing one double per element.
template <typename Draw>
const Tensor& sample_doubles(const Tensor& self, const char* op, std::optional<Generator> generator, Draw draw) {
  if (self.numel() == 0) return self;  // PyTorch returns before its dtype check
  check_float_dtype(self, op);
  if (self.is_meta()) return self;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    serial_fill<scalar_t>(self, op, [&] { return static_cast<scalar_t>(draw(g)); });
  });
  return self;
}

}  // namespace

const Tensor& exponential_kernel(const Tensor& self, double lambd, std::optional<Generator> generator) {
  TL_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  // PyTorch refuses other dtypes with a RuntimeError (not its NotImplementedError of a missing loop).
  TL_CHECK(self.numel() == 0 || is_floating_type(self.dtype()),
           "exponential_: Exponential distribution is a continuous probability distribution. dtype must be a floating "
           "point but you specified ", legacy_type_name(self.dtype()));
  return sample_doubles(self, "exponential_", generator, [&](CPUGenerator& g) { return dist::exponential(g, lambd); });
}

const Tensor& geometric_kernel(const Tensor& self, double p, std::optional<Generator> generator) {
  TL_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (self.is_meta() || self.numel() == 0) return self;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_NUMERIC(self.dtype(), "geometric_", [&] {
    serial_fill<scalar_t>(self, "geometric_", [&] { return static_cast<scalar_t>(dist::geometric(g, p)); });
  });
  return self;
}

const Tensor& log_normal_kernel(const Tensor& self, double mean, double std, std::optional<Generator> generator) {
  TL_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  return sample_doubles(self, "log_normal_", generator, [&](CPUGenerator& g) { return dist::log_normal(g, mean, std); });
}

const Tensor& cauchy_kernel(const Tensor& self, double median, double sigma, std::optional<Generator> generator) {
  TL_CHECK(is_floating_type(self.dtype()), "Cauchy distribution is a continuous probability distribution. dtype must "
           "be a floating point but you specified ", legacy_type_name(self.dtype()));
  return sample_doubles(self, "cauchy_", generator, [&](CPUGenerator& g) { return dist::cauchy(g, median, sigma); });
}

// ---------------------------------------------------------------------------------------- bernoulli

const Tensor& bernoulli_float_kernel(const Tensor& self, double p, std::optional<Generator> generator) {
  TL_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self.is_meta() || self.numel() == 0) return self;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_ALL(self.dtype(), "bernoulli_", [&] {
    serial_fill<scalar_t>(self, "bernoulli_", [&] { return static_cast<scalar_t>(dist::bernoulli(g, p)); });
  });
  return self;
}

const Tensor& bernoulli_tensor_kernel(const Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  if (self.numel() == 0) return self;  // PyTorch returns before its dtype check
  TL_CHECK_AS(NotImplementedError, is_floating_type(p.dtype()), "bernoulli_: not implemented for dtype ",
              scalar_type_name(p.dtype()), " of p");
  Tensor out = self;
  auto iter = TensorIteratorConfig()
                  .set_op_name("bernoulli_")
                  .add_output(out)
                  .add_input_keep_dtype(p)
                  .resize_outputs(false)
                  .cast_common_dtype_to_outputs(false)
                  .enforce_safe_casting_to_output(false)
                  .build();
  if (self.is_meta() || self.numel() == 0) return self;
  CPUGenerator& g = generator_or_default(generator);
  auto guard = g.lock();
  TL_DISPATCH_ALL(self.dtype(), "bernoulli_", [&] {
    using self_t = scalar_t;
    TL_DISPATCH_FLOAT(p.dtype(), "bernoulli_", [&] {
      iter.serial_for_each(
          [&](char** data, const int64_t* strides, int64_t n) {
            for (int64_t i = 0; i < n; ++i) {
              const scalar_t pv = *reinterpret_cast<const scalar_t*>(data[1] + i * strides[1]);
              TL_CHECK(static_cast<double>(pv) >= 0 && static_cast<double>(pv) <= 1,
                       "bernoulli_: every probability must be in [0, 1], but got ", static_cast<double>(pv));
              // A double p draws 53 bits; every other dtype of p draws a float (24 bits).
              const bool hit = std::is_same_v<scalar_t, double>
                                   ? dist::bernoulli(g, static_cast<double>(pv)) != 0
                                   : dist::bernoulli_float(g, static_cast<float>(pv)) != 0;
              *reinterpret_cast<self_t*>(data[0] + i * strides[0]) = static_cast<self_t>(hit);
            }
          },
          0, iter.numel());
    });
  });
  return self;
}

// Both draw into a fresh contiguous result (or the out= tensor), as PyTorch does.
void bernoulli_kernel(const Tensor& self, std::optional<Generator> generator, Tensor& out) {
  prepare_output(out, {"bernoulli", self.sizes(), self.dtype(), self.device(), OutDtype::Any});
  bernoulli_tensor_kernel(out, self, generator);
}

Tensor bernoulli_p_kernel(const Tensor& self, double p, std::optional<Generator> generator) {
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  bernoulli_float_kernel(out, p, generator);
  return out;
}

// ---------------------------------------------------------------------------------------- normal with tensors
// As PyTorch: draw standard (or N(0, std)) samples into a contiguous result first, then scale
// and shift by the tensors, so the stream is the same as normal_'s.

namespace {

void check_std_tensor(const Tensor& std) {
  if (std.numel() == 0 || std.is_meta()) return;
  TL_CHECK(tensor_item(amin(std)).to<double>() >= 0.0, "normal expects all elements of std >= 0.0");
}

// The result (contiguous when fresh, else the out= tensor) of `shape` and `like`'s dtype.
void prepare_normal_output(Tensor& out, IntArrayRef shape, const Tensor& like) {
  prepare_output(out, {"normal", shape, like.dtype(), like.device(), OutDtype::Any});
}

}  // namespace

void normal_tensor_float_kernel(const Tensor& mean, double std, std::optional<Generator> generator, Tensor& out) {
  TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  // PyTorch broadcasts mean with an out= tensor's current shape (an empty out= of another shape raises).
  prepare_normal_output(out, out.defined() ? broadcast_shapes(mean.sizes(), out.sizes()) : DimVector(mean.sizes()),
                        mean);
  normal_kernel(out, 0.0, std, generator);
  add_(out, mean);
}

void normal_float_tensor_kernel(double mean, const Tensor& std, std::optional<Generator> generator, Tensor& out) {
  check_std_tensor(std);
  prepare_normal_output(out, std.sizes(), std);
  if (out.numel() == 0) return;
  normal_kernel(out, 0.0, 1.0, generator);
  add_(mul_(out, std), mean);
}

void normal_tensor_tensor_kernel(const Tensor& mean, const Tensor& std, std::optional<Generator> generator,
                                 Tensor& out) {
  check_std_tensor(std);
  prepare_normal_output(out, broadcast_shapes(mean.sizes(), std.sizes()), mean);
  normal_kernel(out, 0.0, 1.0, generator);
  add_(mul_(out, std), mean);
}

Tensor normal_float_float_kernel(double mean, double std, IntArrayRef size, std::optional<Generator> generator,
                                 std::optional<ScalarType> dtype, std::optional<Device> device) {
  TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor out = empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device(DeviceType::CPU)));
  return normal_kernel(out, mean, std, generator);
}

// ---------------------------------------------------------------------------------------- randperm

Tensor randperm_kernel(int64_t n, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  TL_CHECK(n >= 0, "randperm: n must be non-negative, got", n);
  const ScalarType st = dtype.value_or(ScalarType::Int64);
  const int64_t shape[] = {n};
  Tensor out = empty_tensor(IntArrayRef(shape, 1), st, device.value_or(Device(DeviceType::CPU)));
  TL_DISPATCH_NUMERIC(st, "randperm", [&] {
    if constexpr (!std::is_same_v<scalar_t, Half> && !std::is_same_v<scalar_t, BFloat16>) {
      TL_CHECK(n == 0 || static_cast<double>(n - 1) <= static_cast<double>(std::numeric_limits<scalar_t>::max()),
               "randperm: n is too large for result tensor type: '", scalar_type_name(st), "'");
    } else {
      TL_CHECK(n <= (int64_t(1) << dist::digits<scalar_t>()) + 1,
               "randperm: n is too large for result tensor type: '", scalar_type_name(st), "'");
    }
    if (out.is_meta() || n == 0) return;
    scalar_t* r = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i) r[i] = static_cast<scalar_t>(i);
    CPUGenerator& g = generator_or_default(generator);
    auto guard = g.lock();
    // Fisher-Yates with PyTorch's draws: a 32-bit draw modulo the remaining count.
    for (int64_t i = 0; i + 1 < n; ++i) {
      const int64_t z = static_cast<int64_t>(g.random() % static_cast<uint64_t>(n - i));
      std::swap(r[i], r[z + i]);
    }
  });
  return out;
}

}  // namespace tl::native
