// The vector-type softmax rows (SoftmaxRowsVec.h). Loops step 16 floats (two vectors: two independent sum and max
// chains), then one vector, then a last partial vector through a buffer padded with -inf (exp(-inf - max) = 0 adds
// nothing to the sum; a row that is all -inf, or holds +inf or NaN, is NaN either way, as in PyTorch).
#include "aten/native/cpu/SoftmaxRowsVec.h"

// The vector helpers are always inlined into the per-ISA clones, so the baseline ABI of their vector arguments (which
// GCC warns about) never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "aten/native/cpu/ExpVec8.h"
#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES, TL_ALWAYS_INLINE

namespace tl::native {

namespace {

using vec8::exp8;
using vec8::load;
using vec8::splat;
using vec8::store;
using vec8::vf;
using vec8::vmax;
constexpr int64_t kV = vec8::kLanes;

// The last n - i (< 8) floats of a row, padded with -inf.
TL_ALWAYS_INLINE vf load_tail(const float* p, int64_t left) {
  float b[kV];
  for (int64_t j = 0; j < kV; ++j) b[j] = j < left ? p[j] : -std::numeric_limits<float>::infinity();
  return load(b);
}

TL_ALWAYS_INLINE float hmax(vf v) {
  float m = v[0];
  for (int j = 1; j < kV; ++j) m = v[j] > m ? v[j] : m;
  return m;
}
// Horizontal sum in a fixed tree order.
TL_ALWAYS_INLINE float hsum(vf v) {
  for (int w = kV / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) v[j] += v[j + w];
  return v[0];
}

TL_ALWAYS_INLINE float row_max(const float* x, int64_t n) {
  const vf ninf = splat(-std::numeric_limits<float>::infinity());
  vf m0 = ninf, m1 = ninf;
  int64_t i = 0;
  for (; i + 2 * kV <= n; i += 2 * kV) {
    m0 = vmax(load(x + i), m0);
    m1 = vmax(load(x + i + kV), m1);
  }
  for (; i + kV <= n; i += kV) m0 = vmax(load(x + i), m0);
  if (i < n) m1 = vmax(load_tail(x + i, n - i), m1);
  return hmax(vmax(m0, m1));
}

// The passes of the header's comment. Row r + 1's max is taken in row r's exp loop (its loads run while the exps
// compute, and the max is ready when the row's turn comes); the results are the row-by-row loop's bit for bit.
template <bool Log>
TL_TARGET_CLONES void rows_impl(const float* x, float* y, int64_t rows, int64_t n) {
  if (n <= 0 || rows <= 0) return;
  const vf ninf = splat(-std::numeric_limits<float>::infinity());
  const int64_t full = n / (2 * kV) * (2 * kV);
  float mx = row_max(x, n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const float* xn = xr + n;
    const bool next = r + 1 < rows;
    const vf vm = splat(mx);
    vf s0 = vf{}, s1 = vf{}, m0 = ninf, m1 = ninf;
    auto exps = [&](int64_t i, vf v) __attribute__((always_inline)) {
      const vf e = exp8<false>(v - vm);
      if constexpr (!Log) store(yr + i, e);
      return e;
    };
    if (next) {
      for (int64_t i = 0; i < full; i += 2 * kV) {
        s0 += exps(i, load(xr + i));
        s1 += exps(i + kV, load(xr + i + kV));
        m0 = vmax(load(xn + i), m0);
        m1 = vmax(load(xn + i + kV), m1);
      }
    } else {
      for (int64_t i = 0; i < full; i += 2 * kV) {
        s0 += exps(i, load(xr + i));
        s1 += exps(i + kV, load(xr + i + kV));
      }
    }
    int64_t i = full;
    if (i + kV <= n) {
      s0 += exps(i, load(xr + i));
      if (next) m0 = vmax(load(xn + i), m0);
      i += kV;
    }
    if (i < n) {
      const vf e = exp8<false>(load_tail(xr + i, n - i) - vm);
      if constexpr (!Log)
        for (int64_t j = 0; j < n - i; ++j) yr[i + j] = e[j];
      s1 += e;
      if (next) m1 = vmax(load_tail(xn + i, n - i), m1);
    }
    const float sum = hsum(s0 + s1);
    if constexpr (Log) {
      // (x - max) - log(sum) keeps precision for huge x.
      const float ls = std::log(sum);
      const vf vl = splat(ls);
      int64_t j = 0;
      for (; j + kV <= n; j += kV) store(yr + j, (load(xr + j) - vm) - vl);
      for (; j < n; ++j) yr[j] = (xr[j] - mx) - ls;
    } else {
      const float inv = 1.0f / sum;
      const vf vinv = splat(inv);
      int64_t j = 0;
      for (; j + kV <= n; j += kV) store(yr + j, load(yr + j) * vinv);
      for (; j < n; ++j) yr[j] *= inv;
    }
    if (next) mx = hmax(vmax(m0, m1));
  }
}

}  // namespace

bool softmax_rows_vec() {
  static const bool on = [] {
    const char* want = std::getenv("TORCHLITE_SOFTMAX_ISA");
    return !(want && std::strcmp(want, "generic") == 0);
  }();
  return on;
}

void softmax_rows_f32_vec(const float* x, float* y, int64_t rows, int64_t n) { rows_impl<false>(x, y, rows, n); }

namespace {
TL_TARGET_CLONES float max_log_sum_impl(const float* x, int64_t n, float* log_sum) {
  const float mx = row_max(x, n);
  const vf vm = splat(mx);
  vf s0 = vf{}, s1 = vf{};
  int64_t i = 0;
  for (; i + 2 * kV <= n; i += 2 * kV) {
    s0 += exp8<false>(load(x + i) - vm);
    s1 += exp8<false>(load(x + i + kV) - vm);
  }
  for (; i + kV <= n; i += kV) s0 += exp8<false>(load(x + i) - vm);
  if (i < n) s1 += exp8<false>(load_tail(x + i, n - i) - vm);
  // As log_softmax: a row of -inf, or one holding +inf or NaN, gives a NaN sum (inf - inf).
  *log_sum = std::log(hsum(s0 + s1));
  return mx;
}
}  // namespace

float max_log_sum_row_f32_vec(const float* x, int64_t n, float* log_sum) { return max_log_sum_impl(x, n, log_sum); }
void log_softmax_rows_f32_vec(const float* x, float* y, int64_t rows, int64_t n) { rows_impl<true>(x, y, rows, n); }

}  // namespace tl::native
