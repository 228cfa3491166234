// bitwise_and/or/xor/not and the shifts, over bool (and/or/xor/not) and the integer dtypes,
// with type promotion between tensors and numbers (a number takes part as a wrapped Python
// number: `bool_tensor & 1` is int64). Shifts follow PyTorch: a left shift by a count outside
// [0, bit width) gives 0, a right shift by one gives 0 (or -1 for a negative signed value).
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

enum class Bit { AND, OR, XOR, LSHIFT, RSHIFT, NOT };

template <typename T>
TL_ALWAYS_INLINE T left_shift(T a, T b) {
  constexpr int kBits = sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return 0;
  }
  if (b >= static_cast<T>(kBits)) return 0;
  // Shift the unsigned pattern: shifting a negative signed value left is undefined in C++.
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}

template <typename T>
TL_ALWAYS_INLINE T right_shift(T a, T b) {
  constexpr int kBits = sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0 || b >= static_cast<T>(kBits)) return static_cast<T>(a >> (kBits - 1));
  } else {
    if (b >= static_cast<T>(kBits)) return 0;
  }
  return static_cast<T>(a >> b);
}

template <Bit K, typename T>
TL_ALWAYS_INLINE T apply(T a, T b) {
  if constexpr (K == Bit::AND) return static_cast<T>(a & b);
  else if constexpr (K == Bit::OR) return static_cast<T>(a | b);
  else if constexpr (K == Bit::XOR) return static_cast<T>(a ^ b);
  else if constexpr (K == Bit::LSHIFT) return left_shift(a, b);
  else return right_shift(a, b);
}

// Calls body(scalar_t{}) for the dtype: and/or/xor/not take bool too, the shifts integers only.
// Other dtypes raise NotImplementedError.
// Meta iterators stop after the shape work: like PyTorch's meta functions, they accept every dtype.
template <Bit K, typename F>
void dispatch(const TensorIterator& iter, const char* op, const F& body) {
  if (iter.is_meta()) return;
  const ScalarType t = iter.common_dtype();
  if constexpr (K == Bit::LSHIFT || K == Bit::RSHIFT) {
    TL_DISPATCH_SWITCH(t, op, TL_CASES_INTEGRAL([&] { body(scalar_t{}); }));
  } else if constexpr (K == Bit::NOT) {
    TL_DISPATCH_SWITCH(t, op, TL_CASES_INTEGRAL([&] { body(scalar_t{}); }) TL_CASES_BOOL([&] { body(scalar_t{}); }));
  } else {
    // and/or/xor take uint16/32/64 too (PyTorch's barebones unsigned types); not and the shifts do not.
    TL_DISPATCH_SWITCH(t, op, TL_CASES_INTEGRAL([&] { body(scalar_t{}); }) TL_CASES_BOOL([&] { body(scalar_t{}); })
                                  TL_CASES_BAREBONES_UNSIGNED([&] { body(scalar_t{}); }));
  }
}

template <Bit K>
void bitwise_tensor(const Tensor& self, const Tensor& other, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_input(other).build();
  dispatch<K>(iter, op, [&](auto tag) {
    using scalar_t = decltype(tag);
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return apply<K>(a, b); });
  });
}

// The number is converted to the compute dtype first, as PyTorch converts its wrapped number.
template <Bit K>
void bitwise_tensor_scalar(const Tensor& self, const Scalar& other, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(out).add_input(self).add_scalar(other).build();
  dispatch<K>(iter, op, [&](auto tag) {
    using scalar_t = decltype(tag);
    const scalar_t b = scalar_cast<scalar_t>(other);
    cpu_kernel(iter, [b](scalar_t a) -> scalar_t { return apply<K>(a, b); });
  });
}

// The number on the left (`1 << t`); PyTorch has no in-place or out= form of it in Python.
template <Bit K>
Tensor bitwise_scalar_tensor(const Scalar& self, const Tensor& other, const char* op) {
  Tensor out;
  auto iter = TensorIteratorConfig().set_op_name(op).add_output(out).add_scalar(self).add_input(other).build();
  dispatch<K>(iter, op, [&](auto tag) {
    using scalar_t = decltype(tag);
    const scalar_t a = scalar_cast<scalar_t>(self);
    cpu_kernel(iter, [a](scalar_t b) -> scalar_t { return apply<K>(a, b); });
  });
  return out;
}

}  // namespace

#define TL_BITWISE_KERNELS(name, kind)                                                     \
  void name##_kernel(const Tensor& self, const Tensor& other, Tensor& out) {               \
    bitwise_tensor<kind>(self, other, out, #name);                                         \
  }                                                                                        \
  void name##_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) {        \
    bitwise_tensor_scalar<kind>(self, other, out, #name);                                  \
  }                                                                                        \
  Tensor name##_scalar_tensor_kernel(const Scalar& self, const Tensor& other) {             \
    return bitwise_scalar_tensor<kind>(self, other, #name);                                \
  }

TL_BITWISE_KERNELS(bitwise_and, Bit::AND)
TL_BITWISE_KERNELS(bitwise_or, Bit::OR)
TL_BITWISE_KERNELS(bitwise_xor, Bit::XOR)
TL_BITWISE_KERNELS(bitwise_left_shift, Bit::LSHIFT)
TL_BITWISE_KERNELS(bitwise_right_shift, Bit::RSHIFT)
#undef TL_BITWISE_KERNELS

void bitwise_not_kernel(const Tensor& self, Tensor& out) {
  auto iter = TensorIteratorConfig().set_op_name("bitwise_not").add_output(out).add_input(self).build();
  dispatch<Bit::NOT>(iter, "bitwise_not", [&](auto tag) {
    using scalar_t = decltype(tag);
    cpu_kernel(iter, [](scalar_t a) -> scalar_t {
      if constexpr (std::is_same_v<scalar_t, bool>) return !a;
      else return static_cast<scalar_t>(~a);
    });
  });
}

}  // namespace tl::native
