// Exhaustive accuracy check of the float-lane sigmoid, tanh and silu (aten/native/cpu/SigmoidTanhFloatLanes.h) over
// every float32 bit pattern, through the same vectorized clones the kernels use (TL_TARGET_CLONES: the
// running CPU's widest ISA; build with -DTL_SINGLE_CLONE_ISA=1 to check the baseline x86-64 clone instead).
// Reference: the double function (glibc tanh, exp; within ~2^-52 relative), error in ulps of the float
// binade of the true value (2^-149 for subnormal results). Prints the max error per function and where.
//
//   g++ -O2 -fopenmp -fno-math-errno -I. tools/check_float_lanes_ulp.cpp -o /tmp/check_ulp && /tmp/check_ulp [STRIDE]
//
// With STRIDE, every STRIDE-th bit pattern only (a quick check while editing).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "aten/native/cpu/SigmoidTanhFloatLanes.h"

using namespace tl::native::vec;

TL_TARGET_CLONES void map_sigmoid(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid_float_lanes(x[i]);
}
TL_TARGET_CLONES void map_silu(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = silu_float_lanes(x[i]);
}
TL_TARGET_CLONES void map_tanh(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = tanh_float_lanes(x[i]);
}

static double ref_sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

static double ulp_of(double ref) {
  const double a = std::fabs(ref);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1 - 23);
}

struct Worst {
  double err = 0;
  float x = 0, got = 0;
  double ref = 0;
  int64_t special_bad = 0;
};

// Special values must match exactly: nan for nan, the right signed zero / infinity limits
// (f: 0 sigmoid, 1 tanh, 2 silu; silu(-inf) is nan as PyTorch's x / (1 + e^-x)).
static bool special_ok(int f, float x, float y) {
  if (std::isnan(x)) return std::isnan(y);
  if (f != 0 && x == 0.0f) return std::memcmp(&x, &y, 4) == 0;  // tanh(+-0) = +-0, silu(+-0) = +-0
  if (std::isinf(x)) {
    if (f == 0) return y == (x > 0 ? 1.0f : 0.0f);
    if (f == 1) return y == (x > 0 ? 1.0f : -1.0f);
    return x > 0 ? y == x : std::isnan(y);
  }
  if (f == 2 && x < -120.0f) return y == 0.0f && std::signbit(y);  // rounds to -0
  return true;
}

int main(int argc, char** argv) {
  const int64_t stride = argc > 1 ? std::atoll(argv[1]) : 1;
  // The special values first (a strided run may skip them), each mismatch printed.
  const float inf = __builtin_inff(), nan = __builtin_nanf("");
  float sp[] = {0.0f, -0.0f, inf, -inf, nan, -nan, 1e-45f, -1e-45f, 1e-40f, -1e-40f, -104.0f, -121.0f, -1e30f, 1e30f};
  const int64_t nsp = sizeof sp / sizeof sp[0];
  int bad_special = 0;
  for (int f = 0; f < 3; ++f) {
    float y[nsp];
    if (f == 0) map_sigmoid(sp, y, nsp);
    else if (f == 1) map_tanh(sp, y, nsp);
    else map_silu(sp, y, nsp);
    for (int64_t i = 0; i < nsp; ++i)
      if (!special_ok(f, sp[i], y[i])) {
        std::printf("function %d: x = %g gives %g\n", f, sp[i], y[i]);
        ++bad_special;
      }
  }
  Worst w[3];
  const int64_t chunk = 1 << 16;
#pragma omp parallel
  {
    std::vector<float> xs(chunk), ys(chunk);
    Worst lw[3];
#pragma omp for schedule(dynamic)
    for (int64_t base = 0; base < (int64_t(1) << 32) / stride; base += chunk) {
      for (int64_t i = 0; i < chunk; ++i) {
        const uint32_t b = static_cast<uint32_t>((base + i) * stride);
        std::memcpy(&xs[i], &b, 4);
      }
      for (int f = 0; f < 3; ++f) {
        if (f == 0) map_sigmoid(xs.data(), ys.data(), chunk);
        else if (f == 1) map_tanh(xs.data(), ys.data(), chunk);
        else map_silu(xs.data(), ys.data(), chunk);
        for (int64_t i = 0; i < chunk; ++i) {
          const float x = xs[i], y = ys[i];
          if (!special_ok(f, x, y)) {
            ++lw[f].special_bad;
            continue;
          }
          if (std::isnan(x) || std::isinf(x)) continue;
          const double ref = f == 0   ? ref_sigmoid(x)
                             : f == 1 ? std::tanh(static_cast<double>(x))
                                      : static_cast<double>(x) * ref_sigmoid(x);
          const double err = std::fabs(static_cast<double>(y) - ref) / ulp_of(ref);
          if (err > lw[f].err) lw[f] = {err, x, y, ref, lw[f].special_bad};
        }
      }
    }
#pragma omp critical
    for (int f = 0; f < 3; ++f) {
      const int64_t bad = w[f].special_bad + lw[f].special_bad;
      if (lw[f].err > w[f].err) w[f] = lw[f];
      w[f].special_bad = bad;
    }
  }
  const char* names[3] = {"sigmoid", "tanh", "silu"};
  for (int f = 0; f < 3; ++f)
    std::printf("%s: max %.4f ulp at x = %.9g (0x%08x): got %.9g, reference %.17g; special-value mismatches %lld\n",
                names[f], w[f].err, w[f].x, [&] { uint32_t b; std::memcpy(&b, &w[f].x, 4); return b; }(), w[f].got,
                w[f].ref, static_cast<long long>(w[f].special_bad));
  bool ok = bad_special == 0;
  for (int f = 0; f < 3; ++f) ok = ok && w[f].err <= 1.0 && w[f].special_bad == 0;
  return ok ? 0 : 1;
}
