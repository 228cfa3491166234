// upsample_nearest / _upsample_nearest_exact / linear / bilinear / bicubic / trilinear, forward and
// backward, on one engine.
//
// Every mode is separable: along each spatial dim, output index o reads `taps` input indices with
// weights (nearest: 1 tap of weight 1; linear: 2; cubic: 4, clamped at the edges). The tables are
// built once per call with PyTorch's index rules (area_pixel_compute_scale / source_index, the
// float nearest index, cubic convolution with A = -0.75) in opmath_t, so the weights are PyTorch's.
// The forward gathers the taps' weighted sum per output element, the backward scatters each
// gradient element back with the same weights; both run in parallel over the planes (N * C).
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_upsample_nearest_exact1d.h"
#include "generated/ops/_upsample_nearest_exact1d_backward.h"
#include "generated/ops/_upsample_nearest_exact2d.h"
#include "generated/ops/_upsample_nearest_exact2d_backward.h"
#include "generated/ops/_upsample_nearest_exact3d.h"
#include "generated/ops/_upsample_nearest_exact3d_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/upsample_bicubic2d.h"
#include "generated/ops/upsample_bicubic2d_backward.h"
#include "generated/ops/upsample_bilinear2d.h"
#include "generated/ops/upsample_bilinear2d_backward.h"
#include "generated/ops/upsample_linear1d.h"
#include "generated/ops/upsample_linear1d_backward.h"
#include "generated/ops/upsample_nearest1d.h"
#include "generated/ops/upsample_nearest1d_backward.h"
#include "generated/ops/upsample_nearest2d.h"
#include "generated/ops/upsample_nearest2d_backward.h"
#include "generated/ops/upsample_nearest3d.h"
#include "generated/ops/upsample_nearest3d_backward.h"

namespace tl::native {
namespace {

enum class Interp { Nearest, NearestExact, Linear, Cubic };

using Scales = std::vector<std::optional<double>>;

// One spatial dim: output index o reads idx[o * taps + t] with weight w[o * taps + t].
template <typename acc_t>
struct Axis {
  int64_t in = 1, out = 1;
  int taps = 1;
  std::vector<int64_t> idx{0};
  std::vector<acc_t> w{acc_t(1)};
};

template <typename acc_t>
acc_t scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  // A given positive scale maps output to input by its inverse (F.interpolate's scale_factor).
  return scale.has_value() && *scale > 0 ? static_cast<acc_t>(1.0 / *scale) : static_cast<acc_t>(in) / out;
}

template <typename acc_t>
acc_t linear_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<acc_t>(in - 1) / (out - 1) : acc_t(0);
  return scale_value<acc_t>(scale, in, out);
}

template <typename acc_t>
acc_t source_index(acc_t scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * o;
  const acc_t src = scale * (o + acc_t(0.5)) - acc_t(0.5);
  return (!cubic && src < 0) ? acc_t(0) : src;
}

template <typename acc_t>
Axis<acc_t> make_axis(Interp mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Axis<acc_t> a;
  a.in = in;
  a.out = out;
  a.taps = mode == Interp::Linear ? 2 : mode == Interp::Cubic ? 4 : 1;
  a.idx.assign(static_cast<size_t>(out * a.taps), 0);
  a.w.assign(static_cast<size_t>(out * a.taps), acc_t(0));
  if (mode == Interp::Nearest || mode == Interp::NearestExact) {
    // PyTorch computes the nearest index in float whatever the dtype.
    const float s = scale_value<float>(scale, in, out);
    for (int64_t o = 0; o < out; ++o) {
      int64_t i;
      if (mode == Interp::Nearest) {
        i = out == in ? o : out == 2 * in ? o >> 1 : static_cast<int64_t>(std::floor(o * s));
      } else {
        i = static_cast<int64_t>(std::floor((o + 0.5f) * s));
      }
      a.idx[o] = std::min(i, in - 1);
      a.w[o] = acc_t(1);
    }
    return a;
  }
  const acc_t s = linear_scale<acc_t>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const acc_t real = source_index<acc_t>(s, o, align_corners, mode == Interp::Cubic);
    if (mode == Interp::Linear) {
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
      const acc_t l1 = std::min(std::max(real - i0, acc_t(0)), acc_t(1));
      a.idx[2 * o] = i0;
      a.idx[2 * o + 1] = i0 + (i0 < in - 1 ? 1 : 0);
      a.w[2 * o] = acc_t(1) - l1;
      a.w[2 * o + 1] = l1;
    } else {
      const int64_t i0 = static_cast<int64_t>(std::floor(real));
      const acc_t t = real - i0;
      const acc_t A = acc_t(-0.75);
      // cubic convolution: |x| <= 1 and 1 < |x| < 2
      auto near = [A](acc_t x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
      auto far = [A](acc_t x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
      const acc_t w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
      for (int k = 0; k < 4; ++k) {
        a.idx[4 * o + k] = std::clamp<int64_t>(i0 - 1 + k, 0, in - 1);
        a.w[4 * o + k] = w[k];
      }
    }
  }
  return a;
}

const char* const kDimNames[3] = {"D", "H", "W"};

std::string sizes_text(IntArrayRef sizes, int64_t k) {
  std::string s;
  for (int64_t j = 0; j < k; ++j) s += str(j ? ", " : "", kDimNames[3 - k + j], ": ", sizes[j]);
  return s;
}

// PyTorch's upsample_{1,2,3}d_common_check: the full output shape.
DimVector check_sizes(const char* op, IntArrayRef input_size, IntArrayRef output_size, int64_t k) {
  TL_CHECK(static_cast<int64_t>(output_size.size()) == k, op, ": It is expected output_size equals to ", k,
           ", but got size ", output_size.size());
  TL_CHECK(static_cast<int64_t>(input_size.size()) == k + 2, op, ": It is expected input_size equals to ", k + 2,
           ", but got size ", input_size.size());
  bool positive = true;
  for (int64_t j = 0; j < k; ++j) positive = positive && input_size[2 + j] > 0 && output_size[j] > 0;
  TL_CHECK(positive, op, ": Input and output sizes should be greater than 0, but got input (",
           sizes_text(input_size.slice(2), k), ") output (", sizes_text(output_size, k), ")");
  DimVector shape{input_size[0], input_size[1]};
  for (int64_t j = 0; j < k; ++j) shape.push_back(output_size[j]);
  return shape;
}

template <typename acc_t>
struct Plan {
  int64_t planes = 0;
  Axis<acc_t> ax[3];  // D, H, W; the unused leading ones are size 1
};

template <typename acc_t>
Plan<acc_t> make_plan(Interp mode, IntArrayRef input_size, IntArrayRef output_size, int64_t k, bool align_corners,
                      const Scales& scales) {
  Plan<acc_t> p;
  p.planes = input_size[0] * input_size[1];
  for (int64_t j = 0; j < k; ++j)
    p.ax[3 - k + j] = make_axis<acc_t>(mode, input_size[2 + j], output_size[j], align_corners, scales[j]);
  return p;
}

// Bilinear (2 taps along H and W, one along D) for floating types, row by row: each input row is
// interpolated along W once into a buffer (kept while the next output rows still use it), and an output
// row is the H-weighted sum of two such buffers, a contiguous vectorized loop. Same formula and order as
// the general loop: h0 * (w0 * x00 + w1 * x01) + h1 * (w0 * x10 + w1 * x11).
template <typename T, typename acc_t>
TL_TARGET_CLONES void lerp_row(const T* row, const int64_t* wi, const acc_t* ww, int64_t n, acc_t* h) {
#pragma omp simd
  for (int64_t x = 0; x < n; ++x)
    h[x] = ww[2 * x] * static_cast<acc_t>(row[wi[2 * x]]) + ww[2 * x + 1] * static_cast<acc_t>(row[wi[2 * x + 1]]);
}

template <typename T, typename acc_t>
TL_TARGET_CLONES void blend_rows(const acc_t* a, const acc_t* b, acc_t wa, acc_t wb, int64_t n, T* o) {
#pragma omp simd
  for (int64_t x = 0; x < n; ++x) o[x] = static_cast<T>(wa * a[x] + wb * b[x]);
}

template <typename T, typename acc_t>
void bilinear_forward(const T* in, T* out, const Plan<acc_t>& p) {
  const Axis<acc_t>&H = p.ax[1], &W = p.ax[2];
  const int64_t in_plane = H.in * W.in, out_plane = H.out * W.out, planes = p.planes;  // D is 1 here
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    std::vector<acc_t> buf(static_cast<size_t>(2 * W.out));
    acc_t* slot[2] = {buf.data(), buf.data() + W.out};
    for (int64_t pl = b; pl < e; ++pl) {
      const T* src = in + pl * in_plane;
      T* dst = out + pl * out_plane;
      int64_t held[2] = {-1, -1};  // the input rows the two slots hold
      for (int64_t oh = 0; oh < H.out; ++oh) {
        acc_t* r[2];
        int used = -1;  // the slot the first tap got
        for (int c = 0; c < 2; ++c) {
          const int64_t ih = H.idx[2 * oh + c];
          int k = held[0] == ih ? 0 : held[1] == ih ? 1 : -1;
          if (k < 0) {
            // Keep the slot the other tap holds (first tap) or got (second tap).
            if (c == 0) k = held[0] == H.idx[2 * oh + 1] ? 1 : 0;
            else k = 1 - used;
            lerp_row<T, acc_t>(src + ih * W.in, W.idx.data(), W.w.data(), W.out, slot[k]);
            held[k] = ih;
          }
          if (c == 0) used = k;
          r[c] = slot[k];
        }
        blend_rows<T, acc_t>(r[0], r[1], H.w[2 * oh], H.w[2 * oh + 1], W.out, dst + oh * W.out);
      }
    }
  });
}

// Output elements in order; along W the taps are read from the (up to 16) rows the D and H taps select.
template <typename T, typename acc_t>
void upsample_forward(const T* in, T* out, const Plan<acc_t>& p) {
  const Axis<acc_t>&D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t in_plane = D.in * H.in * W.in, out_plane = D.out * H.out * W.out;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  parallel_for(0, p.planes, grain, [&](int64_t b, int64_t e) {
    const T* rows[16];
    acc_t rw[16];
    for (int64_t pl = b; pl < e; ++pl) {
      const T* src = in + pl * in_plane;
      T* dst = out + pl * out_plane;
      for (int64_t od = 0; od < D.out; ++od) {
        for (int64_t oh = 0; oh < H.out; ++oh) {
          int nr = 0;
          for (int a = 0; a < D.taps; ++a)
            for (int c = 0; c < H.taps; ++c) {
              rows[nr] = src + (D.idx[od * D.taps + a] * H.in + H.idx[oh * H.taps + c]) * W.in;
              rw[nr++] = D.w[od * D.taps + a] * H.w[oh * H.taps + c];
            }
          T* o = dst + (od * H.out + oh) * W.out;
          const int64_t* wi = W.idx.data();
          const acc_t* ww = W.w.data();
          const int tw = W.taps;
          for (int64_t x = 0; x < W.out; ++x) {
            acc_t sum = 0;
            for (int r = 0; r < nr; ++r) {
              acc_t row_sum = 0;
              for (int t = 0; t < tw; ++t) row_sum += ww[x * tw + t] * static_cast<acc_t>(rows[r][wi[x * tw + t]]);
              sum += rw[r] * row_sum;
            }
            if constexpr (std::is_integral_v<T>) {
              // uint8 rounds to nearest and saturates, as PyTorch's uint8 interpolation.
              o[x] = static_cast<T>(std::clamp<acc_t>(std::nearbyint(sum), 0, 255));
            } else {
              o[x] = static_cast<T>(sum);
            }
          }
        }
      }
    }
  });
}

// The bilinear backward, plane by plane in acc_t: each grad_output row is scattered along W once into
// a row buffer (2 taps per element), which is then added, times each H weight, to the two input rows
// it came from (contiguous, vectorized). The general loop below scatters every element 4 times with
// the product weights; this does half the scalar read-modify-writes. Sums differ from it (and from
// PyTorch's per-element h * w * g order) by rounding only.
template <typename T, typename acc_t>
TL_TARGET_CLONES void axpy_row(acc_t* acc, const acc_t* s, acc_t w, int64_t n) {
#pragma omp simd
  for (int64_t x = 0; x < n; ++x) acc[x] += w * s[x];
}

template <typename T, typename acc_t>
void bilinear_backward(const T* go, T* gi, const Plan<acc_t>& p) {
  const Axis<acc_t>&H = p.ax[1], &W = p.ax[2];
  const int64_t in_plane = H.in * W.in, out_plane = H.out * W.out;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  parallel_for(0, p.planes, grain, [&](int64_t b, int64_t e) {
    std::vector<acc_t> acc(static_cast<size_t>(in_plane)), s(static_cast<size_t>(W.in));
    const int64_t* wi = W.idx.data();
    const acc_t* ww = W.w.data();
    for (int64_t pl = b; pl < e; ++pl) {
      std::fill(acc.begin(), acc.end(), acc_t(0));
      const T* src = go + pl * out_plane;
      for (int64_t oh = 0; oh < H.out; ++oh) {
        const T* g = src + oh * W.out;
        std::fill(s.begin(), s.end(), acc_t(0));
        for (int64_t x = 0; x < W.out; ++x) {
          const acc_t v = static_cast<acc_t>(g[x]);
          s[static_cast<size_t>(wi[2 * x])] += ww[2 * x] * v;
          s[static_cast<size_t>(wi[2 * x + 1])] += ww[2 * x + 1] * v;
        }
        for (int c = 0; c < 2; ++c)
          axpy_row<T, acc_t>(acc.data() + H.idx[2 * oh + c] * W.in, s.data(), H.w[2 * oh + c], W.in);
      }
      T* dst = gi + pl * in_plane;
      for (int64_t i = 0; i < in_plane; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
}

// grad_input[taps of o] += weight * grad_output[o], in acc_t per plane (float for the 16-bit floats).
template <typename T, typename acc_t>
void upsample_backward(const T* go, T* gi, const Plan<acc_t>& p) {
  const Axis<acc_t>&D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t in_plane = D.in * H.in * W.in, out_plane = D.out * H.out * W.out;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  parallel_for(0, p.planes, grain, [&](int64_t b, int64_t e) {
    std::vector<acc_t> acc(static_cast<size_t>(in_plane));
    for (int64_t pl = b; pl < e; ++pl) {
      std::fill(acc.begin(), acc.end(), acc_t(0));
      const T* src = go + pl * out_plane;
      for (int64_t od = 0; od < D.out; ++od) {
        for (int64_t oh = 0; oh < H.out; ++oh) {
          const T* g = src + (od * H.out + oh) * W.out;
          for (int a = 0; a < D.taps; ++a)
            for (int c = 0; c < H.taps; ++c) {
              acc_t* row = acc.data() + (D.idx[od * D.taps + a] * H.in + H.idx[oh * H.taps + c]) * W.in;
              const acc_t rw = D.w[od * D.taps + a] * H.w[oh * H.taps + c];
              for (int64_t x = 0; x < W.out; ++x) {
                const acc_t v = rw * static_cast<acc_t>(g[x]);
                for (int t = 0; t < W.taps; ++t) row[W.idx[x * W.taps + t]] += W.w[x * W.taps + t] * v;
              }
            }
        }
      }
      T* dst = gi + pl * in_plane;
      for (int64_t i = 0; i < in_plane; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
}

void upsample_kernel(const char* op, Interp mode, const Tensor& self, IntArrayRef output_size, int64_t k,
                     bool align_corners, const Scales& scales, Tensor& out) {
  TL_CHECK(static_cast<int64_t>(output_size.size()) == k, op, ": It is expected output_size equals to ", k,
           ", but got size ", output_size.size());
  TL_CHECK(self.dim() == k + 2, op, ": It is expected input_size equals to ", k + 2, ", but got size ", self.dim());
  bool nonempty = true;  // an empty batch is allowed, no other empty dim
  for (int64_t d = 1; d < self.dim(); ++d) nonempty = nonempty && self.sizes()[d] != 0;
  TL_CHECK(nonempty, op, ": Non-empty ", k + 2, "D data tensor expected but got a tensor with sizes ", self.sizes());
  const DimVector shape = check_sizes(op, self.sizes(), output_size, k);
  prepare_output(out, {op, shape, self.dtype(), self.device(), OutDtype::Exact});
  auto run = [&](auto tag) {
    using scalar_t = decltype(tag);
    using acc_t = opmath_t<scalar_t>;
    if (self.is_meta() || out.numel() == 0) return;
    const Plan<acc_t> plan = make_plan<acc_t>(mode, self.sizes(), output_size, k, align_corners, scales);
    const Tensor in = self.is_contiguous() ? self : tl::contiguous(self);
    Tensor buf = output_buffer(out, self.dtype(), self);
    if (plan.ax[0].in == 1 && plan.ax[0].out == 1 && plan.ax[1].taps == 2 && plan.ax[2].taps == 2)
      bilinear_forward<scalar_t, acc_t>(in.data_ptr<scalar_t>(), buf.data_ptr<scalar_t>(), plan);
    else
      upsample_forward<scalar_t, acc_t>(in.data_ptr<scalar_t>(), buf.data_ptr<scalar_t>(), plan);
    commit_output(out, buf);
  };
  const bool uint8_ok = mode != Interp::Linear || k == 2;  // linear1d and trilinear3d are float-only
  if (self.dtype() == ScalarType::UInt8 && uint8_ok) {
    // uint8 is computed in float, as PyTorch's.
    if (self.is_meta() || out.numel() == 0) return;
    const Plan<float> plan = make_plan<float>(mode, self.sizes(), output_size, k, align_corners, scales);
    const Tensor in = self.is_contiguous() ? self : tl::contiguous(self);
    Tensor buf = output_buffer(out, self.dtype(), self);
    upsample_forward<uint8_t, float>(in.data_ptr<uint8_t>(), buf.data_ptr<uint8_t>(), plan);
    commit_output(out, buf);
    return;
  }
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] { run(scalar_t{}); });
}

Tensor upsample_backward_kernel(const char* op, Interp mode, const Tensor& grad_output, IntArrayRef output_size,
                                IntArrayRef input_size, int64_t k, bool align_corners, const Scales& scales) {
  const DimVector shape = check_sizes(op, input_size, output_size, k);
  // PyTorch's 1-d ops index grad_output's dims unchecked (an IndexError); the others check the rank.
  if (grad_output.dim() != k + 2) {
    const std::string msg = str(op, ": Expected grad_output to be a tensor of dimension ", k + 2,
                                " but got: dimension ", grad_output.dim());
    if (k == 1 && grad_output.dim() < k + 2) throw IndexError(msg);
    throw RuntimeError(msg);
  }
  for (int64_t d = 0; d < k + 2; ++d)
    TL_CHECK(grad_output.sizes()[d] == shape[d], op,
             ": Expected grad_output to have the same shape as output; output.size(", d, ") = ", shape[d],
             " but got grad_output.size(", d, ") = ", grad_output.sizes()[d]);
  // Every plane is written whole (from its acc_t buffer), so no zero fill first.
  Tensor grad_input = empty_tensor(input_size, grad_output.dtype(), grad_output.device());
  TL_DISPATCH_FLOAT(grad_output.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    if (grad_input.is_meta() || grad_input.numel() == 0) return;
    const Plan<acc_t> plan = make_plan<acc_t>(mode, input_size, output_size, k, align_corners, scales);
    const Tensor go = grad_output.is_contiguous() ? grad_output : tl::contiguous(grad_output);
    if (plan.ax[0].in == 1 && plan.ax[0].out == 1 && plan.ax[1].taps == 2 && plan.ax[2].taps == 2)
      bilinear_backward<scalar_t, acc_t>(go.data_ptr<scalar_t>(), grad_input.data_ptr<scalar_t>(), plan);
    else
      upsample_backward<scalar_t, acc_t>(go.data_ptr<scalar_t>(), grad_input.data_ptr<scalar_t>(), plan);
  });
  return grad_input;
}

}  // namespace

// ---- nearest
void upsample_nearest1d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales, Tensor& out) {
  upsample_kernel("upsample_nearest1d", Interp::Nearest, self, output_size, 1, false, {scales}, out);
}
void upsample_nearest2d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                               std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("upsample_nearest2d", Interp::Nearest, self, output_size, 2, false, {scales_h, scales_w}, out);
}
void upsample_nearest3d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                               std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("upsample_nearest3d", Interp::Nearest, self, output_size, 3, false, {scales_d, scales_h, scales_w},
                  out);
}
Tensor upsample_nearest1d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          std::optional<double> scales) {
  return upsample_backward_kernel("upsample_nearest1d_backward", Interp::Nearest, grad_output, output_size,
                                  input_size, 1, false, {scales});
}
Tensor upsample_nearest2d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_backward_kernel("upsample_nearest2d_backward", Interp::Nearest, grad_output, output_size,
                                  input_size, 2, false, {scales_h, scales_w});
}
Tensor upsample_nearest3d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          std::optional<double> scales_d, std::optional<double> scales_h,
                                          std::optional<double> scales_w) {
  return upsample_backward_kernel("upsample_nearest3d_backward", Interp::Nearest, grad_output, output_size,
                                  input_size, 3, false, {scales_d, scales_h, scales_w});
}

// ---- nearest-exact
void _upsample_nearest_exact1d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales,
                                      Tensor& out) {
  upsample_kernel("_upsample_nearest_exact1d", Interp::NearestExact, self, output_size, 1, false, {scales}, out);
}
void _upsample_nearest_exact2d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                                      std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("_upsample_nearest_exact2d", Interp::NearestExact, self, output_size, 2, false,
                  {scales_h, scales_w}, out);
}
void _upsample_nearest_exact3d_kernel(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                                      std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("_upsample_nearest_exact3d", Interp::NearestExact, self, output_size, 3, false,
                  {scales_d, scales_h, scales_w}, out);
}
Tensor _upsample_nearest_exact1d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                                 IntArrayRef input_size, std::optional<double> scales) {
  return upsample_backward_kernel("_upsample_nearest_exact1d_backward", Interp::NearestExact, grad_output,
                                  output_size, input_size, 1, false, {scales});
}
Tensor _upsample_nearest_exact2d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                                 IntArrayRef input_size, std::optional<double> scales_h,
                                                 std::optional<double> scales_w) {
  return upsample_backward_kernel("_upsample_nearest_exact2d_backward", Interp::NearestExact, grad_output,
                                  output_size, input_size, 2, false, {scales_h, scales_w});
}
Tensor _upsample_nearest_exact3d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                                 IntArrayRef input_size, std::optional<double> scales_d,
                                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_backward_kernel("_upsample_nearest_exact3d_backward", Interp::NearestExact, grad_output,
                                  output_size, input_size, 3, false, {scales_d, scales_h, scales_w});
}

// ---- linear, bilinear, bicubic, trilinear
void upsample_linear1d_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                              std::optional<double> scales, Tensor& out) {
  upsample_kernel("upsample_linear1d", Interp::Linear, self, output_size, 1, align_corners, {scales}, out);
}
void upsample_bilinear2d_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("upsample_bilinear2d", Interp::Linear, self, output_size, 2, align_corners, {scales_h, scales_w},
                  out);
}
void upsample_bicubic2d_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("upsample_bicubic2d", Interp::Cubic, self, output_size, 2, align_corners, {scales_h, scales_w},
                  out);
}
void upsample_trilinear3d_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                 std::optional<double> scales_d, std::optional<double> scales_h,
                                 std::optional<double> scales_w, Tensor& out) {
  upsample_kernel("upsample_trilinear3d", Interp::Linear, self, output_size, 3, align_corners,
                  {scales_d, scales_h, scales_w}, out);
}
Tensor upsample_linear1d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                         bool align_corners, std::optional<double> scales) {
  return upsample_backward_kernel("upsample_linear1d_backward", Interp::Linear, grad_output, output_size, input_size,
                                  1, align_corners, {scales});
}
Tensor upsample_bilinear2d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                           bool align_corners, std::optional<double> scales_h,
                                           std::optional<double> scales_w) {
  return upsample_backward_kernel("upsample_bilinear2d_backward", Interp::Linear, grad_output, output_size,
                                  input_size, 2, align_corners, {scales_h, scales_w});
}
Tensor upsample_bicubic2d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                          bool align_corners, std::optional<double> scales_h,
                                          std::optional<double> scales_w) {
  return upsample_backward_kernel("upsample_bicubic2d_backward", Interp::Cubic, grad_output, output_size, input_size,
                                  2, align_corners, {scales_h, scales_w});
}
Tensor upsample_trilinear3d_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                            IntArrayRef input_size, bool align_corners, std::optional<double> scales_d,
                                            std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_backward_kernel("upsample_trilinear3d_backward", Interp::Linear, grad_output, output_size,
                                  input_size, 3, align_corners, {scales_d, scales_h, scales_w});
}

}  // namespace tl::native
