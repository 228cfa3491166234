// Element types, their properties, promotion, and the dtype-dispatch helper.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "aten/core/Exception.h"
#include "aten/core/Half.h"

namespace tl {

// complex32's element: two float16, real then imaginary (the layout of PyTorch's
// c10::complex<Half>, which view_as_real relies on). A storage type: kernels convert it to
// std::complex<float> to compute and round each part back. Not a std::complex (is_complex_v is
// false for it), so the generic complex kernels never instantiate with it by accident.
struct alignas(4) ComplexHalf {
  Half re, im;
  ComplexHalf() = default;
  ComplexHalf(Half r, Half i) : re(r), im(i) {}
  explicit ComplexHalf(std::complex<float> v) : re(v.real()), im(v.imag()) {}
  std::complex<float> to_cfloat() const { return {static_cast<float>(re), static_cast<float>(im)}; }
};

// X(C++ type, enum name, Python name, itemsize)
// Order matters: it is the enum order and the row/column order of the promotion table.
// The wide unsigned types come after the ten computing types: as in PyTorch they are storage
// types with few ops (copy, fill, eq/ne, mul, bitwise and/or/xor, ...), and promote with nothing
// but themselves and the floating types. The complex types come last (std::complex<T>: two T's,
// real then imaginary, the layout view_as_real relies on); kernels opt in to them explicitly.
// complex32 (ComplexHalf) is last: a storage type, as on PyTorch's CPU (docs/complex.md).
#define TL_FORALL_SCALAR_TYPES(X)          \
  X(bool, Bool, "bool", 1)                 \
  X(uint8_t, UInt8, "uint8", 1)            \
  X(int8_t, Int8, "int8", 1)               \
  X(int16_t, Int16, "int16", 2)            \
  X(int32_t, Int32, "int32", 4)            \
  X(int64_t, Int64, "int64", 8)            \
  X(::tl::Half, Float16, "float16", 2)     \
  X(::tl::BFloat16, BFloat16, "bfloat16", 2) \
  X(float, Float32, "float32", 4)          \
  X(double, Float64, "float64", 8)         \
  X(uint16_t, UInt16, "uint16", 2)         \
  X(uint32_t, UInt32, "uint32", 4)         \
  X(uint64_t, UInt64, "uint64", 8)          \
  X(std::complex<float>, Complex64, "complex64", 8) \
  X(std::complex<double>, Complex128, "complex128", 16) \
  X(::tl::ComplexHalf, Complex32, "complex32", 4)

enum class ScalarType : int8_t {
#define TL_ENUM(ctype, name, pyname, size) name,
  TL_FORALL_SCALAR_TYPES(TL_ENUM)
#undef TL_ENUM
  NumTypes,
  Undefined = -1,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumTypes);

// Python-visible name without the "torchlite." prefix, e.g. "float32".
const char* scalar_type_name(ScalarType t);
// PyTorch's legacy names ("Float", "Long", "Byte"), used in messages that mirror PyTorch's.
const char* legacy_type_name(ScalarType t);
size_t element_size(ScalarType t);
inline bool is_floating_type(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 ||
         t == ScalarType::Float64;
}
// uint16, uint32 and uint64, the unsigned types PyTorch supports only for a few ops.
inline bool is_barebones_unsigned_type(ScalarType t) {
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}
inline bool is_integral_type(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) || t == ScalarType::UInt8 || t == ScalarType::Int8 ||
         t == ScalarType::Int16 || t == ScalarType::Int32 || t == ScalarType::Int64 || is_barebones_unsigned_type(t);
}
inline bool is_complex_type(ScalarType t) {
  return t == ScalarType::Complex64 || t == ScalarType::Complex128 || t == ScalarType::Complex32;
}
// float16 <-> complex32, float32 <-> complex64, float64 <-> complex128 (PyTorch's toRealValueType /
// toComplexType); other types map to themselves in to_real_type and raise in to_complex_type (no
// complex counterpart of bfloat16, as in PyTorch).
ScalarType to_real_type(ScalarType t);
ScalarType to_complex_type(ScalarType t);
inline bool is_signed_type(ScalarType t) {
  return t != ScalarType::Bool && t != ScalarType::UInt8 && !is_barebones_unsigned_type(t);
}
// Reduced-precision floats that compute in float32.
inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// The smallest type both a and b convert to without losing range (PyTorch's table). uint16,
// uint32 and uint64 promote only with themselves and the floating types (RuntimeError otherwise).
ScalarType promote_types(ScalarType a, ScalarType b);
// Whether an op computing in `from` may write its result into a tensor of type `to`
// (no float -> integral, no non-bool -> bool).
bool can_cast(ScalarType from, ScalarType to);
// The default float type used for integer inputs of ops like true division and for Python floats.
ScalarType default_dtype();
// Its complex counterpart, the dtype of Python complex numbers: complex128 for a float64 default,
// complex32 for a float16 default, complex64 otherwise.
ScalarType default_complex_dtype();
void set_default_dtype(ScalarType t);

template <typename T>
struct CppTypeToScalarType;
#define TL_MAP(ctype, name, pyname, size) \
  template <>                             \
  struct CppTypeToScalarType<ctype> {     \
    static constexpr ScalarType value = ScalarType::name; \
  };
TL_FORALL_SCALAR_TYPES(TL_MAP)
#undef TL_MAP

// The type arithmetic on T is done in (float for the 16-bit floats, T otherwise).
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

template <typename T> struct is_complex_t : std::false_type {};
template <typename T> struct is_complex_t<std::complex<T>> : std::true_type {};
template <typename T> constexpr bool is_complex_v = is_complex_t<T>::value;

}  // namespace tl

// Dtype dispatch: TL_DISPATCH_<SET>(dtype, "op", [&] { ... scalar_t ... }) calls the lambda
// with `scalar_t` bound to the C++ type of `dtype`; a dtype outside SET raises
// NotImplementedError (a RuntimeError in Python, as in PyTorch) naming the op and the dtype. Keep sets small: each type is one more instantiation.
#define TL_DISPATCH_CASE(enum_name, ctype, ...) \
  case ::tl::ScalarType::enum_name: {           \
    using scalar_t = ctype;                     \
    return __VA_ARGS__();                       \
  }
#define TL_DISPATCH_SWITCH(dtype, opname, ...)                                               \
  [&] {                                                                                      \
    const ::tl::ScalarType _st = (dtype);                                                    \
    switch (_st) {                                                                           \
      __VA_ARGS__                                                                            \
      default:                                                                               \
        throw ::tl::NotImplementedError(::tl::str(opname, ": not implemented for dtype ",    \
                                        ::tl::scalar_type_name(_st)));                       \
    }                                                                                        \
  }()
#define TL_CASES_FLOAT(...)                                  \
  TL_DISPATCH_CASE(Float32, float, __VA_ARGS__)              \
  TL_DISPATCH_CASE(Float64, double, __VA_ARGS__)             \
  TL_DISPATCH_CASE(Float16, ::tl::Half, __VA_ARGS__)         \
  TL_DISPATCH_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__)
#define TL_CASES_INTEGRAL(...)                    \
  TL_DISPATCH_CASE(UInt8, uint8_t, __VA_ARGS__)   \
  TL_DISPATCH_CASE(Int8, int8_t, __VA_ARGS__)     \
  TL_DISPATCH_CASE(Int16, int16_t, __VA_ARGS__)   \
  TL_DISPATCH_CASE(Int32, int32_t, __VA_ARGS__)   \
  TL_DISPATCH_CASE(Int64, int64_t, __VA_ARGS__)
#define TL_CASES_BOOL(...) TL_DISPATCH_CASE(Bool, bool, __VA_ARGS__)
// complex64/complex128: only in the dispatch of the ops extended to complex (docs/complex.md).
#define TL_CASES_COMPLEX(...)                                        \
  TL_DISPATCH_CASE(Complex64, std::complex<float>, __VA_ARGS__)     \
  TL_DISPATCH_CASE(Complex128, std::complex<double>, __VA_ARGS__)
// complex32: only in the storage-level code that handles it (copy, fill, item, tensor(), ...).
#define TL_CASES_COMPLEX_HALF(...) TL_DISPATCH_CASE(Complex32, ::tl::ComplexHalf, __VA_ARGS__)
// uint16/uint32/uint64: only in the dispatch of the ops PyTorch supports them for.
#define TL_CASES_BAREBONES_UNSIGNED(...)           \
  TL_DISPATCH_CASE(UInt16, uint16_t, __VA_ARGS__)  \
  TL_DISPATCH_CASE(UInt32, uint32_t, __VA_ARGS__)  \
  TL_DISPATCH_CASE(UInt64, uint64_t, __VA_ARGS__)

#define TL_DISPATCH_FLOAT(dtype, opname, ...) \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__))
#define TL_DISPATCH_NUMERIC(dtype, opname, ...) \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__))
#define TL_DISPATCH_ALL(dtype, opname, ...)                                               \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) \
                                        TL_CASES_BOOL(__VA_ARGS__))
// Every dtype, the wide unsigned ones included: storage-level code (copy, fill, item, tensor()).
#define TL_DISPATCH_ALL_AND_UNSIGNED(dtype, opname, ...)                                     \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_BAREBONES_UNSIGNED(__VA_ARGS__))
// Every dtype, complex included: storage-level code (copy, fill, item, tensor(), tolist, where,
// indexing, cat) and the ops extended to complex.
#define TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(dtype, opname, ...)                               \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_BAREBONES_UNSIGNED(__VA_ARGS__) \
                                            TL_CASES_COMPLEX(__VA_ARGS__))
#define TL_DISPATCH_FLOAT_AND_COMPLEX(dtype, opname, ...) \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_COMPLEX(__VA_ARGS__))
#define TL_DISPATCH_COMPLEX(dtype, opname, ...) TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_COMPLEX(__VA_ARGS__))
// Every dtype, complex32 included: storage-level code that moves or converts elements.
#define TL_DISPATCH_EVERY_DTYPE(dtype, opname, ...)                                              \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_BAREBONES_UNSIGNED(__VA_ARGS__) \
                                            TL_CASES_COMPLEX(__VA_ARGS__) TL_CASES_COMPLEX_HALF(__VA_ARGS__))
