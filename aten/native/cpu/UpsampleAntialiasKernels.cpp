// _upsample_bilinear2d_aa / _upsample_bicubic2d_aa and their backward ops: antialiased resampling
// (PIL's), separable along W then H.
//
// Output index o of a dim resampled from `in` to `out` (scale s = in / out, or 1 / the given scale,
// or (in - 1) / (out - 1) with align_corners) averages the inputs within `support` of its centre
// s * (o + 0.5): support = interp_size / 2 (2 taps bilinear, 4 bicubic), stretched by s when
// downsampling (s >= 1), so every input pixel under the output pixel contributes. Tap j (from xmin)
// weighs filter((xmin + j - centre + 0.5) / max(s, 1)), normalized to sum 1; the filters are the
// triangle and Keys' cubic with a = -0.5. PyTorch's arithmetic is followed step by step (the
// weights in the input's dtype, double for uint8; the sums in the input's dtype, FMA-contracted in
// the per-ISA clones as PyTorch's vectorized builds contract them), so the values are its values.
//
// uint8 (PyTorch's fixed-point path): double weights scaled to int16 with the most precision bits
// that keep the largest weight below 2**15, integer sums rounded (+half) and shifted back, clamped
// to [0, 255] after each pass (the intermediate image is uint8).
//
// Passes: W (when its size changes) into a buffer, then H (when it changes); an unchanged shape is
// a copy, for any dtype, as PyTorch's shortcut. The backward scatters each gradient element over
// its xsize * ysize taps with weight wx * wy, plane by plane in PyTorch's order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_upsample_bicubic2d_aa.h"
#include "generated/ops/_upsample_bicubic2d_aa_backward.h"
#include "generated/ops/_upsample_bilinear2d_aa.h"
#include "generated/ops/_upsample_bilinear2d_aa_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"

namespace tl::native {
namespace {

enum class AaMode { Bilinear, Bicubic };

inline int interp_size(AaMode m) { return m == AaMode::Bilinear ? 2 : 4; }

// The filters, in T's arithmetic (PIL's triangle; Keys' cubic convolution with a = -0.5).
template <typename T>
TL_ALWAYS_INLINE T aa_filter(AaMode m, T x) {
  x = std::abs(x);
  if (m == AaMode::Bilinear) return x < T(1) ? static_cast<T>(1.0 - x) : T(0);
  const T a = T(-0.5);
  if (x < T(1)) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < T(2)) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return T(0);
}

// area_pixel_compute_scale: input positions per output position.
template <typename T>
T aa_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

// One resampled dim: output o reads xsize[o] inputs from xmin[o] with weights w[o * taps + j].
template <typename T>
struct AaAxis {
  int64_t in = 1, out = 1, taps = 1;
  std::vector<int64_t> xmin, xsize;
  std::vector<T> w;
  T wmax = T(0);
};

// PyTorch's _compute_indices_min_size_weights_aa for every output index. `backward_taps` sizes the
// table as its backward does (ceilf of the support, in float).
template <typename T>
TL_ALWAYS_INLINE void fill_axis_body(AaAxis<T>& ax, AaMode m, T scale, bool backward_taps) {
  const T support = scale >= 1.0 ? static_cast<T>((interp_size(m) * 0.5) * scale) : static_cast<T>(interp_size(m) * 0.5);
  const int taps = backward_taps ? static_cast<int>(ceilf(static_cast<float>(support))) * 2 + 1
                                 : static_cast<int>(std::ceil(support)) * 2 + 1;
  ax.taps = taps;
  ax.xmin.assign(static_cast<size_t>(ax.out), 0);
  ax.xsize.assign(static_cast<size_t>(ax.out), 0);
  ax.w.assign(static_cast<size_t>(ax.out * taps), T(0));
  const T invscale = scale >= 1.0 ? static_cast<T>(1.0 / scale) : T(1.0);
  T wmax = T(0);
  for (int64_t i = 0; i < ax.out; ++i) {
    const T center = static_cast<T>(scale * (i + 0.5));
    const int64_t xmin = std::max(static_cast<int64_t>((center - support) + 0.5), int64_t(0));
    int64_t xsize = std::min(static_cast<int64_t>((center + support) + 0.5), ax.in) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, taps);  // rounding may make it one too many
    T* w = ax.w.data() + i * taps;
    T total = T(0);
    for (int64_t j = 0; j < xsize; ++j) {
      const T wj = aa_filter<T>(m, static_cast<T>((static_cast<T>(j + xmin) - center + 0.5) * invscale));
      w[j] = wj;
      total += wj;
    }
    if (total != T(0))
      for (int64_t j = 0; j < xsize; ++j) {
        w[j] /= total;
        wmax = std::max(wmax, w[j]);
      }
    ax.xmin[static_cast<size_t>(i)] = xmin;
    ax.xsize[static_cast<size_t>(i)] = xsize;
  }
  ax.wmax = wmax;
}

template <typename T>
TL_TARGET_CLONES void fill_axis(AaAxis<T>& ax, AaMode m, T scale, bool backward_taps) {
  fill_axis_body<T>(ax, m, scale, backward_taps);
}

template <typename T>
AaAxis<T> make_axis(AaMode m, int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                    bool backward_taps) {
  AaAxis<T> ax;
  ax.in = in;
  ax.out = out;
  fill_axis<T>(ax, m, aa_scale<T>(in, out, align_corners, scale), backward_taps);
  return ax;
}

// ---- float / double passes -----------------------------------------------------------------------

// How PyTorch's compiled tap loop rounds (found against its AVX-512 build, both passes, by matching
// each tap's rounding): the first product, then u * floor((n - 1) / u) taps as separate multiply and add
// (its unrolled body: u = 4 for float32, 2 for float64), the remaining (n - 1) % u taps fused (FMA).
// Contraction is off in the two pass functions, so the split is exactly that.
template <typename T>
inline int64_t unfused_taps(int64_t n) {
  constexpr int64_t u = std::is_same_v<T, float> ? 4 : 2;
  return n > 0 ? u * ((n - 1) / u) : 0;
}

// Resamples `rows` rows of `ax.in` elements into rows of `ax.out` (the W pass).
template <typename T>
TL_TARGET_CLONES __attribute__((optimize("fp-contract=off"))) void rows_pass(const T* src, T* dst, int64_t r0,
                                                                              int64_t r1, const AaAxis<T>& ax) {
  const int64_t taps = ax.taps;
  for (int64_t r = r0; r < r1; ++r) {
    const T* s = src + r * ax.in;
    T* d = dst + r * ax.out;
    for (int64_t x = 0; x < ax.out; ++x) {
      const int64_t n = ax.xsize[static_cast<size_t>(x)];
      const T* sp = s + ax.xmin[static_cast<size_t>(x)];
      const T* w = ax.w.data() + x * taps;
      T acc = n > 0 ? sp[0] * w[0] : T(0);
      const int64_t m = unfused_taps<T>(n);
      for (int64_t j = 1; j <= m; ++j) acc = acc + sp[j] * w[j];
      for (int64_t j = m + 1; j < n; ++j) acc = std::fma(sp[j], w[j], acc);
      d[x] = acc;
    }
  }
}

// Resamples planes of (ax.in, width) into (ax.out, width) along their rows (the H pass): each
// output row is its input rows' weighted sum, element by element in tap order.
template <typename T>
TL_TARGET_CLONES __attribute__((optimize("fp-contract=off"))) void cols_pass(const T* src, T* dst, int64_t p0,
                                                                              int64_t p1, int64_t width,
                                                                              const AaAxis<T>& ax) {
  const int64_t taps = ax.taps;
  for (int64_t p = p0; p < p1; ++p) {
    const T* s = src + p * ax.in * width;
    T* d = dst + p * ax.out * width;
    for (int64_t y = 0; y < ax.out; ++y) {
      const int64_t n = ax.xsize[static_cast<size_t>(y)];
      const T* rows = s + ax.xmin[static_cast<size_t>(y)] * width;
      const T* w = ax.w.data() + y * taps;
      T* o = d + y * width;
      if (n == 0) {
        std::fill(o, o + width, T(0));
        continue;
      }
      const T w0 = w[0];
      for (int64_t x = 0; x < width; ++x) o[x] = rows[x] * w0;
      const int64_t m = unfused_taps<T>(n);
      for (int64_t j = 1; j < n; ++j) {
        const T wj = w[j];
        const T* row = rows + j * width;
        if (j <= m) {
          for (int64_t x = 0; x < width; ++x) o[x] = o[x] + row[x] * wj;
        } else {
          for (int64_t x = 0; x < width; ++x) o[x] = std::fma(row[x], wj, o[x]);
        }
      }
    }
  }
}

// ---- uint8 fixed point -----------------------------------------------------------------------------

struct FixedAxis {
  int64_t in = 1, out = 1, taps = 1;
  std::vector<int64_t> xmin, xsize;
  std::vector<int16_t> w;
  int precision = 0;
};

// PyTorch's _compute_index_ranges_int16_weights: the most precision bits (< 22) for which the
// largest weight, scaled, stays below 2**15; each weight rounded half away from zero.
FixedAxis fixed_axis(AaMode m, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  const AaAxis<double> ax = make_axis<double>(m, in, out, align_corners, scale, false);
  FixedAxis f;
  f.in = in;
  f.out = out;
  f.taps = ax.taps;
  f.xmin = ax.xmin;
  f.xsize = ax.xsize;
  int p = 0;
  for (; p < 22; ++p)
    if (static_cast<int>(0.5 + ax.wmax * (1 << (p + 1))) >= (1 << 15)) break;
  f.precision = p;
  f.w.resize(ax.w.size());
  for (size_t i = 0; i < ax.w.size(); ++i) {
    const double v = ax.w[i] * (1 << p);
    f.w[i] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return f;
}

inline uint8_t fixed_round(int acc, int precision) {
  return static_cast<uint8_t>(std::clamp(acc >> precision, 0, 255));
}

void rows_pass_u8(const uint8_t* src, uint8_t* dst, int64_t r0, int64_t r1, const FixedAxis& ax) {
  const int half = ax.precision > 0 ? 1 << (ax.precision - 1) : 0;
  for (int64_t r = r0; r < r1; ++r) {
    const uint8_t* s = src + r * ax.in;
    uint8_t* d = dst + r * ax.out;
    for (int64_t x = 0; x < ax.out; ++x) {
      const int64_t n = ax.xsize[static_cast<size_t>(x)];
      const uint8_t* sp = s + ax.xmin[static_cast<size_t>(x)];
      const int16_t* w = ax.w.data() + x * ax.taps;
      int acc = half;
      for (int64_t j = 0; j < n; ++j) acc += static_cast<int>(sp[j]) * w[j];
      d[x] = fixed_round(acc, ax.precision);
    }
  }
}

void cols_pass_u8(const uint8_t* src, uint8_t* dst, int64_t p0, int64_t p1, int64_t width, const FixedAxis& ax) {
  const int half = ax.precision > 0 ? 1 << (ax.precision - 1) : 0;
  std::vector<int> acc(static_cast<size_t>(width));
  for (int64_t p = p0; p < p1; ++p) {
    const uint8_t* s = src + p * ax.in * width;
    uint8_t* d = dst + p * ax.out * width;
    for (int64_t y = 0; y < ax.out; ++y) {
      const int64_t n = ax.xsize[static_cast<size_t>(y)];
      const uint8_t* rows = s + ax.xmin[static_cast<size_t>(y)] * width;
      const int16_t* w = ax.w.data() + y * ax.taps;
      std::fill(acc.begin(), acc.end(), half);
      for (int64_t j = 0; j < n; ++j) {
        const int wj = w[j];
        const uint8_t* row = rows + j * width;
        for (int64_t x = 0; x < width; ++x) acc[static_cast<size_t>(x)] += static_cast<int>(row[x]) * wj;
      }
      uint8_t* o = d + y * width;
      for (int64_t x = 0; x < width; ++x) o[x] = fixed_round(acc[static_cast<size_t>(x)], ax.precision);
    }
  }
}

// ---- shapes and checks ------------------------------------------------------------------------------

// PyTorch's upsample_2d_common_check: the (N, C, oH, oW) shape.
DimVector output_shape(const char* op, IntArrayRef input_size, IntArrayRef output_size) {
  TL_CHECK(output_size.size() == 2, op, ": It is expected output_size equals to 2, but got size ",
           output_size.size());
  TL_CHECK(input_size.size() == 4, op, ": It is expected input_size equals to 4, but got size ", input_size.size());
  TL_CHECK(input_size[2] > 0 && input_size[3] > 0 && output_size[0] > 0 && output_size[1] > 0, op,
           ": Input and output sizes should be greater than 0, but got input (H: ", input_size[2],
           ", W: ", input_size[3], ") output (H: ", output_size[0], ", W: ", output_size[1], ")");
  return DimVector{input_size[0], input_size[1], output_size[0], output_size[1]};
}

int64_t grain_for(int64_t work) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)); }

template <typename T>
void forward_float(AaMode m, const Tensor& in, Tensor& buf, bool align_corners, std::optional<double> scales_h,
                   std::optional<double> scales_w) {
  const int64_t planes = in.sizes()[0] * in.sizes()[1];
  const int64_t H = in.sizes()[2], W = in.sizes()[3], OH = buf.sizes()[2], OW = buf.sizes()[3];
  const T* src = in.data_ptr<T>();
  Tensor mid;  // after the W pass, when the H pass follows
  if (OW != W) {
    const AaAxis<T> ax = make_axis<T>(m, W, OW, align_corners, scales_w, false);
    T* dst;
    if (OH != H) {
      mid = empty_tensor({planes, H, OW}, in.dtype(), in.device());
      dst = mid.data_ptr<T>();
    } else {
      dst = buf.data_ptr<T>();
    }
    parallel_for(0, planes * H, grain_for(OW * ax.taps), [&](int64_t b, int64_t e) { rows_pass<T>(src, dst, b, e, ax); });
    src = dst;
  }
  if (OH != H) {
    const AaAxis<T> ax = make_axis<T>(m, H, OH, align_corners, scales_h, false);
    T* dst = buf.data_ptr<T>();
    parallel_for(0, planes, grain_for(OH * OW * ax.taps),
                 [&](int64_t b, int64_t e) { cols_pass<T>(src, dst, b, e, OW, ax); });
  }
}

void forward_u8(AaMode m, const Tensor& in, Tensor& buf, bool align_corners, std::optional<double> scales_h,
                std::optional<double> scales_w) {
  const int64_t planes = in.sizes()[0] * in.sizes()[1];
  const int64_t H = in.sizes()[2], W = in.sizes()[3], OH = buf.sizes()[2], OW = buf.sizes()[3];
  const uint8_t* src = in.data_ptr<uint8_t>();
  Tensor mid;
  if (OW != W) {
    const FixedAxis ax = fixed_axis(m, W, OW, align_corners, scales_w);
    uint8_t* dst;
    if (OH != H) {
      mid = empty_tensor({planes, H, OW}, ScalarType::UInt8, in.device());
      dst = mid.data_ptr<uint8_t>();
    } else {
      dst = buf.data_ptr<uint8_t>();
    }
    parallel_for(0, planes * H, grain_for(OW * ax.taps), [&](int64_t b, int64_t e) { rows_pass_u8(src, dst, b, e, ax); });
    src = dst;
  }
  if (OH != H) {
    const FixedAxis ax = fixed_axis(m, H, OH, align_corners, scales_h);
    uint8_t* dst = buf.data_ptr<uint8_t>();
    parallel_for(0, planes, grain_for(OH * OW * ax.taps),
                 [&](int64_t b, int64_t e) { cols_pass_u8(src, dst, b, e, OW, ax); });
  }
}

void aa_forward(const char* op, AaMode m, const Tensor& self, IntArrayRef output_size, bool align_corners,
                std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  TL_CHECK(output_size.size() == 2, op, ": It is expected output_size equals to 2, but got size ",
           output_size.size());
  TL_CHECK(self.dim() == 4, op, ": It is expected input_size equals to 4, but got size ", self.dim());
  const DimVector shape = output_shape(op, self.sizes(), output_size);
  bool nonempty = true;  // an empty batch is allowed, no other empty dim
  for (int64_t d = 1; d < 4; ++d) nonempty = nonempty && self.sizes()[d] != 0;
  TL_CHECK(nonempty, op, ": Non-empty 4D data tensor expected but got a tensor with sizes ", self.sizes());
  prepare_output(out, {op, shape, self.dtype(), self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  if (IntArrayRef(shape) == self.sizes()) {  // PyTorch's shortcut, before any dtype dispatch
    tl::copy_(out, self);
    return;
  }
  const ScalarType st = self.dtype();
  if (st != ScalarType::Float32 && st != ScalarType::Float64 && st != ScalarType::UInt8)  // even when empty
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(st)));
  if (out.numel() == 0) return;
  const Tensor in = self.is_contiguous() ? self : tl::contiguous(self);
  Tensor buf = output_buffer(out, self.dtype(), self);
  switch (self.dtype()) {
    case ScalarType::Float32: forward_float<float>(m, in, buf, align_corners, scales_h, scales_w); break;
    case ScalarType::Float64: forward_float<double>(m, in, buf, align_corners, scales_h, scales_w); break;
    case ScalarType::UInt8: forward_u8(m, in, buf, align_corners, scales_h, scales_w); break;
    default:
      throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
  }
  commit_output(out, buf);
}

// ---- backward ----------------------------------------------------------------------------------

template <typename T>
TL_TARGET_CLONES void scatter_planes_aa(const T* go, T* gi, int64_t p0, int64_t p1, const AaAxis<T>& ay,
                                        const AaAxis<T>& ax) {
  const int64_t OH = ay.out, OW = ax.out, W = ax.in, in_plane = ay.in * ax.in;
  for (int64_t p = p0; p < p1; ++p) {
    const T* g = go + p * OH * OW;
    T* d = gi + p * in_plane;
    std::fill(d, d + in_plane, T(0));
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t ymin = ay.xmin[static_cast<size_t>(oh)], ysize = ay.xsize[static_cast<size_t>(oh)];
      const T* wy = ay.w.data() + oh * ay.taps;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t xmin = ax.xmin[static_cast<size_t>(ow)], xsize = ax.xsize[static_cast<size_t>(ow)];
        const T* wx = ax.w.data() + ow * ax.taps;
        const T v = g[oh * OW + ow];
        for (int64_t y = 0; y < ysize; ++y) {
          T* row = d + (ymin + y) * W + xmin;
          const T wyy = wy[y];
          for (int64_t x = 0; x < xsize; ++x) row[x] += wx[x] * wyy * v;
        }
      }
    }
  }
}

Tensor& aa_backward(const char* op, AaMode m, const Tensor& grad_output, IntArrayRef output_size,
                    IntArrayRef input_size, bool align_corners, std::optional<double> scales_h,
                    std::optional<double> scales_w, Tensor& grad_input) {
  const DimVector shape = output_shape(op, input_size, output_size);
  TL_CHECK(grad_output.dim() == 4, op, ": Expected grad_output to be a tensor of dimension 4 but got: dimension ",
           grad_output.dim());
  for (int64_t d = 0; d < 4; ++d)
    TL_CHECK(grad_output.sizes()[d] == shape[static_cast<size_t>(d)], op,
             ": Expected grad_output to have the same shape as output; output.size(", d, ") = ",
             shape[static_cast<size_t>(d)], " but got grad_output.size(", d, ") = ", grad_output.sizes()[d]);
  prepare_output(grad_input, {op, input_size, grad_output.dtype(), grad_output.device(), OutDtype::Exact});
  if (grad_output.is_meta()) return grad_input;
  const ScalarType st = grad_output.dtype();
  if (st != ScalarType::Float32 && st != ScalarType::Float64)  // even when empty, as PyTorch's dispatch
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(st)));
  if (grad_input.numel() == 0) return grad_input;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const AaAxis<T> ay = make_axis<T>(m, input_size[2], output_size[0], align_corners, scales_h, true);
    const AaAxis<T> ax = make_axis<T>(m, input_size[3], output_size[1], align_corners, scales_w, true);
    const Tensor go = grad_output.is_contiguous() ? grad_output : tl::contiguous(grad_output);
    Tensor buf = output_buffer(grad_input, grad_output.dtype(), grad_output);
    const int64_t planes = input_size[0] * input_size[1];
    const T* g = go.data_ptr<T>();
    T* d = buf.data_ptr<T>();
    parallel_for(0, planes, grain_for(output_size[0] * output_size[1] * ay.taps * ax.taps),
                 [&](int64_t b, int64_t e) { scatter_planes_aa<T>(g, d, b, e, ay, ax); });
    commit_output(grad_input, buf);
  };
  switch (grad_output.dtype()) {
    case ScalarType::Float32: run(float{}); break;
    case ScalarType::Float64: run(double{}); break;
    default:
      throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(grad_output.dtype())));
  }
  return grad_input;
}

}  // namespace

void _upsample_bilinear2d_aa_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                    std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  aa_forward("_upsample_bilinear2d_aa", AaMode::Bilinear, self, output_size, align_corners, scales_h, scales_w, out);
}

void _upsample_bicubic2d_aa_kernel(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                   std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  aa_forward("_upsample_bicubic2d_aa", AaMode::Bicubic, self, output_size, align_corners, scales_h, scales_w, out);
}

Tensor _upsample_bilinear2d_aa_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                               IntArrayRef input_size, bool align_corners,
                                               std::optional<double> scales_h, std::optional<double> scales_w) {
  Tensor grad_input;
  return aa_backward("_upsample_bilinear2d_aa_backward", AaMode::Bilinear, grad_output, output_size, input_size,
                     align_corners, scales_h, scales_w, grad_input);
}

const Tensor& _upsample_bilinear2d_aa_backward_grad_input_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                                                 IntArrayRef input_size, bool align_corners,
                                                                 std::optional<double> scales_h,
                                                                 std::optional<double> scales_w,
                                                                 const Tensor& grad_input) {
  Tensor g = grad_input;  // a handle on the user's tensor: resized and written in place
  aa_backward("_upsample_bilinear2d_aa_backward", AaMode::Bilinear, grad_output, output_size, input_size,
              align_corners, scales_h, scales_w, g);
  return grad_input;
}

Tensor _upsample_bicubic2d_aa_backward_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                              IntArrayRef input_size, bool align_corners,
                                              std::optional<double> scales_h, std::optional<double> scales_w) {
  Tensor grad_input;
  return aa_backward("_upsample_bicubic2d_aa_backward", AaMode::Bicubic, grad_output, output_size, input_size,
                     align_corners, scales_h, scales_w, grad_input);
}

const Tensor& _upsample_bicubic2d_aa_backward_grad_input_kernel(const Tensor& grad_output, IntArrayRef output_size,
                                                                IntArrayRef input_size, bool align_corners,
                                                                std::optional<double> scales_h,
                                                                std::optional<double> scales_w,
                                                                const Tensor& grad_input) {
  Tensor g = grad_input;
  aa_backward("_upsample_bicubic2d_aa_backward", AaMode::Bicubic, grad_output, output_size, input_size,
              align_corners, scales_h, scales_w, g);
  return grad_input;
}

}  // namespace tl::native
