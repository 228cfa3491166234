// Writing elementwise kernels as lambdas over a TensorIterator.
//
//   cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a + b; });
//
// The lambda's parameter types are the element types of the inputs (operands 1..n) and its
// return type that of output 0; they must match iter.dtype(arg) (dispatch on the dtypes first;
// with promotion, inputs have iter.common_dtype()). Lambdas must not be generic (no `auto`).
//
// Each 1-D run picks one of three inner loops:
//   * all operands contiguous: `out[i] = op(a[i], b[i])` in a TL_TARGET_CLONES function
//     (AVX-512 / AVX2 / baseline picked at run time), vectorized by the compiler when op is
//     branch-free arithmetic (no `?:` on floating-point values: see Vectorize.h);
//   * contiguous except the last input, a broadcast constant (stride 0, e.g. a 0-d tensor): it is
//     loaded once and the loop is vectorized the same way;
//   * anything else: a plain strided loop.
// cpu_kernel_novec(iter, op) is the same without the per-ISA clones, for ops that cannot
// vectorize (integer division, std::log/std::pow calls): less code, faster builds.
// For Half/BFloat16 write the lambda over the storage type and compute in float
// (opmath_t<scalar_t>) with to_opmath / from_opmath, which vectorize (Half's own conversions
// do not): `return from_opmath<scalar_t>(to_opmath(a) + to_opmath(b));`.
//
// Explicit vectorization: cpu_kernel_vec(iter, op, vop) takes a second functor over Vec<T>
// (64-byte GCC vectors, one AVX-512 register; two AVX2 or four SSE registers on older CPUs):
//   cpu_kernel_vec(iter, [](float a) -> float { return a * 2; },
//                        [](Vec<float> a) -> Vec<float> { return a * Vec<float>(2.0f); });
// vop is used on contiguous runs (and runs whose broadcast inputs are passed as Vec splats), op on
// the tail and on strided runs.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Vectorize.h"

namespace tl::native {

// ---------------------------------------------------------------- function traits

template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result_type = R;
  static constexpr size_t arity = sizeof...(Args);
  using args_tuple = std::tuple<std::decay_t<Args>...>;
  template <size_t i>
  using arg = std::tuple_element_t<i, args_tuple>;
};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...)> : function_traits<R (C::*)(Args...) const> {};
template <typename R, typename... Args>
struct function_traits<R (*)(Args...)> {
  using result_type = R;
  static constexpr size_t arity = sizeof...(Args);
  using args_tuple = std::tuple<std::decay_t<Args>...>;
  template <size_t i>
  using arg = std::tuple_element_t<i, args_tuple>;
};

// ---------------------------------------------------------------- element conversion

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// An element in its compute type (float for Half/BFloat16) and back, through the branch-free
// conversions of Vectorize.h so that loops over Half/BFloat16 vectorize. Kernels should use these
// rather than static_cast for Half/BFloat16 values (the results are the same, bit for bit).
template <typename T>
TL_ALWAYS_INLINE opmath_t<T> to_opmath(T v) {
  if constexpr (std::is_same_v<T, Half>) return vec::half_to_float(v.x);
  else if constexpr (std::is_same_v<T, BFloat16>) return vec::bfloat16_to_float(v.x);
  else return static_cast<opmath_t<T>>(v);
}
template <typename T, typename U>
TL_ALWAYS_INLINE T from_opmath(U v) {
  if constexpr (std::is_same_v<T, Half>) return Half(vec::float_to_half(static_cast<float>(v)), Half::from_bits_t{});
  else if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16(vec::float_to_bfloat16(static_cast<float>(v)), BFloat16::from_bits_t{});
  else return static_cast<T>(v);
}

// Converts one element like PyTorch's casts (what copy_/to() do): to bool is `!= 0`; reduced
// floats go through float; floating -> int8/int16 goes through int32 and -> uint8 through int64
// (so 300.0 -> int8 is 44 and -1.0 -> uint8 is 255); out-of-range floating -> int32/int64 gives
// the x86 "integer indefinite" value (INT_MIN), NaN included.
template <typename To, typename From>
TL_ALWAYS_INLINE To cast_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, ComplexHalf>) {
    // complex32 through complex64, each part rounded to float16 (PyTorch's c10::complex<Half>
    // conversions go through float too).
    return ComplexHalf(cast_value<std::complex<float>, From>(v));
  } else if constexpr (std::is_same_v<From, ComplexHalf>) {
    return cast_value<To, std::complex<float>>(v.to_cfloat());
  } else if constexpr (is_complex_v<From> && std::is_same_v<To, bool>) {
    return v.real() != 0 || v.imag() != 0;
  } else if constexpr (is_complex_v<From> && is_complex_v<To>) {
    return To(static_cast<typename To::value_type>(v.real()), static_cast<typename To::value_type>(v.imag()));
  } else if constexpr (is_complex_v<From>) {
    // To a real type: the real part, converted like that real type (PyTorch drops the imaginary part).
    return cast_value<To, typename From::value_type>(v.real());
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(cast_value<R, From>(v), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return to_opmath(v) != static_cast<opmath_t<From>>(0);
  } else if constexpr (std::is_same_v<From, bool>) {
    // Through the byte (0 or 1): `v ? 1.0f : 0.0f` compiled to a branch per element, 6x slower than
    // PyTorch on a random mask.
    return cast_value<To, uint8_t>(static_cast<uint8_t>(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return from_opmath<To>(static_cast<float>(to_opmath(v)));
  } else if constexpr (is_reduced_float_v<From>) {
    return cast_value<To, float>(to_opmath(v));
  } else if constexpr (std::is_same_v<To, uint64_t> && std::is_floating_point_v<From>) {
    // Like the compiler's unsigned conversion on x86: values from 2^63 convert after subtracting
    // 2^63 and get the top bit back; anything else is the int64 conversion's bits (-1.0 -> 2^64-1).
    constexpr From kTwo63 = From(9223372036854775808.0);
    if (v >= kTwo63) return static_cast<uint64_t>(cast_value<int64_t, From>(v - kTwo63)) ^ (uint64_t(1) << 63);
    return static_cast<uint64_t>(cast_value<int64_t, From>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // A C++ cast of an out-of-range float is undefined behaviour, so the x86 result is built
    // explicitly, branch-free with integer masks on the bits (loops still vectorize): |v| below
    // 2^31 (2^63 for int64) converts, anything else (nan, inf included) gives INT_MIN. Like
    // PyTorch, uint8 takes the low byte of the int64 conversion, int8/int16 that of the int32 one
    // (for a float source both give the same byte: floats of 2^31 and more are multiples of 256).
    // uint16/uint32 take the low bits of the int64 conversion (-1.0 -> 65535, 5e9 -> 705032704).
    using I = std::conditional_t<sizeof(To) == 8 || (std::is_same_v<To, uint8_t> && sizeof(From) == 8) ||
                                     std::is_same_v<To, uint16_t> || std::is_same_v<To, uint32_t>,
                                 int64_t, int32_t>;
    using UI = std::make_unsigned_t<I>;
    using Bits = std::conditional_t<sizeof(From) == 8, uint64_t, uint32_t>;
    constexpr int kExpBits = sizeof(From) == 8 ? 11 : 8, kMantBits = sizeof(From) == 8 ? 52 : 23;
    constexpr Bits kBias = (Bits(1) << (kExpBits - 1)) - 1;
    constexpr Bits kLimit = (kBias + Bits(sizeof(I) * 8 - 1)) << kMantBits;  // the bits of 2^(bits of I - 1)
    Bits u;
    std::memcpy(&u, &v, sizeof u);
    const bool in_range = (u & (~Bits(0) >> 1)) < kLimit;
    const Bits safe_bits = u & (Bits(0) - Bits(in_range));  // +0.0 when out of range
    From safe;
    std::memcpy(&safe, &safe_bits, sizeof safe);
    const UI keep = UI(0) - UI(in_range);
    const I r = static_cast<I>((static_cast<UI>(static_cast<I>(safe)) & keep) |
                               (static_cast<UI>(std::numeric_limits<I>::min()) & ~keep));
    return static_cast<To>(r);  // smaller types take the low bits
  } else {
    return static_cast<To>(v);
  }
}

// A Scalar as an element of type T, wrapping like a cast (PyTorch converts a Python number to
// the op's common dtype this way: int8 tensor + 300 adds 44).
template <typename T>
TL_ALWAYS_INLINE T scalar_cast(const Scalar& s) {
  if constexpr (is_complex_v<T>) {
    if (s.is_complex()) return static_cast<T>(s.to_complex());
    return T(scalar_cast<typename T::value_type>(s), 0);
  }
  if (s.is_complex()) return cast_value<T, std::complex<double>>(s.to_complex());
  if (s.is_floating_point()) return cast_value<T, double>(s.to_double());
  if (s.is_bool()) return cast_value<T, bool>(s.to_bool());
  // Above INT64_MAX: integers take the low bits, floating types the value.
  if (s.is_uint64() && !std::is_integral_v<T>) return cast_value<T, double>(s.to_double());
  return cast_value<T, int64_t>(s.to_long());
}

// Name PyTorch uses for T in "value cannot be converted to type int8_t without overflow".
template <typename T>
constexpr const char* overflow_type_name() {
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
  else if constexpr (std::is_same_v<T, Half>) return "c10::Half";
  else if constexpr (std::is_same_v<T, BFloat16>) return "c10::BFloat16";
  else return "bool";
}

// A Scalar as an element of type T with PyTorch's overflow check (Scalar::to<T>, used for fill_
// values and alpha): RuntimeError "<op>: value cannot be converted to type int8_t without overflow" when
// an integer target cannot hold it (unsigned targets also accept negative ints down to -max,
// which wrap), a floating value is nan/inf/out of range for an integer target, or a finite value
// exceeds the largest finite float32/float16/bfloat16. Bool and float64 targets never fail.
template <typename T>
T checked_scalar_cast(const Scalar& s, const char* op = nullptr) {
  if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, ComplexHalf>) {
    // A complex value fits a real type only without an imaginary part (PyTorch's checked_convert).
    TL_CHECK(!s.is_complex() || s.to_complex().imag() == 0, op ? op : "", op ? ": " : "",
             "value cannot be converted to type ", overflow_type_name<T>(), " without overflow");
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using lim = std::numeric_limits<T>;
    bool overflow;
    if (s.is_floating_point() || s.is_complex()) {
      const double d = s.to_double();
      overflow = !(d >= static_cast<double>(lim::lowest()) && d <= static_cast<double>(lim::max()));
      if constexpr (std::is_same_v<T, int64_t>) overflow = overflow || d >= 9223372036854775808.0;
    } else if (s.is_bool()) {
      overflow = false;
    } else if (s.is_uint64()) {
      overflow = true;  // above INT64_MAX: no integer dtype holds it
    } else {
      const int64_t v = s.to_long();
      if constexpr (std::is_same_v<T, uint64_t>) {
        overflow = false;  // every int64 wraps into uint64 (-1 -> 2^64-1)
      } else if constexpr (std::is_unsigned_v<T>) {
        overflow = v > static_cast<int64_t>(lim::max()) || v < -static_cast<int64_t>(lim::max());
      } else {
        overflow = v < static_cast<int64_t>(lim::lowest()) || v > static_cast<int64_t>(lim::max());
      }
    }
    TL_CHECK(!overflow, op ? op : "", op ? ": " : "", "value cannot be converted to type ", overflow_type_name<T>(),
             " without overflow");
  } else if constexpr (std::is_same_v<T, float> || is_reduced_float_v<T>) {
    // Finite values beyond the type's largest finite value overflow; inf and nan convert.
    constexpr double max = std::is_same_v<T, float> ? 3.4028234663852886e38
                           : std::is_same_v<T, Half> ? 65504.0
                                                     : 3.3895313892515355e38;
    if (!s.is_bool()) {
      const double d = s.to_double();
      TL_CHECK(!std::isfinite(d) || std::fabs(d) <= max, op ? op : "", op ? ": " : "",
               "value cannot be converted to type ", overflow_type_name<T>(), " without overflow");
    }
  }
  return scalar_cast<T>(s);
}

// Integer arithmetic that wraps on overflow (two's complement), as PyTorch's kernels do in
// practice, without C++ signed-overflow UB. For non-integers these are the plain operators.
template <typename T>
using wrap_unsigned_t = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <typename T>
TL_ALWAYS_INLINE T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
TL_ALWAYS_INLINE T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
TL_ALWAYS_INLINE T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
TL_ALWAYS_INLINE T wrapping_neg(T a) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(U(0) - static_cast<U>(a));
  } else {
    return -a;
  }
}

// ---------------------------------------------------------------- Vec

namespace vec_detail {
template <typename T>
struct native_vec;  // only defined for the arithmetic element types below
#define TL_NATIVE_VEC(T) \
  template <>            \
  struct native_vec<T> { typedef T type __attribute__((vector_size(64))); };
TL_NATIVE_VEC(float)
TL_NATIVE_VEC(double)
TL_NATIVE_VEC(int8_t)
TL_NATIVE_VEC(uint8_t)
TL_NATIVE_VEC(int16_t)
TL_NATIVE_VEC(int32_t)
TL_NATIVE_VEC(int64_t)
#undef TL_NATIVE_VEC
}  // namespace vec_detail

// A SIMD vector of 64 bytes of T (float, double or an integer type) built on GCC's vector
// extensions; compiled inside a TL_TARGET_CLONES function it maps to native registers
// (one zmm with AVX-512, two ymm with AVX2, four xmm otherwise).
template <typename T>
struct Vec {
  using native_t = typename vec_detail::native_vec<T>::type;
  static constexpr int size = 64 / sizeof(T);
  native_t v;

  Vec() = default;
  Vec(native_t x) : v(x) {}                  // NOLINT
  explicit Vec(T x) { v = x - native_t{}; }  // broadcast
  static Vec loadu(const void* p) {
    Vec r;
    std::memcpy(&r.v, p, sizeof(native_t));
    return r;
  }
  void storeu(void* p) const { std::memcpy(p, &v, sizeof(native_t)); }
  T operator[](int i) const { return v[i]; }

  friend Vec operator+(Vec a, Vec b) { return a.v + b.v; }
  friend Vec operator-(Vec a, Vec b) { return a.v - b.v; }
  friend Vec operator*(Vec a, Vec b) { return a.v * b.v; }
  friend Vec operator/(Vec a, Vec b) { return a.v / b.v; }
  friend Vec operator-(Vec a) { return -a.v; }
  // Lane-wise select: mask ? a : b, with mask from comparing native vectors (a.v < b.v).
  template <typename M>
  static Vec select(M mask, Vec a, Vec b) { return mask ? a.v : b.v; }
};

// ---------------------------------------------------------------- inner loops

namespace loops_detail {

template <typename traits, size_t... I>
TL_ALWAYS_INLINE bool inputs_contiguous(const int64_t* strides, int skip, std::index_sequence<I...>) {
  return ((static_cast<int>(I) == skip ||
           strides[1 + I] == static_cast<int64_t>(sizeof(typename traits::template arg<I>))) && ...);
}


// Contiguous output; inputs contiguous, except the one whose bit is set in kMask (a broadcast
// constant, loaded once). `#pragma omp simd` is safe: an output either is an input exactly or
// does not overlap it (TensorIterator copies partially overlapping inputs).
#define TL_CONTIGUOUS_LOOP_BODY                                                                        \
  using traits = function_traits<F>;                                                                   \
  using R = typename traits::result_type;                                                              \
  R* out = reinterpret_cast<R*>(data[0]);                                                              \
  std::tuple<const typename traits::template arg<I>*...> in{                                           \
      reinterpret_cast<const typename traits::template arg<I>*>(data[1 + I])...};                      \
  const typename traits::args_tuple sc{                                                                \
      (((kMask >> I) & 1) ? *std::get<I>(in) : typename traits::template arg<I>())...};                \
  _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) {                                                \
    out[i] = op((((kMask >> I) & 1) ? std::get<I>(sc) : std::get<I>(in)[i])...);                      \
  }

// Compiled per ISA (AVX-512 / AVX2 / baseline, picked at run time).
template <int kMask, typename F, size_t... I>
TL_TARGET_CLONES void contiguous_loop_clones(char** data, int64_t n, const F& op, std::index_sequence<I...>) {
  TL_CONTIGUOUS_LOOP_BODY
}

// Baseline ISA only: for ops the compiler cannot vectorize anyway.
template <int kMask, typename F, size_t... I>
void contiguous_loop_plain(char** data, int64_t n, const F& op, std::index_sequence<I...>) {
  TL_CONTIGUOUS_LOOP_BODY
}
#undef TL_CONTIGUOUS_LOOP_BODY

template <bool kClones, int kMask, typename F, size_t... I>
TL_ALWAYS_INLINE void contiguous_loop(char** data, int64_t n, const F& op, std::index_sequence<I...> seq) {
  if constexpr (kClones) {
    contiguous_loop_clones<kMask>(data, n, op, seq);
  } else {
    contiguous_loop_plain<kMask>(data, n, op, seq);
  }
}

// Same with a vectorized functor for the bulk and the scalar one for the tail.
template <int kMask, typename F, typename VF, size_t... I>
TL_TARGET_CLONES void contiguous_loop_vec(char** data, int64_t n, const F& op, const VF& vop,
                                          std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  using VR = Vec<R>;
  constexpr int64_t W = VR::size;
  char* out = data[0];
  const typename traits::args_tuple sc{
      (((kMask >> I) & 1) ? *reinterpret_cast<const typename traits::template arg<I>*>(data[1 + I])
                          : typename traits::template arg<I>())...};
  const std::tuple<Vec<typename traits::template arg<I>>...> vsc{
      Vec<typename traits::template arg<I>>(std::get<I>(sc))...};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    VR r = vop((((kMask >> I) & 1) ? std::get<I>(vsc)
                                   : Vec<typename traits::template arg<I>>::loadu(
                                         data[1 + I] + i * sizeof(typename traits::template arg<I>)))...);
    r.storeu(out + i * sizeof(R));
  }
  for (; i < n; ++i) {
    reinterpret_cast<R*>(out)[i] =
        op((((kMask >> I) & 1) ? std::get<I>(sc)
                               : reinterpret_cast<const typename traits::template arg<I>*>(data[1 + I])[i])...);
  }
}

template <typename F, size_t... I>
inline void strided_loop(char** data, const int64_t* strides, int64_t n, const F& op, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  char* out = data[0];
  const int64_t os = strides[0];
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<R*>(out + i * os) =
        op(*reinterpret_cast<const typename traits::template arg<I>*>(data[1 + I] + i * strides[1 + I])...);
  }
}

}  // namespace loops_detail

// The 1-D loop cpu_kernel runs (usable directly with TensorIterator::for_each). Contiguous runs,
// and runs where only the last input is a broadcast constant (tensor op 0-d tensor), take the
// vectorizable paths; everything else the strided loop.
template <typename F, bool kVectorize = true>
struct BasicLoop {
  const F& op;
  void operator()(char** data, const int64_t* strides, int64_t n) const {
    using traits = function_traits<F>;
    using R = typename traits::result_type;
    constexpr size_t arity = traits::arity;
    auto seq = std::make_index_sequence<arity>{};
    constexpr bool clones = kVectorize;
    if (strides[0] == static_cast<int64_t>(sizeof(R))) {
      if (loops_detail::inputs_contiguous<traits>(strides, -1, seq)) {
        loops_detail::contiguous_loop<clones, 0>(data, n, op, seq);
        return;
      }
      if constexpr (arity >= 2) {
        constexpr int last = static_cast<int>(arity) - 1;
        if (strides[arity] == 0 && loops_detail::inputs_contiguous<traits>(strides, last, seq)) {
          loops_detail::contiguous_loop<clones, (1 << last)>(data, n, op, seq);
          return;
        }
      }
    }
    loops_detail::strided_loop(data, strides, n, op, seq);
  }
};

// Runs op over every element of iter (see the top of this file).
template <typename F>
void cpu_kernel(TensorIterator& iter, const F& op, int64_t grain_size = kGrainSize) {
  iter.for_each(BasicLoop<F>{op}, grain_size);
}

// Same, for ops the compiler cannot vectorize (integer division, libm calls such as std::log or
// std::pow): skips the per-ISA clones, which would only cost compile time and code size.
template <typename F>
void cpu_kernel_novec(TensorIterator& iter, const F& op, int64_t grain_size = kGrainSize) {
  iter.for_each(BasicLoop<F, false>{op}, grain_size);
}

template <typename F, typename VF>
struct VecLoop {
  const F& op;
  const VF& vop;
  void operator()(char** data, const int64_t* strides, int64_t n) const {
    using traits = function_traits<F>;
    using R = typename traits::result_type;
    constexpr size_t arity = traits::arity;
    auto seq = std::make_index_sequence<arity>{};
    if (strides[0] == static_cast<int64_t>(sizeof(R))) {
      if (loops_detail::inputs_contiguous<traits>(strides, -1, seq)) {
        loops_detail::contiguous_loop_vec<0>(data, n, op, vop, seq);
        return;
      }
      if constexpr (arity >= 2) {
        constexpr int last = static_cast<int>(arity) - 1;
        if (strides[arity] == 0 && loops_detail::inputs_contiguous<traits>(strides, last, seq)) {
          loops_detail::contiguous_loop_vec<(1 << last)>(data, n, op, vop, seq);
          return;
        }
      }
    }
    loops_detail::strided_loop(data, strides, n, op, seq);
  }
};

// Like cpu_kernel, with vop(Vec<T>...) -> Vec<R> for contiguous runs (see the top of this file).
template <typename F, typename VF>
void cpu_kernel_vec(TensorIterator& iter, const F& op, const VF& vop, int64_t grain_size = kGrainSize) {
  iter.for_each(VecLoop<F, VF>{op, vop}, grain_size);
}

// ---------------------------------------------------------------- several outputs
//
// cpu_kernel_multiple_outputs(iter, op): op returns std::tuple<R0, R1, ...>, one element per
// output (operands 0..k-1, each of its own dtype), and takes the inputs (operands k..): every
// output is written in the same pass over the inputs.
//   cpu_kernel_multiple_outputs(iter, [](float x) -> std::tuple<float, int32_t> { ... });

namespace loops_detail {

template <typename Tuple, size_t... O>
TL_ALWAYS_INLINE void store_outputs(char** data, const int64_t* strides, int64_t i, const Tuple& r,
                                    std::index_sequence<O...>) {
  ((*reinterpret_cast<std::tuple_element_t<O, Tuple>*>(data[O] + i * strides[O]) = std::get<O>(r)), ...);
}

template <typename F, size_t... O, size_t... I>
void multiple_outputs_loop(char** data, const int64_t* strides, int64_t n, const F& op, std::index_sequence<O...> outs,
                           std::index_sequence<I...>) {
  using traits = function_traits<F>;
  constexpr size_t k = sizeof...(O);
  for (int64_t i = 0; i < n; ++i) {
    auto r = op(*reinterpret_cast<const typename traits::template arg<I>*>(data[k + I] + i * strides[k + I])...);
    store_outputs(data, strides, i, r, outs);
  }
}

}  // namespace loops_detail

template <typename F>
void cpu_kernel_multiple_outputs(TensorIterator& iter, const F& op, int64_t grain_size = kGrainSize) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  constexpr size_t k = std::tuple_size_v<R>;
  auto loop = [&op](char** data, const int64_t* strides, int64_t n) {
    loops_detail::multiple_outputs_loop(data, strides, n, op, std::make_index_sequence<k>{},
                                        std::make_index_sequence<traits::arity>{});
  };
  iter.for_each(loop, grain_size);
}

}  // namespace tl::native
