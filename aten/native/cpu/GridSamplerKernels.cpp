// grid_sampler_2d / grid_sampler_3d, forward and backward, and the grid_sampler entry point.
//
// Each output point reads the input at the position its grid entry names: the normalized coordinate
// is mapped to pixel units (unnormalize), then folded into the image by the padding mode (border
// clips, reflection mirrors about the extreme pixels' centers or edges); zeros padding leaves it and
// out-of-image taps read 0. Bilinear (trilinear in 3-D) blends the 2^k surrounding pixels, nearest
// takes the one at the rounded position (half to even), bicubic (2-D) the 4x4 around it with cubic
// convolution weights (A = -0.75), each tap folded by the padding mode.
//
// The backward scatters each output gradient to the taps with the same weights (grad_input) and
// differentiates the weights with respect to the position, times the derivative of the coordinate
// mapping (grad_grid). Both engines are generic over k = 2, 3 spatial dims; the math is in acc_t
// (float for float16/bfloat16), planes are parallel over points in the forward and over the batch in
// the backward (whose scatter would race across points of one sample).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_grid_sampler_double_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/grid_sampler.h"
#include "generated/ops/grid_sampler_2d.h"
#include "generated/ops/grid_sampler_2d_backward.h"
#include "generated/ops/grid_sampler_3d.h"
#include "generated/ops/grid_sampler_3d_backward.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

enum Mode : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum Padding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

// ---------------------------------------------------------------- checks (PyTorch's messages)

void check_common(const Tensor& input, const Tensor& grid) {
  TL_CHECK(input.device() == grid.device(),
           "grid_sampler(): expected input and grid to be on same device, but input is on ", input.device().str(),
           " and grid is on ", grid.device().str());
  TL_CHECK_INDEX(input.dim() > 0 && grid.dim() > 0,
                 "grid_sampler(): dimension specified as 0 but tensor has no dimensions");
  TL_CHECK(input.sizes()[0] == grid.sizes()[0],
           "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
           input.sizes(), " and grid with sizes ", grid.sizes());
  TL_CHECK(grid.sizes()[grid.dim() - 1] == input.dim() - 2, "grid_sampler(): expected grid to have size ",
           input.dim() - 2, " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t d = 2; d < input.dim(); ++d)
    TL_CHECK(input.sizes()[d] > 0,
             "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
             input.sizes(), " with dimension ", d, " being empty");
}

void check_rank(const Tensor& input, const Tensor& grid, int64_t k, int64_t mode) {
  TL_CHECK(input.dim() == k + 2 && input.dim() == grid.dim(), "grid_sampler(): expected ", k + 2,
           "D input and grid with same number of dimensions, but got input with sizes ", input.sizes(),
           " and grid with sizes ", grid.sizes());
  TL_CHECK(!(k == 3 && mode == Bicubic), "grid_sampler(): bicubic interpolation only supports 4D input");
}

void check_args(const char* op, const Tensor& input, const Tensor& grid, int64_t k, int64_t mode, int64_t padding) {
  check_common(input, grid);
  check_rank(input, grid, k, mode);
  TL_CHECK(mode >= Bilinear && mode <= (k == 2 ? Bicubic : Nearest), op, ": unsupported interpolation_mode ",
           mode);
  TL_CHECK(padding >= Zeros && padding <= Reflection, op, ": unsupported padding_mode ", padding);
  // PyTorch's CPU kernels have no complex loop and reach it before comparing the grid's dtype.
  TL_CHECK_AS(NotImplementedError, !is_complex_type(input.scalar_type()), op, ": not implemented for dtype ",
              scalar_type_name(input.scalar_type()));
  TL_CHECK(grid.scalar_type() == input.scalar_type(), op, ": expected scalar type ",
           legacy_type_name(input.scalar_type()), " but found ", legacy_type_name(grid.scalar_type()));
}

// ---------------------------------------------------------------- coordinate mapping

// Normalized [-1, 1] to pixel units; `g` gets d(result)/d(coord).
template <typename acc_t>
acc_t unnormalize(acc_t c, int64_t size, bool align_corners, acc_t* g) {
  if (align_corners) {
    *g = acc_t(size - 1) / 2;
    return (c + 1) / 2 * (size - 1);
  }
  *g = acc_t(size) / 2;
  return ((c + 1) * size - 1) / 2;
}

// Clamp to [0, size - 1]. A NaN becomes 0 in the 2-D sampler and size - 1 in the 3-D one, as PyTorch's
// vectorized 2-D and generic 3-D kernels give.
template <typename acc_t>
acc_t clip(acc_t in, int64_t size, bool nan_to_zero, acc_t* g) {
  const acc_t hi = static_cast<acc_t>(size - 1);
  *g = (in > 0 && in < hi) ? acc_t(1) : acc_t(0);
  if (std::isnan(in)) return nan_to_zero ? acc_t(0) : hi;
  return std::min(hi, std::max(in, acc_t(0)));
}

// Mirror `in` into [twice_low / 2, twice_high / 2].
template <typename acc_t>
acc_t reflect(acc_t in, int64_t twice_low, int64_t twice_high, acc_t* g) {
  if (twice_low == twice_high) {
    *g = 0;
    return 0;
  }
  const acc_t lo = static_cast<acc_t>(twice_low) / 2, span = static_cast<acc_t>(twice_high - twice_low) / 2;
  if (!std::isfinite(in)) {
    *g = 0;
    return std::numeric_limits<acc_t>::quiet_NaN();  // clipped next
  }
  acc_t sign = 1;
  in -= lo;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  const acc_t extra = std::fmod(in, span);
  const int64_t flips = static_cast<int64_t>(std::floor(in / span));
  if (flips % 2 == 0) {
    *g = sign;
    return extra + lo;
  }
  *g = -sign;
  return span - extra + lo;
}

// The 3-D sampler reads positions that are not finite or far outside the image as out of bounds.
template <typename acc_t>
acc_t safe_index(acc_t x) {
  const acc_t limit = static_cast<acc_t>(std::numeric_limits<int32_t>::max() - 1);
  return (std::isfinite(x) && x > -limit && x < limit) ? x : acc_t(-100);
}

// The padding mode's fold of a pixel-unit position; `g` gets its derivative. k is the sampler's rank.
template <typename acc_t>
acc_t fold(acc_t x, int64_t size, int64_t padding, bool align_corners, int k, acc_t* g) {
  *g = 1;
  if (padding == Border) {
    x = clip(x, size, k == 2, g);
  } else if (padding == Reflection) {
    acc_t gr, gc;
    x = align_corners ? reflect(x, 0, 2 * (size - 1), &gr) : reflect(x, -1, 2 * size - 1, &gr);
    x = clip(x, size, k == 2, &gc);
    *g = gr * gc;
  }
  return k == 2 ? x : safe_index(x);
}

// Whether the integral position x is a pixel of an axis of `size` (NaN and huge values are not).
template <typename acc_t>
bool pixel(acc_t x, int64_t size, int64_t* i) {
  if (!(x >= 0 && x < static_cast<acc_t>(size))) return false;
  *i = static_cast<int64_t>(x);
  return *i < size;
}

template <typename acc_t>
acc_t source_index(acc_t c, int64_t size, int64_t padding, bool align_corners, int k, acc_t* g) {
  acc_t gu, gf;
  const acc_t x = fold(unnormalize(c, size, align_corners, &gu), size, padding, align_corners, k, &gf);
  *g = gu * gf;
  return x;
}

// Cubic convolution weights of the taps at floor - 1 .. floor + 2 for fraction t, and their first and
// second t-derivatives.
template <typename acc_t>
void cubic_weights(acc_t t, acc_t w[4], acc_t dw[4], acc_t d2w[4]) {
  const acc_t A = acc_t(-0.75);
  auto near = [A](acc_t x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [A](acc_t x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  auto dnear = [A](acc_t x) { return (3 * (A + 2) * x - 2 * (A + 3)) * x; };
  auto dfar = [A](acc_t x) { return (3 * A * x - 10 * A) * x + 8 * A; };
  auto d2near = [A](acc_t x) { return 6 * (A + 2) * x - 2 * (A + 3); };
  auto d2far = [A](acc_t x) { return 6 * A * x - 10 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
  dw[0] = dfar(t + 1);
  dw[1] = dnear(t);
  dw[2] = -dnear(1 - t);
  dw[3] = -dfar(2 - t);
  d2w[0] = d2far(t + 1);
  d2w[1] = d2near(t);
  d2w[2] = d2near(1 - t);
  d2w[3] = d2far(2 - t);
}

// ---------------------------------------------------------------- the taps of one point

constexpr int kMaxTaps = 16;

// The input offsets (within one channel plane; -1 outside) and weights one point reads, the weights'
// derivatives along each axis (`dw[a]`, axes in D, H, W order) for the grid gradient, and their second
// derivatives (`d2w[a][b]`, filled on request) for the double backward.
template <typename acc_t, int K>
struct Taps {
  int n = 0;
  int64_t off[kMaxTaps];
  acc_t w[kMaxTaps];
  acc_t dw[K][kMaxTaps];
  acc_t d2w[K][K][kMaxTaps];
  acc_t mult[K];  // d(position)/d(normalized coordinate) per axis
};

template <typename acc_t, int K>
struct Geometry {
  int64_t in[K];       // input spatial sizes, D, H, W order
  int64_t stride[K];   // their strides within a plane
  int64_t mode, padding;
  bool align_corners;
};

template <typename acc_t, int K>
void point_taps(const Geometry<acc_t, K>& geo, const acc_t* coord, Taps<acc_t, K>& t, bool second = false) {
  // coord[j] is the grid entry's j-th value: x (j = 0) indexes the last axis.
  acc_t pos[K], mult[K];
  t.n = 0;
  if (geo.mode == Bicubic) {
    // 2-D only; the position is not folded, each tap is.
    acc_t wx[2][4], dwx[2][4], d2wx[2][4], base[2];
    for (int a = 0; a < 2; ++a) {
      const acc_t p = unnormalize(coord[1 - a], geo.in[a], geo.align_corners, &mult[a]);
      const acc_t f = std::floor(p);
      base[a] = f;
      cubic_weights(p - f, wx[a], dwx[a], d2wx[a]);
      t.mult[a] = mult[a];
    }
    for (int i = 0; i < 4; ++i) {    // H
      for (int j = 0; j < 4; ++j) {  // W
        int64_t idx[2];
        bool inside = true;
        for (int a = 0; a < 2; ++a) {
          acc_t unused;
          const acc_t x = fold(base[a] - 1 + (a == 0 ? i : j), geo.in[a], geo.padding, geo.align_corners, 2,
                               &unused);
          inside = pixel(x, geo.in[a], &idx[a]) && inside;
        }
        t.off[t.n] = inside ? idx[0] * geo.stride[0] + idx[1] * geo.stride[1] : -1;
        t.w[t.n] = wx[0][i] * wx[1][j];
        t.dw[0][t.n] = dwx[0][i] * wx[1][j];
        t.dw[1][t.n] = wx[0][i] * dwx[1][j];
        if (second) {
          t.d2w[0][0][t.n] = d2wx[0][i] * wx[1][j];
          t.d2w[1][1][t.n] = wx[0][i] * d2wx[1][j];
          t.d2w[0][1][t.n] = t.d2w[1][0][t.n] = dwx[0][i] * dwx[1][j];
        }
        ++t.n;
      }
    }
    return;
  }
  for (int a = 0; a < K; ++a) {
    pos[a] = source_index(coord[K - 1 - a], geo.in[a], geo.padding, geo.align_corners, K, &mult[a]);
    t.mult[a] = mult[a];
  }
  if (geo.mode == Nearest) {
    int64_t off = 0;
    bool inside = true;
    for (int a = 0; a < K; ++a) {
      int64_t i = 0;
      inside = pixel(std::nearbyint(pos[a]), geo.in[a], &i) && inside;
      off += i * geo.stride[a];
    }
    t.off[0] = inside ? off : -1;
    t.w[0] = 1;
    for (int a = 0; a < K; ++a) {
      t.dw[a][0] = 0;
      for (int b = 0; b < K; ++b) t.d2w[a][b][0] = 0;
    }
    t.n = 1;
    return;
  }
  // (bi/tri)linear: corner bit a picks floor + 1 along axis K - 1 - a (x fastest, as PyTorch sums).
  acc_t lo[K], wlo[K], whi[K];
  for (int a = 0; a < K; ++a) {
    const acc_t f = std::floor(pos[a]);
    lo[a] = f;
    whi[a] = pos[a] - f;
    wlo[a] = (f + 1) - pos[a];
  }
  for (int m = 0; m < (1 << K); ++m) {
    int64_t off = 0;
    bool inside = true;
    acc_t w = 1;
    acc_t dw[K];
    for (int a = 0; a < K; ++a) dw[a] = 1;
    for (int b = K - 1; b >= 0; --b) {  // x, y, z: PyTorch's product order
      const bool hi = (m >> (K - 1 - b)) & 1;
      int64_t i = 0;
      inside = pixel(lo[b] + hi, geo.in[b], &i) && inside;
      off += i * geo.stride[b];
      w *= hi ? whi[b] : wlo[b];
      for (int a = 0; a < K; ++a) dw[a] *= a == b ? (hi ? acc_t(1) : acc_t(-1)) : (hi ? whi[b] : wlo[b]);
    }
    t.off[t.n] = inside ? off : -1;
    t.w[t.n] = w;
    for (int a = 0; a < K; ++a) t.dw[a][t.n] = dw[a];
    if (second) {
      // d2w/dpos_a dpos_c: the signs of both axes times the other axes' weights; 0 on the diagonal.
      for (int a = 0; a < K; ++a)
        for (int c = 0; c < K; ++c) {
          acc_t v = a == c ? acc_t(0) : acc_t(1);
          for (int b = 0; b < K && a != c; ++b) {
            const bool hi = (m >> (K - 1 - b)) & 1;
            v *= (b == a || b == c) ? (hi ? acc_t(1) : acc_t(-1)) : (hi ? whi[b] : wlo[b]);
          }
          t.d2w[a][c][t.n] = v;
        }
    }
    ++t.n;
  }
}

template <typename acc_t, int K>
Geometry<acc_t, K> geometry(const Tensor& input, int64_t mode, int64_t padding, bool align_corners) {
  Geometry<acc_t, K> g;
  int64_t s = 1;
  for (int a = K - 1; a >= 0; --a) {
    g.in[a] = input.sizes()[2 + a];
    g.stride[a] = s;
    s *= g.in[a];
  }
  g.mode = mode;
  g.padding = padding;
  g.align_corners = align_corners;
  return g;
}

int64_t plane_size(const Tensor& t) {
  int64_t p = 1;
  for (int64_t d = 2; d < t.dim(); ++d) p *= t.sizes()[d];
  return p;
}

// Points per sample: the grid's sizes between batch and coordinate dims.
int64_t grid_points(const Tensor& grid) {
  int64_t p = 1;
  for (int64_t d = 1; d + 1 < grid.dim(); ++d) p *= grid.sizes()[d];
  return p;
}

template <typename T, int K>
void forward(const Tensor& input, const Tensor& grid, Tensor& out, int64_t mode, int64_t padding,
             bool align_corners) {
  using acc_t = opmath_t<T>;
  const auto geo = geometry<acc_t, K>(input, mode, padding, align_corners);
  const int64_t N = input.sizes()[0], C = input.sizes()[1], P = grid_points(grid), in_plane = plane_size(input);
  const T* in = input.data_ptr<T>();
  const T* gr = grid.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C * (1 << K)));
  parallel_for(0, N * P, grain, [&](int64_t b, int64_t e) {
    Taps<acc_t, K> t;
    for (int64_t np = b; np < e; ++np) {
      const int64_t n = np / P, p = np % P;
      acc_t coord[K];
      for (int j = 0; j < K; ++j) coord[j] = static_cast<acc_t>(gr[np * K + j]);
      point_taps(geo, coord, t);
      for (int64_t c = 0; c < C; ++c) {
        const T* plane = in + (n * C + c) * in_plane;
        acc_t sum = 0;
        // An out-of-image tap adds 0 times its weight: a NaN position gives NaN, as PyTorch's.
        for (int i = 0; i < t.n; ++i) sum += t.w[i] * (t.off[i] >= 0 ? static_cast<acc_t>(plane[t.off[i]]) : acc_t(0));
        o[(n * C + c) * P + p] = static_cast<T>(sum);
      }
    }
  });
}

template <typename T, int K>
void backward(const Tensor& grad_out, const Tensor& input, const Tensor& grid, Tensor* grad_input,
              Tensor& grad_grid, int64_t mode, int64_t padding, bool align_corners) {
  using acc_t = opmath_t<T>;
  const auto geo = geometry<acc_t, K>(input, mode, padding, align_corners);
  const int64_t N = input.sizes()[0], C = input.sizes()[1], P = grid_points(grid), in_plane = plane_size(input);
  const T* in = input.data_ptr<T>();
  const T* gr = grid.data_ptr<T>();
  const T* go = grad_out.data_ptr<T>();
  T* gi = grad_input ? grad_input->data_ptr<T>() : nullptr;
  T* gg = grad_grid.data_ptr<T>();
  parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
    Taps<acc_t, K> t;
    std::vector<acc_t> acc(gi ? static_cast<size_t>(C * in_plane) : 0);
    for (int64_t n = b; n < e; ++n) {
      std::fill(acc.begin(), acc.end(), acc_t(0));
      for (int64_t p = 0; p < P; ++p) {
        acc_t coord[K];
        for (int j = 0; j < K; ++j) coord[j] = static_cast<acc_t>(gr[(n * P + p) * K + j]);
        point_taps(geo, coord, t);
        acc_t gpos[K] = {};
        for (int64_t c = 0; c < C; ++c) {
          const acc_t g = static_cast<acc_t>(go[(n * C + c) * P + p]);
          const T* plane = in + (n * C + c) * in_plane;
          for (int i = 0; i < t.n; ++i) {
            if (t.off[i] < 0) continue;
            if (gi) acc[static_cast<size_t>(c * in_plane + t.off[i])] += t.w[i] * g;
            const acc_t v = static_cast<acc_t>(plane[t.off[i]]) * g;
            for (int a = 0; a < K; ++a) gpos[a] += v * t.dw[a][i];
          }
        }
        for (int j = 0; j < K; ++j) {
          const int a = K - 1 - j;
          gg[(n * P + p) * K + j] = static_cast<T>(t.mult[a] * gpos[a]);
        }
      }
      if (gi)
        for (int64_t i = 0; i < C * in_plane; ++i) gi[n * C * in_plane + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
}

// The part of the sampler backward's derivative that flows from the grid gradient's gradient `ggg`
// (the input gradient's part is a forward sampling and a grid gradient, left to those ops): per point,
// S_i = sum_a ggg_a * mult_a * dw_a[i] weighs tap i, giving
//   d grad_output[c, p] = sum_i x[c, tap_i] * S_i,   d input[c, tap_i] += grad_output[c, p] * S_i,
//   d grid_b = mult_b * sum_{c, i} x[c, tap_i] * grad_output[c, p] * sum_a ggg_a * mult_a * d2w_ab[i].
template <typename T, int K>
void double_backward(const Tensor& ggg_t, const Tensor& grad_out, const Tensor& input, const Tensor& grid,
                     Tensor& d_go, Tensor& d_input, Tensor& d_grid, int64_t mode, int64_t padding,
                     bool align_corners) {
  using acc_t = opmath_t<T>;
  const auto geo = geometry<acc_t, K>(input, mode, padding, align_corners);
  const int64_t N = input.sizes()[0], C = input.sizes()[1], P = grid_points(grid), in_plane = plane_size(input);
  const T* in = input.data_ptr<T>();
  const T* gr = grid.data_ptr<T>();
  const T* go = grad_out.data_ptr<T>();
  const T* ggg = ggg_t.data_ptr<T>();
  T* dgo = d_go.data_ptr<T>();
  T* din = d_input.data_ptr<T>();
  T* dgr = d_grid.data_ptr<T>();
  parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
    Taps<acc_t, K> t;
    std::vector<acc_t> acc(static_cast<size_t>(C * in_plane));
    for (int64_t n = b; n < e; ++n) {
      std::fill(acc.begin(), acc.end(), acc_t(0));
      for (int64_t p = 0; p < P; ++p) {
        acc_t coord[K], G[K];
        for (int j = 0; j < K; ++j) coord[j] = static_cast<acc_t>(gr[(n * P + p) * K + j]);
        point_taps(geo, coord, t, true);
        for (int a = 0; a < K; ++a) G[a] = static_cast<acc_t>(ggg[(n * P + p) * K + (K - 1 - a)]) * t.mult[a];
        acc_t S[kMaxTaps], H[K][kMaxTaps];
        for (int i = 0; i < t.n; ++i) {
          S[i] = 0;
          for (int a = 0; a < K; ++a) S[i] += G[a] * t.dw[a][i];
          for (int c = 0; c < K; ++c) {
            H[c][i] = 0;
            for (int a = 0; a < K; ++a) H[c][i] += G[a] * t.d2w[a][c][i];
          }
        }
        acc_t gpos[K] = {};
        for (int64_t c = 0; c < C; ++c) {
          const acc_t g = static_cast<acc_t>(go[(n * C + c) * P + p]);
          const T* plane = in + (n * C + c) * in_plane;
          acc_t sum = 0;
          for (int i = 0; i < t.n; ++i) {
            if (t.off[i] < 0) continue;
            const acc_t x = static_cast<acc_t>(plane[t.off[i]]);
            sum += x * S[i];
            acc[static_cast<size_t>(c * in_plane + t.off[i])] += g * S[i];
            for (int a = 0; a < K; ++a) gpos[a] += x * g * H[a][i];
          }
          dgo[(n * C + c) * P + p] = static_cast<T>(sum);
        }
        for (int j = 0; j < K; ++j) {
          const int a = K - 1 - j;
          dgr[(n * P + p) * K + j] = static_cast<T>(t.mult[a] * gpos[a]);
        }
      }
      for (int64_t i = 0; i < C * in_plane; ++i) din[n * C * in_plane + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
}

template <int K>
Tensor sampler_forward(const char* op, const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                       bool align_corners) {
  check_args(op, input, grid, K, mode, padding);
  DimVector shape{input.sizes()[0], input.sizes()[1]};
  for (int64_t d = 1; d + 1 < grid.dim(); ++d) shape.push_back(grid.sizes()[d]);
  Tensor out = tl::empty(shape, input.scalar_type(), input.device());
  if (K == 2 && out.numel() == 0) return out;  // PyTorch's 2-D kernel returns before its dtype check
  TL_DISPATCH_FLOAT(input.scalar_type(), op, [&] {
    if (input.is_meta() || out.numel() == 0) return;
    const Tensor in = tl::contiguous(input), gr = tl::contiguous(grid);
    forward<scalar_t, K>(in, gr, out, mode, padding, align_corners);
  });
  return out;
}

template <int K>
std::tuple<Tensor, Tensor> sampler_backward(const char* op, const Tensor& grad_output, const Tensor& input,
                                            const Tensor& grid, int64_t mode, int64_t padding, bool align_corners,
                                            std::array<bool, 2> output_mask) {
  check_args(op, input, grid, K, mode, padding);
  TL_CHECK(grad_output.dim() == K + 2, op, ": expected grad_output to have ", K + 2, " dimensions, but got ",
           grad_output.dim());
  TL_CHECK(grad_output.sizes()[0] == input.sizes()[0] && grad_output.sizes()[1] == input.sizes()[1], op,
           ": expected grad_output with sizes of the output, but got ", grad_output.sizes());
  for (int64_t d = 1; d + 1 < grid.dim(); ++d)
    TL_CHECK(grad_output.sizes()[d + 1] == grid.sizes()[d], op,
             ": expected grad_output with sizes of the output, but got ", grad_output.sizes());
  TL_CHECK(grad_output.scalar_type() == input.scalar_type(), op, ": expected scalar type ",
           legacy_type_name(input.scalar_type()), " but found ", legacy_type_name(grad_output.scalar_type()));
  Tensor grad_input = output_mask[0] ? tl::zeros(input.sizes(), input.scalar_type(), input.device()) : Tensor();
  Tensor grad_grid = tl::zeros(grid.sizes(), grid.scalar_type(), grid.device());
  if (K == 2 && grad_output.numel() == 0) return {grad_input, grad_grid};  // as the forward
  TL_DISPATCH_FLOAT(input.scalar_type(), op, [&] {
    if (input.is_meta() || grid.numel() == 0 || input.numel() == 0) return;
    const Tensor in = tl::contiguous(input), gr = tl::contiguous(grid), go = tl::contiguous(grad_output);
    backward<scalar_t, K>(go, in, gr, output_mask[0] ? &grad_input : nullptr, grad_grid, mode, padding,
                          align_corners);
  });
  return {grad_input, grad_grid};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _grid_sampler_double_backward_kernel(
    const Tensor& grad_grad_grid, const Tensor& grad_output, const Tensor& input, const Tensor& grid,
    int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  const char* op = "_grid_sampler_double_backward";
  check_common(input, grid);
  const int64_t k = input.dim() - 2;
  TL_CHECK(k == 2 || k == 3, op, ": expected a 4-D or 5-D input, but got sizes ", input.sizes());
  check_args(op, input, grid, k, interpolation_mode, padding_mode);
  TL_CHECK(grad_grad_grid.sizes() == grid.sizes(), op, ": expected grad_grad_grid with the grid's sizes ",
           grid.sizes(), ", but got ", grad_grad_grid.sizes());
  DimVector out_shape{input.sizes()[0], input.sizes()[1]};
  for (int64_t d = 1; d + 1 < grid.dim(); ++d) out_shape.push_back(grid.sizes()[d]);
  TL_CHECK(grad_output.sizes() == IntArrayRef(out_shape), op, ": expected grad_output with sizes ",
           IntArrayRef(out_shape), ", but got ", grad_output.sizes());
  for (const Tensor* t : {&grad_grad_grid, &grad_output})
    TL_CHECK(t->scalar_type() == input.scalar_type(), op, ": expected scalar type ",
             legacy_type_name(input.scalar_type()), " but found ", legacy_type_name(t->scalar_type()));
  Tensor d_go = tl::zeros(out_shape, input.scalar_type(), input.device());
  Tensor d_input = tl::zeros(input.sizes(), input.scalar_type(), input.device());
  Tensor d_grid = tl::zeros(grid.sizes(), grid.scalar_type(), grid.device());
  TL_DISPATCH_FLOAT(input.scalar_type(), op, [&] {
    if (input.is_meta() || d_go.numel() == 0 || input.numel() == 0) return;
    const Tensor in = tl::contiguous(input), gr = tl::contiguous(grid), go = tl::contiguous(grad_output),
                 ggg = tl::contiguous(grad_grad_grid);
    if (k == 2)
      double_backward<scalar_t, 2>(ggg, go, in, gr, d_go, d_input, d_grid, interpolation_mode, padding_mode,
                                   align_corners);
    else
      double_backward<scalar_t, 3>(ggg, go, in, gr, d_go, d_input, d_grid, interpolation_mode, padding_mode,
                                   align_corners);
  });
  return {d_go, d_input, d_grid};
}

Tensor grid_sampler_2d_kernel(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners) {
  return sampler_forward<2>("grid_sampler_2d", input, grid, interpolation_mode, padding_mode, align_corners);
}

Tensor grid_sampler_3d_kernel(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners) {
  return sampler_forward<3>("grid_sampler_3d", input, grid, interpolation_mode, padding_mode, align_corners);
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward_kernel(const Tensor& grad_output, const Tensor& input,
                                                           const Tensor& grid, int64_t interpolation_mode,
                                                           int64_t padding_mode, bool align_corners,
                                                           std::array<bool, 2> output_mask) {
  return sampler_backward<2>("grid_sampler_2d_backward", grad_output, input, grid, interpolation_mode,
                             padding_mode, align_corners, output_mask);
}

std::tuple<Tensor, Tensor> grid_sampler_3d_backward_kernel(const Tensor& grad_output, const Tensor& input,
                                                           const Tensor& grid, int64_t interpolation_mode,
                                                           int64_t padding_mode, bool align_corners,
                                                           std::array<bool, 2> output_mask) {
  return sampler_backward<3>("grid_sampler_3d_backward", grad_output, input, grid, interpolation_mode,
                             padding_mode, align_corners, output_mask);
}

// The rank picks the sampler; the common checks come first, as PyTorch's.
Tensor grid_sampler_composite(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners) {
  check_common(input, grid);
  if (input.dim() == 4) return tl::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
  return tl::grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

}  // namespace tl::native
