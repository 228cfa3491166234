// The loop that runs the double-precision functions of VecMath*.h over a TensorIterator:
//
//   math_kernel<scalar_t>(iter, f);                // f(double...) -> double, branch-free
//   math_kernel<scalar_t>(iter, f, rare, slow);    // rare(double...) -> bool, slow: libm
//   float_lanes_kernel(iter, f);                    // float32 only, f(float) -> float (float lanes)
//
// Each 1-D run is cut into blocks of 256 elements. A block's inputs are converted to double
// into a stack buffer (strided, float16 etc. included), `f` maps the buffer in a loop compiled
// per ISA (TL_TARGET_CLONES) over doubles only, and the results are rounded to scalar_t and
// stored. Contiguous float64 runs skip the copies. With `rare`, a block holding an input for
// which rare(...) holds runs `slow` (scalar) instead: for inputs the formula does not cover
// (sin of |x| > 2^20, pow's special cases). Inputs are read before the block is written, so
// outputs may alias inputs.
//
// Why buffers rather than cpu_kernel with a float lambda: GCC narrows comparisons of a
// converted float ((double)x > 710.0 becomes x > 710.0f), and the mix of float- and
// double-width masks then stops it vectorizing some of these functions.
#pragma once
#include <algorithm>

#include "aten/native/cpu/Loops.h"

// Put on the lambdas passed to math_kernel (`[](double x) TL_MATH_INLINE { ... }`): GCC would
// otherwise leave large ones (asin, asinh) as calls, which do not vectorize.
#define TL_MATH_INLINE __attribute__((always_inline))

namespace tl::native {
namespace vecmath_detail {

constexpr int64_t kBlock = 256;

template <typename F>
TL_TARGET_CLONES void map1(const double* a, double* out, int64_t n, const F& f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i]);
}
template <typename F>
TL_TARGET_CLONES void map2(const double* a, const double* b, double* out, int64_t n, const F& f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}
template <typename P>
TL_TARGET_CLONES bool any1(const double* a, int64_t n, const P& p) {
  int any = 0;  // an int OR reduction under omp simd vectorizes (the bool loop ran scalar)
#pragma omp simd reduction(| : any)
  for (int64_t i = 0; i < n; ++i) any |= static_cast<int>(p(a[i]));
  return any;
}
template <typename P>
TL_TARGET_CLONES bool any2(const double* a, const double* b, int64_t n, const P& p) {
  int any = 0;  // an int OR reduction under omp simd vectorizes (the bool loop ran scalar)
#pragma omp simd reduction(| : any)
  for (int64_t i = 0; i < n; ++i) any |= static_cast<int>(p(a[i], b[i]));
  return any;
}

// Contiguous runs get their own loop, forced to vectorize as map1 (GCC's -O2 cost model will not
// add the alias checks; the stack buffer never overlaps tensor data). The strided loop stays
// scalar: it was a fifth of float32 erfinv's time.
template <typename T>
TL_TARGET_CLONES void load(const char* p, int64_t stride, int64_t n, double* dst) {
  if (stride == static_cast<int64_t>(sizeof(T))) {
    const T* q = reinterpret_cast<const T*>(p);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<double>(to_opmath(q[i]));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<double>(to_opmath(*reinterpret_cast<const T*>(p + i * stride)));
}
template <typename T>
TL_TARGET_CLONES void store(const double* src, int64_t n, char* p, int64_t stride) {
  if (stride == static_cast<int64_t>(sizeof(T))) {
    T* q = reinterpret_cast<T*>(p);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) q[i] = from_opmath<T>(src[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p + i * stride) = from_opmath<T>(src[i]);
}

template <typename F>
TL_TARGET_CLONES void map1f(const float* a, float* out, int64_t n, const F& f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i]);
}

struct NoRare {
  bool operator()(double) const { return false; }
  bool operator()(double, double) const { return false; }
};
struct NoSlow {
  double operator()(double) const { return 0.0; }
  double operator()(double, double) const { return 0.0; }
};

}  // namespace vecmath_detail

// Unary or binary (by the arity of f) math over iter's inputs of type scalar_t.
template <typename scalar_t, typename F, typename P = vecmath_detail::NoRare, typename S = vecmath_detail::NoSlow>
void math_kernel(TensorIterator& iter, const F& f, const P& rare = P(), const S& slow = S()) {
  using namespace vecmath_detail;
  constexpr bool kGuarded = !std::is_same_v<P, NoRare>;
  constexpr int arity = static_cast<int>(function_traits<F>::arity);
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t w = sizeof(scalar_t);
    bool direct = std::is_same_v<scalar_t, double> && strides[0] == w;
    for (int k = 1; k <= arity; ++k) direct = direct && strides[k] == w;
    double in[2][kBlock], out[kBlock];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      const double* a[2];
      double* o = out;
      if (direct) {
        for (int k = 0; k < arity; ++k) a[k] = reinterpret_cast<const double*>(data[1 + k]) + b;
        o = reinterpret_cast<double*>(data[0]) + b;
      } else {
        for (int k = 0; k < arity; ++k) {
          load<scalar_t>(data[1 + k] + b * strides[1 + k], strides[1 + k], m, in[k]);
          a[k] = in[k];
        }
      }
      bool rare_block = false;
      if constexpr (kGuarded) {
        if constexpr (arity == 1) rare_block = any1(a[0], m, rare);
        else rare_block = any2(a[0], a[1], m, rare);
      }
      if (rare_block) {
        double tmp[kBlock];
        for (int64_t i = 0; i < m; ++i) {
          if constexpr (arity == 1) tmp[i] = slow(a[0][i]);
          else tmp[i] = slow(a[0][i], a[1][i]);
        }
        std::copy(tmp, tmp + m, o);
      } else if constexpr (arity == 1) {
        map1(a[0], o, m, f);
      } else {
        map2(a[0], a[1], o, m, f);
      }
      if (!direct) store<scalar_t>(out, m, data[0] + b * strides[0], strides[0]);
    }
  });
}

// float32 through a float -> float function in float lanes (SigmoidTanhFloatLanes.h): contiguous runs mapped
// in place of the tensors, other runs through a stack buffer, both by the same per-ISA clone, so an element
// gives the same bits whatever the layout (eager and fused runs must agree; the strided loop of cpu_kernel is
// not a clone: libm fma calls there).
template <typename F>
void float_lanes_kernel(TensorIterator& iter, const F& f) {
  using namespace vecmath_detail;
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t w = sizeof(float);
    if (strides[0] == w && strides[1] == w) {
      map1f(reinterpret_cast<const float*>(data[1]), reinterpret_cast<float*>(data[0]), n, f);
      return;
    }
    float buf[kBlock];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      for (int64_t i = 0; i < m; ++i) buf[i] = *reinterpret_cast<const float*>(data[1] + (b + i) * strides[1]);
      map1f(buf, buf, m, f);
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<float*>(data[0] + (b + i) * strides[0]) = buf[i];
    }
  });
}

}  // namespace tl::native
