// Randomized check of the max pools' row kernels (aten/native/cpu/MaxPoolRows.cpp) against PyTorch's scalar CPU
// loop (scan the window row-major from -inf at its first position, take `v > best || isnan(v)`): float32 inputs
// of few levels with NaNs and -inf, random kernel/stride/padding/dilation/ceil_mode, contiguous planes (1-3 spatial
// dims) and channels-last 2-d inputs; values and indices must match exactly. Built with the sanitizers it also
// checks the kernels' reads and writes (the padded column row, the tails of the vector loops):
//
//   g++ -std=c++17 -O1 -g -fopenmp -fsanitize=address,undefined -fno-sanitize-recover=undefined \
//       -DTL_SINGLE_CLONE_ISA=3 -I. tools/check_max_pool_rows.cpp aten/native/cpu/MaxPoolRows.cpp \
//       aten/core/Parallel.cpp -o /tmp/check_mp && OMP_NUM_THREADS=2 /tmp/check_mp
//
// TL_SINGLE_CLONE_ISA picks the clone compiled (4: AVX-512, 3: AVX2, 1: baseline x86-64). On the AVX2 host
// (2026-12-07): levels 3 and 1 clean, ~0.97M + 2.2M outputs compared, 0 mismatches.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "aten/native/cpu/MaxPoolRows.h"

using namespace tl::native::pooling;
using tl::ScalarType;

namespace {

int64_t pooled(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil) {
  int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  if (span < 0) return 0;
  int64_t out = span / s + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

// Contiguous planes, 1-3 spatial dims.
int check_planes() {
  std::mt19937_64 rng(1);
  long checked = 0, fell_back = 0, bad = 0;
  for (int it = 0; it < 20000; ++it) {
    const int n = 1 + rng() % 3;  // spatial dims used (trailing)
    Dims3 I{1, 1, 1}, O{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1};
    bool ok = true, ceil = rng() % 2;
    for (int i = 3 - n; i < 3; ++i) {
      I[i] = 1 + rng() % (i == 2 ? 40 : 7);
      k[i] = 1 + rng() % 4;
      s[i] = 1 + rng() % 3;
      d[i] = 1 + rng() % 3;
      p[i] = rng() % (k[i] / 2 + 1);
      O[i] = pooled(I[i], k[i], p[i], s[i], d[i], ceil);
      if (O[i] < 1) ok = false;
    }
    if (!ok) continue;
    const int64_t planes = 1 + rng() % 3, inp = I[0] * I[1] * I[2], outp = O[0] * O[1] * O[2];
    std::vector<float> x(planes * inp);
    for (auto& v : x) {
      int r = rng() % 20;
      v = r == 0 ? NAN : r == 1 ? -INFINITY : float(int(rng() % 4) - 2);
    }
    std::vector<float> out(planes * outp);
    std::vector<int64_t> ind(planes * outp);
    if (!max_pool_rows(ScalarType::Float32, x.data(), out.data(), ind.data(), planes, I, O, k, s, p, d)) { ++fell_back; continue; }
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t od = 0; od < O[0]; ++od) for (int64_t oh = 0; oh < O[1]; ++oh) for (int64_t ow = 0; ow < O[2]; ++ow) {
        int64_t d0 = od * s[0] - p[0], h0 = oh * s[1] - p[1], w0 = ow * s[2] - p[2];
        int64_t d1 = std::min(d0 + (k[0] - 1) * d[0] + 1, I[0]), h1 = std::min(h0 + (k[1] - 1) * d[1] + 1, I[1]), w1 = std::min(w0 + (k[2] - 1) * d[2] + 1, I[2]);
        while (d0 < 0) d0 += d[0]; while (h0 < 0) h0 += d[1]; while (w0 < 0) w0 += d[2];
        float best = -INFINITY; int64_t bi = (d0 * I[1] + h0) * I[2] + w0;
        for (int64_t a = d0; a < d1; a += d[0]) for (int64_t b = h0; b < h1; b += d[1]) for (int64_t c = w0; c < w1; c += d[2]) {
          int64_t idx = (a * I[1] + b) * I[2] + c; float v = x[pl * inp + idx];
          if (v > best || std::isnan(v)) { best = v; bi = idx; }
        }
        int64_t o = pl * outp + (od * O[1] + oh) * O[2] + ow;
        bool same = (out[o] == best || (std::isnan(out[o]) && std::isnan(best))) && ind[o] == bi;
        if (!same && bad++ < 5) std::printf("mismatch it %d\n", it);
        ++checked;
      }
  }
  std::printf("checked %ld outputs, %ld fallbacks, %ld bad\n", checked, fell_back, bad);
  return bad != 0 ? 1 : 0;
}

// Channels-last 2-d input, C = 1..40.
int check_channels_last() {
  std::mt19937_64 rng(2);
  long checked = 0, bad = 0;
  for (int it = 0; it < 5000; ++it) {
    Dims3 I{1, 1, 1}, O{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1};
    bool ok = true, ceil = rng() % 2;
    for (int i = 1; i < 3; ++i) {
      I[i] = 1 + rng() % 12; k[i] = 1 + rng() % 4; s[i] = 1 + rng() % 3; d[i] = 1 + rng() % 3;
      p[i] = rng() % (k[i] / 2 + 1);
      O[i] = pooled(I[i], k[i], p[i], s[i], d[i], ceil);
      if (O[i] < 1) ok = false;
    }
    if (!ok) continue;
    const int64_t N = 1 + rng() % 3, C = 1 + rng() % 40, H = I[1], W = I[2], OH = O[1], OW = O[2];
    std::vector<float> x(N * H * W * C);
    for (auto& v : x) { int r = rng() % 20; v = r == 0 ? NAN : r == 1 ? -INFINITY : float(int(rng() % 4) - 2); }
    std::vector<float> out(N * C * OH * OW);
    std::vector<int64_t> ind(N * C * OH * OW);
    if (!max_pool_channels_last(ScalarType::Float32, x.data(), out.data(), ind.data(), N, C, I, O, k, s, p, d)) return 2;
    for (int64_t n = 0; n < N; ++n) for (int64_t c = 0; c < C; ++c)
      for (int64_t oh = 0; oh < OH; ++oh) for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * s[1] - p[1], w0 = ow * s[2] - p[2];
        int64_t h1 = std::min(h0 + (k[1] - 1) * d[1] + 1, H), w1 = std::min(w0 + (k[2] - 1) * d[2] + 1, W);
        while (h0 < 0) h0 += d[1]; while (w0 < 0) w0 += d[2];
        float best = -INFINITY; int64_t bi = h0 * W + w0;
        for (int64_t b = h0; b < h1; b += d[1]) for (int64_t a = w0; a < w1; a += d[2]) {
          float v = x[((n * H + b) * W + a) * C + c];
          if (v > best || std::isnan(v)) { best = v; bi = b * W + a; }
        }
        int64_t o = ((n * C + c) * OH + oh) * OW + ow;
        bool same = (out[o] == best || (std::isnan(out[o]) && std::isnan(best))) && ind[o] == bi;
        if (!same && bad++ < 5) std::printf("mismatch it %d\n", it);
        ++checked;
      }
  }
  std::printf("channels-last: checked %ld outputs, %ld bad\n", checked, bad);
  return bad != 0 ? 1 : 0;
}

}  // namespace

int main() { return check_planes() | check_channels_last(); }
