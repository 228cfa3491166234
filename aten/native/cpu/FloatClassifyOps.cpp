// isnan, isinf, isposinf, isneginf, isfinite: bool results classifying each element. Integer and
// bool elements are never NaN or infinite (every one is finite).
#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

enum class Class { NAN_, INF, POSINF, NEGINF, FINITE };

template <Class C, typename T>
TL_ALWAYS_INLINE bool classify(T v) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  if constexpr (C == Class::NAN_) return v != v;
  else if constexpr (C == Class::INF) return std::abs(v) == inf;
  else if constexpr (C == Class::POSINF) return v == inf;
  else if constexpr (C == Class::NEGINF) return v == -inf;
  else return std::abs(v) < inf;  // false for NaN too
}

template <Class C>
void classify_kernel(const Tensor& self, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(self)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)  // out= is checked to be bool
                  .build();
  const ScalarType t = iter.common_dtype();
  if (is_complex_type(t)) {
    // As PyTorch: nan (or inf) if either part is, finite if both parts are; isposinf/isneginf refuse
    // complex input.
    TL_CHECK(C != Class::POSINF && C != Class::NEGINF, op,
             " does not support complex inputs.");
    if (t == ScalarType::Complex32) {  // the float16 parts read as float (exact)
      cpu_kernel(iter, [](ComplexHalf h) -> bool {
        const std::complex<float> v = h.to_cfloat();
        if constexpr (C == Class::NAN_ || C == Class::INF) return classify<C>(v.real()) || classify<C>(v.imag());
        else return classify<Class::FINITE>(v.real()) && classify<Class::FINITE>(v.imag());
      });
      return;
    }
    TL_DISPATCH_COMPLEX(t, op, [&] {
      cpu_kernel(iter, [](scalar_t v) -> bool {
        if constexpr (C == Class::NAN_) return classify<C>(v.real()) || classify<C>(v.imag());
        else if constexpr (C == Class::INF) return classify<C>(v.real()) || classify<C>(v.imag());
        else return classify<Class::FINITE>(v.real()) && classify<Class::FINITE>(v.imag());
      });
    });
    return;
  }
  if (!is_floating_type(t)) {
    TL_DISPATCH_ALL_AND_UNSIGNED(t, op, [&] {
      cpu_kernel(iter, [](scalar_t) -> bool { return C == Class::FINITE; });
    });
    return;
  }
  TL_DISPATCH_FLOAT(t, op, [&] {
    cpu_kernel(iter, [](scalar_t v) -> bool { return classify<C>(to_opmath(v)); });
  });
}

void check_bool_out(const Tensor& out, const char* op) {
  TL_CHECK(!out.defined() || out.dtype() == ScalarType::Bool, op, " does not support non-boolean outputs.");
}

}  // namespace

Tensor isnan_kernel(const Tensor& self) {
  Tensor out;
  classify_kernel<Class::NAN_>(self, out, "isnan");
  return out;
}

Tensor isinf_kernel(const Tensor& self) {
  Tensor out;
  classify_kernel<Class::INF>(self, out, "isinf");
  return out;
}

Tensor isfinite_kernel(const Tensor& self) {
  Tensor out;
  classify_kernel<Class::FINITE>(self, out, "isfinite");
  return out;
}

void isposinf_kernel(const Tensor& self, Tensor& out) {
  check_bool_out(out, "isposinf");
  classify_kernel<Class::POSINF>(self, out, "isposinf");
}

void isneginf_kernel(const Tensor& self, Tensor& out) {
  check_bool_out(out, "isneginf");
  classify_kernel<Class::NEGINF>(self, out, "isneginf");
}

}  // namespace tl::native
