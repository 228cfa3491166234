// isclose and equal: closeness and exact equality of two tensors.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/all.h"
#include "generated/ops/eq.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {
namespace {

// isclose in one pass, rounding each step to C as PyTorch's composite does tensor by tensor
// (`|self - other| <= atol + |rtol * other|`, finite): C is the input's dtype, or the default
// float dtype for integer and bool inputs (compared exactly first, in their own dtype).
template <typename In, typename C>
void isclose_loop(TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  using M = opmath_t<C>;
  const M r = static_cast<M>(rtol), a = static_cast<M>(atol);
  const bool zero_tolerance = rtol == 0 && atol == 0;
  constexpr M inf = std::numeric_limits<M>::infinity();
  cpu_kernel(iter, [=](In x, In y) -> bool {
    const auto ox = to_opmath(x), oy = to_opmath(y);
    if (ox == oy) return true;
    if constexpr (std::is_floating_point_v<decltype(ox)>) {
      if (equal_nan && ox != ox && oy != oy) return true;
    }
    if (zero_tolerance) return false;
    const M cx = to_opmath(cast_value<C>(x)), cy = to_opmath(cast_value<C>(y));
    const M scaled = to_opmath(from_opmath<C>(r * cy));
    const M allowed = to_opmath(from_opmath<C>(a + std::abs(scaled)));
    const M actual = std::abs(to_opmath(from_opmath<C>(cx - cy)));
    return actual < inf && actual <= allowed;
  });
}

// Complex isclose as PyTorch's composite: equal, or both nan (in either part) with equal_nan, or
// |self - other| <= atol + |rtol * other| with a finite |self - other| (moduli, in the real type).
template <typename Cx>
void complex_isclose_loop(TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  using R = typename Cx::value_type;
  const R r = static_cast<R>(rtol), a = static_cast<R>(atol);
  const bool zero_tolerance = rtol == 0 && atol == 0;
  cpu_kernel(iter, [=](Cx x, Cx y) -> bool {
    if (x.real() == y.real() && x.imag() == y.imag()) return true;
    const bool x_nan = std::isnan(x.real()) || std::isnan(x.imag());
    const bool y_nan = std::isnan(y.real()) || std::isnan(y.imag());
    if (equal_nan && x_nan && y_nan) return true;
    if (zero_tolerance) return false;
    const R actual = std::hypot(x.real() - y.real(), x.imag() - y.imag());
    const R allowed = a + std::hypot(r * y.real(), r * y.imag());
    return std::isfinite(actual) && actual <= allowed;
  });
}

// complex32 as PyTorch's composite runs on it: each step (the difference, the moduli, rtol * |other|,
// atol + that) computed in float and rounded to float16, as the ComplexHalf and Half ops it calls do.
void complex_half_isclose_loop(TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  const float r = static_cast<float>(rtol), a = static_cast<float>(atol);
  const bool zero_tolerance = rtol == 0 && atol == 0;
  const auto h = [](float v) { return static_cast<float>(Half(v)); };
  cpu_kernel(iter, [=](ComplexHalf xh, ComplexHalf yh) -> bool {
    const std::complex<float> x = xh.to_cfloat(), y = yh.to_cfloat();
    if (x.real() == y.real() && x.imag() == y.imag()) return true;
    const bool x_nan = std::isnan(x.real()) || std::isnan(x.imag());
    const bool y_nan = std::isnan(y.real()) || std::isnan(y.imag());
    if (equal_nan && x_nan && y_nan) return true;
    if (zero_tolerance) return false;
    const float actual = h(std::hypot(h(x.real() - y.real()), h(x.imag() - y.imag())));
    const float allowed = h(a + h(r * h(std::hypot(y.real(), y.imag()))));
    return std::isfinite(actual) && actual <= allowed;
  });
}

template <typename T>
bool equal_contiguous(const T* a, const T* b, int64_t n) {
  // A short serial look first: tensors that differ mostly differ early, and answering from here saves
  // starting the threads (a few microseconds, longer than the look).
  constexpr int64_t kPrefix = 256;
  const int64_t head = std::min(n, kPrefix);
  bool head_same = true;
  for (int64_t j = 0; j < head; ++j) head_same &= to_opmath(a[j]) == to_opmath(b[j]);
  if (!head_same) return false;
  std::atomic<bool> same{true};
  parallel_for(head, n, 1 << 16, [&](int64_t begin, int64_t end) {
    constexpr int64_t kBlock = 4096;  // look for an earlier mismatch found by another thread
    for (int64_t i = begin; i < end && same.load(std::memory_order_relaxed); i += kBlock) {
      const int64_t stop = std::min(end, i + kBlock);
      bool block_same = true;
      for (int64_t j = i; j < stop; ++j) block_same &= to_opmath(a[j]) == to_opmath(b[j]);
      if (!block_same) same.store(false, std::memory_order_relaxed);
    }
  });
  return same.load();
}

}  // namespace

Tensor isclose_kernel(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  TL_CHECK(self.dtype() == other.dtype(), "isclose: ", legacy_type_name(self.dtype()), " did not match ",
           legacy_type_name(other.dtype()));
  TL_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but got ", atol);
  Tensor out;
  auto iter = TensorIteratorConfig()
                  .set_op_name("isclose")
                  .add_output(out)
                  .add_input(self)
                  .add_input(other)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .build();
  if (iter.is_meta()) return out;
  if (self.dtype() == ScalarType::Complex32) {
    complex_half_isclose_loop(iter, rtol, atol, equal_nan);
  } else if (is_complex_type(self.dtype())) {
    TL_DISPATCH_COMPLEX(self.dtype(), "isclose", [&] { complex_isclose_loop<scalar_t>(iter, rtol, atol, equal_nan); });
  } else if (is_floating_type(self.dtype())) {
    TL_DISPATCH_FLOAT(self.dtype(), "isclose", [&] { isclose_loop<scalar_t, scalar_t>(iter, rtol, atol, equal_nan); });
  } else {
    const bool dbl = default_dtype() == ScalarType::Float64;
    TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "isclose", [&] {
      if (dbl) isclose_loop<scalar_t, double>(iter, rtol, atol, equal_nan);
      else isclose_loop<scalar_t, float>(iter, rtol, atol, equal_nan);
    });
  }
  return out;
}

bool equal_kernel(const Tensor& self, const Tensor& other) {
  if (self.sizes() != other.sizes()) return false;
  // One dtype and the same dense layout (both contiguous, both transposed...): the elements pair
  // up in memory order, so compare the two blocks flat.
  // PyTorch's CPU equal has no complex32 kernel.
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32 && other.dtype() != ScalarType::Complex32,
              "\"equal_notnan_cpu\" not implemented for 'ComplexHalf'");
  if (self.dtype() == other.dtype() && is_complex_type(self.dtype())) {
    // Complex elements are equal when both parts are: compare the real views.
    return equal_kernel(view_as_real(self), view_as_real(other));
  }
  if (self.dtype() == other.dtype() && self.strides() == other.strides() && is_non_overlapping_and_dense(self)) {
    return TL_DISPATCH_ALL_AND_UNSIGNED(self.dtype(), "equal", [&] {
      return equal_contiguous(self.data_ptr<scalar_t>(), other.data_ptr<scalar_t>(), self.numel());
    });
  }
  // Mixed dtypes or layouts: compare after promotion, as eq does.
  return tensor_item(all(eq(self, other), std::nullopt, false)).to<bool>();
}

}  // namespace tl::native
