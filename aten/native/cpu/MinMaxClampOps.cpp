// Elementwise selection between inputs: maximum, minimum (NaN propagates), fmax, fmin (NaN is
// ignored), and clamp / clamp_min / clamp_max with number or tensor bounds.
//
// Written as selects on the compute type so the loops vectorize; ties return the second operand
// (maximum(0.0, -0.0) is -0.0), as PyTorch's vectorized kernels do.
#include <optional>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

template <typename T>
TL_ALWAYS_INLINE T max_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a != a || a > b) ? a : b;
  else return a > b ? a : b;
}
template <typename T>
TL_ALWAYS_INLINE T min_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a != a || a < b) ? a : b;
  else return a < b ? a : b;
}
template <typename T>
TL_ALWAYS_INLINE T max_ignore_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (b != b || a > b) ? a : b;
  else return a > b ? a : b;
}
template <typename T>
TL_ALWAYS_INLINE T min_ignore_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (b != b || a < b) ? a : b;
  else return a < b ? a : b;
}

TensorIterator binary_iter(Tensor& out, const Tensor& self, const Tensor& other, const char* op) {
  return TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_input(other).build();
}

// out = pick(self, other) elementwise, every dtype (bool: or / and).
template <bool kMax, bool kNan>
void select_binary(const Tensor& self, const Tensor& other, Tensor& out, const char* op) {
  auto iter = binary_iter(out, self, other, op);
  TL_DISPATCH_ALL(iter.common_dtype(), op, [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      if constexpr (std::is_same_v<scalar_t, bool>) {
        return kMax ? (a || b) : (a && b);
      } else {
        using opmath = opmath_t<scalar_t>;
        const opmath x = to_opmath(a), y = to_opmath(b);
        opmath r;
        if constexpr (kMax) r = kNan ? max_propagate_nan(x, y) : max_ignore_nan(x, y);
        else r = kNan ? min_propagate_nan(x, y) : min_ignore_nan(x, y);
        return from_opmath<scalar_t>(r);
      }
    });
  });
}

void check_not_bool(ScalarType t, const char* op, const char* kernel_name) {
  if (t == ScalarType::Bool) throw NotImplementedError(str(op, ": \"", kernel_name, "\" not implemented for 'Bool'"));
}

// Clamp to number bounds: min(max(x, lo), hi); a NaN x or bound gives NaN.
template <typename scalar_t>
void clamp_scalar_loop(TensorIterator& iter, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                       const char* op) {
  using opmath = opmath_t<scalar_t>;
  const opmath l = lo ? to_opmath(checked_scalar_cast<scalar_t>(*lo, op)) : opmath(0);
  const opmath h = hi ? to_opmath(checked_scalar_cast<scalar_t>(*hi, op)) : opmath(0);
  if (lo && hi) {
    cpu_kernel(iter, [l, h](scalar_t a) -> scalar_t {
      return from_opmath<scalar_t>(min_propagate_nan(max_propagate_nan(to_opmath(a), l), h));
    });
  } else if (lo) {
    cpu_kernel(iter, [l](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(max_propagate_nan(to_opmath(a), l)); });
  } else {
    cpu_kernel(iter, [h](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(min_propagate_nan(to_opmath(a), h)); });
  }
}

void clamp_scalar_impl(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                       Tensor& out, const char* op) {
  TensorIteratorConfig config;
  // With number bounds PyTorch's clamp is a unary op: an out= tensor must have the result dtype exactly
  // (with tensor bounds it is a ternary op that casts to out).
  config.set_op_name(op).add_output(out).add_input(self).check_exact_output_dtype(true);
  if (lo) config.add_scalar(*lo);
  if (hi) config.add_scalar(*hi);
  auto iter = config.build();
  check_not_bool(iter.common_dtype(), op,
                 lo && hi ? "clamp_scalar_cpu" : lo ? "clamp_min_scalar_cpu" : "clamp_max_scalar_cpu");
  TL_DISPATCH_NUMERIC(iter.common_dtype(), op, [&] { clamp_scalar_loop<scalar_t>(iter, lo, hi, op); });
}

void clamp_tensor_impl(const Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi,
                       Tensor& out, const char* op) {
  TensorIteratorConfig config;
  config.set_op_name(op).add_output(out).add_input(self);
  if (lo) config.add_input(*lo);
  if (hi) config.add_input(*hi);
  auto iter = config.build();
  // One bound on bool tensors is maximum / minimum (or / and), as PyTorch; two are refused.
  if (iter.common_dtype() == ScalarType::Bool) {
    check_not_bool(lo && hi ? ScalarType::Bool : ScalarType::Undefined, op, "clamp_cpu");
    if (lo) cpu_kernel(iter, [](bool a, bool l) -> bool { return a || l; });
    else cpu_kernel(iter, [](bool a, bool h) -> bool { return a && h; });
    return;
  }
  TL_DISPATCH_NUMERIC(iter.common_dtype(), op, [&] {
    using opmath = opmath_t<scalar_t>;
    if (lo && hi) {
      cpu_kernel(iter, [](scalar_t a, scalar_t l, scalar_t h) -> scalar_t {
        return from_opmath<scalar_t>(min_propagate_nan(max_propagate_nan(to_opmath(a), to_opmath(l)), to_opmath(h)));
      });
    } else if (lo) {
      cpu_kernel(iter, [](scalar_t a, scalar_t l) -> scalar_t {
        return from_opmath<scalar_t>(max_propagate_nan<opmath>(to_opmath(a), to_opmath(l)));
      });
    } else {
      cpu_kernel(iter, [](scalar_t a, scalar_t h) -> scalar_t {
        return from_opmath<scalar_t>(min_propagate_nan<opmath>(to_opmath(a), to_opmath(h)));
      });
    }
  });
}

}  // namespace

void maximum_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  select_binary<true, true>(self, other, out, "maximum");
}
void minimum_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  select_binary<false, true>(self, other, out, "minimum");
}
void fmax_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  select_binary<true, false>(self, other, out, "fmax");
}
void fmin_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  select_binary<false, false>(self, other, out, "fmin");
}

void clamp_kernel(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                  Tensor& out) {
  TL_CHECK(min || max, "clamp: At least one of 'min' or 'max' must not be None");
  clamp_scalar_impl(self, min, max, out, "clamp");
}

void clamp_tensor_kernel(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                         Tensor& out) {
  TL_CHECK(min || max, "clamp: At least one of 'min' or 'max' must not be None");
  clamp_tensor_impl(self, min, max, out, "clamp");
}

void clamp_min_kernel(const Tensor& self, const Scalar& min, Tensor& out) {
  clamp_scalar_impl(self, min, std::nullopt, out, "clamp_min");
}
void clamp_min_tensor_kernel(const Tensor& self, const Tensor& min, Tensor& out) {
  clamp_tensor_impl(self, min, std::nullopt, out, "clamp_min");
}
void clamp_max_kernel(const Tensor& self, const Scalar& max, Tensor& out) {
  clamp_scalar_impl(self, std::nullopt, max, out, "clamp_max");
}
void clamp_max_tensor_kernel(const Tensor& self, const Tensor& max, Tensor& out) {
  clamp_tensor_impl(self, std::nullopt, max, out, "clamp_max");
}

}  // namespace tl::native
