// max_pool2d/3d_with_indices and avg_pool2d/3d, with their backward ops (the 1-d pools are composites
// over the 2-d ones, as PyTorch's). Each runs on contiguous (planes, D, H, W) data (PoolingShape.h),
// parallel over planes; the window loops are PyTorch's, so results (NaN wins a max, the index of the
// last NaN, float32 sums in float in window order, int64 averages truncated) match its own.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/native/DimEngine.h"
#include "aten/native/cpu/Loops.h"  // wrapping_add, wrapping_mul
#include "aten/native/cpu/MaxPoolRows.h"
#include "aten/native/cpu/PoolingShape.h"
#include "generated/ops/avg_pool2d.h"
#include "generated/ops/avg_pool2d_backward.h"
#include "generated/ops/avg_pool3d.h"
#include "generated/ops/avg_pool3d_backward.h"
#include "generated/ops/max_pool2d_with_indices.h"
#include "generated/ops/max_pool2d_with_indices_backward.h"
#include "generated/ops/max_pool3d_with_indices.h"
#include "generated/ops/max_pool3d_with_indices_backward.h"

namespace tl::native {

using namespace pooling;

namespace pooling {

void scatter_planes(const Tensor& src, const Tensor& indices, const Tensor& dst, int64_t planes, int64_t dst_plane,
                    bool accumulate, const char* op) {
  const int64_t src_plane = planes == 0 ? 0 : src.numel() / planes;
  const int64_t* ix = indices.data_ptr<int64_t>();
  TL_DISPATCH_FLOAT(dst.dtype(), op, [&] {
    const scalar_t* s = src.data_ptr<scalar_t>();
    scalar_t* d = dst.data_ptr<scalar_t>();
    // Each plane is zeroed by the thread that scatters into it, right before (in parallel, and the
    // plane is still in cache for the scatter).
    parallel_for(0, planes, plane_grain(std::max(src_plane, dst_plane)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const scalar_t* sp = s + p * src_plane;
        const int64_t* ip = ix + p * src_plane;
        scalar_t* dp = d + p * dst_plane;
        std::memset(static_cast<void*>(dp), 0, static_cast<size_t>(dst_plane) * sizeof(scalar_t));
        for (int64_t j = 0; j < src_plane; ++j) {
          const int64_t i = ip[j];
          TL_CHECK(i >= 0 && i < dst_plane, op, ": Found an invalid max index: ", i, " (output volumes are of size ",
                   dst_plane, ")");
          if (accumulate) dp[i] = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(dp[i]) + sp[j]);
          else dp[i] = sp[j];
        }
      }
    });
  });
}

}  // namespace pooling

namespace {

// PyTorch's rank checks: a 2-d pool takes (C, H, W) or (N, C, H, W), only N may be 0.
void check_pool_input(const Tensor& self, int n, const char* op) {
  const int64_t nd = self.dim();
  TL_CHECK(nd == n + 1 || nd == n + 2, op, ": non-empty ", n + 1, "D or ", n + 2,
           "D (batch mode) tensor expected for input, but got: ", self.sizes());
  for (int64_t i = nd == n + 2 ? 1 : 0; i < nd; ++i)
    TL_CHECK(self.sizes()[i] != 0, op, ": Expected ", n + 1, "D or ", n + 2,
             "D (batch mode) tensor with optional 0 dim batch size for input, but got: ", self.sizes());
}

// avg_pool2d reads input.size(-3) before any check, so a 2-d input is PyTorch's IndexError
// (avg_pool3d checks the rank first).
void check_avg_pool_input(const Tensor& self, int n, const char* op) {
  TL_CHECK_INDEX(n == 3 || self.dim() >= n + 1, op, ": Dimension out of range (expected to be in range of [", -std::max<int64_t>(self.dim(), 1),
                 ", ", std::max<int64_t>(self.dim(), 1) - 1, "], but got ", -(n + 1), ")");
}

// The pooled spatial sizes, checked to be at least 1 (PyTorch's "Output size is too small").
Dims3 pool_output(const Planes& g, const Window& w, bool ceil_mode, const Tensor& self, int n, const char* op) {
  Dims3 out;
  for (int i = 0; i < 3; ++i) out[i] = pooled_size(g.in[i], w.k[i], w.p[i], w.s[i], w.d[i], ceil_mode);
  const int64_t channels = self.sizes()[self.dim() - n - 1];
  bool ok = true;
  for (int i = 3 - n; i < 3; ++i) ok = ok && out[i] >= 1;
  if (!ok) {
    DimVector in_shape{channels}, out_shape{channels};
    for (int i = 3 - n; i < 3; ++i) in_shape.push_back(g.in[i]), out_shape.push_back(out[i]);
    throw RuntimeError(str(op, ": Given input size: ", in_shape.ref(), ". Calculated output size: ", out_shape.ref(),
                           ". Output size is too small"));
  }
  return out;
}

struct PoolPlan {
  Planes g;
  Window w;
  Dims3 out;
  DimVector shape;
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

PoolPlan plan_pool(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation, bool ceil_mode, int n, bool avg, const char* op) {
  PoolPlan plan;
  if (avg) check_avg_pool_input(self, n, op);
  plan.w = window_args(kernel_size, stride, padding, dilation, n, op);
  check_pool_input(self, n, op);
  if (!avg) {
    // The max pools' shape check also bounds the padding by half the kernel itself (not the dilated one),
    // after the rank check and before the output size.
    const Dims3 &k = plan.w.k, &p = plan.w.p;
    if (n == 2)
      TL_CHECK(k[2] / 2 >= p[2] && k[1] / 2 >= p[1], op, ": pad should be smaller than or equal to half of kernel "
               "size, but got padW = ", p[2], ", padH = ", p[1], ", kW = ", k[2], ", kH = ", k[1]);
    else
      TL_CHECK(k[0] / 2 >= p[0] && k[2] / 2 >= p[2] && k[1] / 2 >= p[1], op, ": pad should be smaller than or equal "
               "to half of kernel size, but got kT: ", k[0], " kW: ", k[2], " kH: ", k[1], " padT: ", p[0], " padW: ",
               p[2], " padH: ", p[1]);
  }
  plan.g = planes_of(self, n);
  plan.out = pool_output(plan.g, plan.w, ceil_mode, self, n, op);
  plan.shape = pooled_shape(self, n, plan.out);
  return plan;
}

// ---- max pool

// Whether a (C, H, W) or (N, C, H, W) tensor holds (N, H, W, C) memory (and is not plain contiguous): the
// layout max_pool_channels_last reads in place.
bool is_channels_last(const Tensor& t) {
  if (t.is_contiguous() || t.numel() == 0) return false;
  const int64_t nd = t.dim();
  const IntArrayRef z = t.sizes(), st = t.strides();
  const int64_t C = z[nd - 3], H = z[nd - 2], W = z[nd - 1];
  if (st[nd - 3] != 1 || st[nd - 1] != C || st[nd - 2] != W * C) return false;
  return nd == 3 || z[0] == 1 || st[0] == H * W * C;
}

template <typename T>
void max_pool_planes(const T* in, T* out, int64_t* ind, const PoolPlan& pl) {
  using acc = opmath_t<T>;
  const Dims3 &I = pl.g.in, &O = pl.out, &k = pl.w.k, &s = pl.w.s, &p = pl.w.p, &d = pl.w.d;
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const acc lowest = std::numeric_limits<acc>::has_infinity ? -std::numeric_limits<acc>::infinity()
                                                             : std::numeric_limits<acc>::lowest();
  parallel_for(0, pl.g.planes, plane_grain(out_plane * k[0] * k[1] * k[2]), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T* ip = in + plane * in_plane;
      T* op = out + plane * out_plane;
      int64_t* xp = ind + plane * out_plane;
      for (int64_t od = 0; od < O[0]; ++od) {
        int64_t d0 = od * s[0] - p[0];
        const int64_t d1 = std::min(d0 + (k[0] - 1) * d[0] + 1, I[0]);
        while (d0 < 0) d0 += d[0];
        for (int64_t oh = 0; oh < O[1]; ++oh) {
          int64_t h0 = oh * s[1] - p[1];
          const int64_t h1 = std::min(h0 + (k[1] - 1) * d[1] + 1, I[1]);
          while (h0 < 0) h0 += d[1];
          for (int64_t ow = 0; ow < O[2]; ++ow, ++op, ++xp) {
            int64_t w0 = ow * s[2] - p[2];
            const int64_t w1 = std::min(w0 + (k[2] - 1) * d[2] + 1, I[2]);
            while (w0 < 0) w0 += d[2];
            acc best = lowest;
            int64_t best_i = (d0 * I[1] + h0) * I[2] + w0;
            for (int64_t id = d0; id < d1; id += d[0])
              for (int64_t ih = h0; ih < h1; ih += d[1]) {
                const int64_t row = (id * I[1] + ih) * I[2];
                for (int64_t iw = w0; iw < w1; iw += d[2]) {
                  const acc v = static_cast<acc>(ip[row + iw]);
                  // NaN wins (the last NaN of the window), as PyTorch's CPU kernel. `|` and selects, not
                  // `||` and a branch: the update compiles to conditional moves.
                  bool take = v > best;
                  if constexpr (std::numeric_limits<acc>::has_quiet_NaN) take = take | (v != v);
                  best = take ? v : best;
                  best_i = take ? row + iw : best_i;
                }
              }
            *op = static_cast<T>(best);
            *xp = best_i;
          }
        }
      }
    }
  });
}

void max_pool_nd(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                 IntArrayRef dilation, bool ceil_mode, int n, const char* op, Tensor& out, Tensor& indices) {
  const PoolPlan pl = plan_pool(self, kernel_size, stride, padding, dilation, ceil_mode, n, false, op);
  prepare_output(out, pl.shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, pl.shape, ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, op, ": not implemented for 'Bool'");
  Tensor ob = write_buffer(out, self), ib = write_buffer(indices, self);
  const PoolPlan& q = pl;
  if (n == 2 && is_channels_last(self)) {
    const int64_t C = self.sizes()[self.dim() - 3];
    if (max_pool_channels_last(self.dtype(), self.data_ptr(), ob.data_ptr(), ib.data_ptr<int64_t>(), q.g.planes / C, C,
                               q.g.in, q.out, q.w.k, q.w.s, q.w.p, q.w.d)) {
      commit(out, ob);
      commit(indices, ib);
      return;
    }
  }
  const Tensor in = contiguous_of(self);
  if (max_pool_rows(self.dtype(), in.data_ptr(), ob.data_ptr(), ib.data_ptr<int64_t>(), q.g.planes, q.g.in, q.out, q.w.k,
                    q.w.s, q.w.p, q.w.d)) {
    commit(out, ob);
    commit(indices, ib);
    return;
  }
  TL_DISPATCH_NUMERIC(self.dtype(), op, [&] {
    max_pool_planes<scalar_t>(in.data_ptr<scalar_t>(), ob.data_ptr<scalar_t>(), ib.data_ptr<int64_t>(), pl);
  });
  commit(out, ob);
  commit(indices, ib);
}

void max_pool_backward_nd(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const Tensor& indices, int n,
                          const char* op, Tensor& grad_input) {
  const PoolPlan pl = plan_pool(self, kernel_size, stride, padding, dilation, ceil_mode, n, false, op);
  check_grad_shape(grad_output, pl.shape, op, "grad_output");
  check_grad_shape(indices, pl.shape, op, "indices");
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": expected indices of dtype int64, but got ",
           scalar_type_name(indices.dtype()));
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ", scalar_type_name(self.dtype()),
           ", but got ", scalar_type_name(grad_output.dtype()));
  prepare_output(grad_input, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  Tensor gb = write_buffer(grad_input, grad_output);
  scatter_planes(contiguous_of(grad_output), contiguous_of(indices), gb, pl.g.planes, pl.g.plane_size(), true, op);
  commit(grad_input, gb);
}

// ---- avg pool

// The window of output position o along one dim: [begin, end) inside the input, and its size counted
// with the padding (PyTorch clips the padded window to in + pad before counting).
struct Span {
  int64_t begin, end, padded;
};

inline Span avg_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  const int64_t b = o * s - p;
  const int64_t e = std::min(b + k, in + p);
  return {std::max<int64_t>(b, 0), std::min(e, in), e - b};
}

// Calls f(begin/end of each dim, divisor) for every output position of a plane, in order.
template <typename F>
void for_each_avg_window(const PoolPlan& pl, bool count_include_pad, std::optional<int64_t> divisor_override,
                         const F& f) {
  const Dims3 &I = pl.g.in, &O = pl.out, &k = pl.w.k, &s = pl.w.s, &p = pl.w.p;
  for (int64_t od = 0; od < O[0]; ++od) {
    const Span sd = avg_span(od, I[0], k[0], s[0], p[0]);
    for (int64_t oh = 0; oh < O[1]; ++oh) {
      const Span sh = avg_span(oh, I[1], k[1], s[1], p[1]);
      for (int64_t ow = 0; ow < O[2]; ++ow) {
        const Span sw = avg_span(ow, I[2], k[2], s[2], p[2]);
        const bool empty = sd.begin >= sd.end || sh.begin >= sh.end || sw.begin >= sw.end;
        int64_t divisor;
        if (divisor_override) divisor = *divisor_override;
        else if (count_include_pad) divisor = sd.padded * sh.padded * sw.padded;
        else divisor = (sd.end - sd.begin) * (sh.end - sh.begin) * (sw.end - sw.begin);
        f(sd, sh, sw, divisor, empty);
      }
    }
  }
}

// PyTorch's CPU avg_pool3d has no float16/bfloat16 kernel (avg_pool2d has).
void check_avg_dtype(const Tensor& self, int n, const char* op) {
  const ScalarType t = self.dtype();
  TL_CHECK_AS(NotImplementedError, n == 2 || (t != ScalarType::Float16 && t != ScalarType::BFloat16), op,
              ": not implemented for dtype ", scalar_type_name(t));
}

PoolPlan plan_avg_pool(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, std::optional<int64_t> divisor_override, int n, const char* op) {
  const int64_t one[1] = {1};
  PoolPlan pl = plan_pool(self, kernel_size, stride, padding, IntArrayRef(one, 1), ceil_mode, n, true, op);
  TL_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  return pl;
}

void avg_pool_nd(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                 bool count_include_pad, std::optional<int64_t> divisor_override, int n, const char* op, Tensor& out) {
  const PoolPlan pl = plan_avg_pool(self, kernel_size, stride, padding, ceil_mode, divisor_override, n, op);
  prepare_output(out, pl.shape, self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  check_avg_dtype(self, n, op);
  const Tensor in = contiguous_of(self);
  Tensor ob = write_buffer(out, self);
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const Dims3& I = pl.g.in;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using acc = opmath_t<T>;
    const T* src = in.data_ptr<T>();
    T* dst = ob.data_ptr<T>();
    parallel_for(0, pl.g.planes, plane_grain(out_plane * pl.w.k[0] * pl.w.k[1] * pl.w.k[2]), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        const T* ip = src + plane * in_plane;
        T* op_ = dst + plane * out_plane;
        for_each_avg_window(pl, count_include_pad, divisor_override, [&](Span sd, Span sh, Span sw, int64_t div, bool empty) {
          if (empty) {
            *op_++ = T(0);
            return;
          }
          acc sum = 0;
          for (int64_t id = sd.begin; id < sd.end; ++id)
            for (int64_t ih = sh.begin; ih < sh.end; ++ih) {
              const T* row = ip + (id * I[1] + ih) * I[2];
              // int64 window sums wrap as PyTorch's do (no signed-overflow UB)
              for (int64_t iw = sw.begin; iw < sw.end; ++iw) sum = wrapping_add(sum, static_cast<acc>(row[iw]));
            }
          if constexpr (std::is_integral_v<acc>) {
            if (div == -1) {  // a divisor_override of -1: negation, wrapping at the type's minimum
              *op_++ = static_cast<T>(wrapping_mul(sum, acc(-1)));
              return;
            }
          }
          *op_++ = static_cast<T>(sum / static_cast<acc>(div));
        });
      }
    });
  };
  // PyTorch averages int64 (truncating) but no other integer dtype.
  if (self.dtype() == ScalarType::Int64) run(int64_t{});
  else TL_DISPATCH_FLOAT(self.dtype(), op, [&] { run(scalar_t{}); });
  commit(out, ob);
}

void avg_pool_backward_nd(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                          IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                          std::optional<int64_t> divisor_override, int n, const char* op, Tensor& grad_input) {
  const PoolPlan pl = plan_avg_pool(self, kernel_size, stride, padding, ceil_mode, divisor_override, n, op);
  check_grad_shape(grad_output, pl.shape, op, "grad_output");
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ", scalar_type_name(self.dtype()),
           ", but got ", scalar_type_name(grad_output.dtype()));
  prepare_output(grad_input, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  check_avg_dtype(self, n, op);
  const Tensor go = contiguous_of(grad_output);
  Tensor gb = write_buffer(grad_input, grad_output);
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const Dims3& I = pl.g.in;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using acc = opmath_t<T>;
    const T* src = go.data_ptr<T>();
    T* dst = gb.data_ptr<T>();
    std::memset(static_cast<void*>(dst), 0, static_cast<size_t>(gb.numel()) * sizeof(T));
    parallel_for(0, pl.g.planes, plane_grain(out_plane * pl.w.k[0] * pl.w.k[1] * pl.w.k[2]), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        const T* gp = src + plane * out_plane;
        T* ip = dst + plane * in_plane;
        for_each_avg_window(pl, count_include_pad, divisor_override, [&](Span sd, Span sh, Span sw, int64_t div, bool empty) {
          // Rounded to T as PyTorch's kernel stores it (matters for float16/bfloat16 and int64).
          const acc delta = static_cast<acc>(static_cast<T>(static_cast<acc>(*gp++) / static_cast<acc>(div)));
          if (empty) return;
          for (int64_t id = sd.begin; id < sd.end; ++id)
            for (int64_t ih = sh.begin; ih < sh.end; ++ih) {
              T* row = ip + (id * I[1] + ih) * I[2];
              for (int64_t iw = sw.begin; iw < sw.end; ++iw) row[iw] = static_cast<T>(static_cast<acc>(row[iw]) + delta);
            }
        });
      }
    });
  };
  if (self.dtype() == ScalarType::Int64) run(int64_t{});
  else TL_DISPATCH_FLOAT(self.dtype(), op, [&] { run(scalar_t{}); });
  commit(grad_input, gb);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                          IntArrayRef stride, IntArrayRef padding,
                                                          IntArrayRef dilation, bool ceil_mode) {
  Tensor out, indices;
  max_pool_nd(self, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> max_pool2d_with_indices_out_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                                          IntArrayRef stride, IntArrayRef padding,
                                                                          IntArrayRef dilation, bool ceil_mode,
                                                                          const Tensor& out, const Tensor& indices) {
  Tensor o = out, i = indices;  // handles on the user's tensors: resized and written in place
  max_pool_nd(self, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d", o, i);
  return {out, indices};
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                          IntArrayRef stride, IntArrayRef padding,
                                                          IntArrayRef dilation, bool ceil_mode) {
  Tensor out, indices;
  max_pool_nd(self, kernel_size, stride, padding, dilation, ceil_mode, 3, "max_pool3d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> max_pool3d_with_indices_out_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                                          IntArrayRef stride, IntArrayRef padding,
                                                                          IntArrayRef dilation, bool ceil_mode,
                                                                          const Tensor& out, const Tensor& indices) {
  Tensor o = out, i = indices;  // handles on the user's tensors: resized and written in place
  max_pool_nd(self, kernel_size, stride, padding, dilation, ceil_mode, 3, "max_pool3d", o, i);
  return {out, indices};
}

Tensor max_pool2d_with_indices_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                               bool ceil_mode, const Tensor& indices) {
  Tensor grad_input;
  max_pool_backward_nd(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices, 2,
                       "max_pool2d_with_indices_backward", grad_input);
  return grad_input;
}

Tensor max_pool3d_with_indices_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                               bool ceil_mode, const Tensor& indices) {
  Tensor grad_input;
  max_pool_backward_nd(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices, 3,
                       "max_pool3d_with_indices_backward", grad_input);
  return grad_input;
}

void avg_pool2d_kernel(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  avg_pool_nd(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2, "avg_pool2d", out);
}

void avg_pool3d_kernel(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  avg_pool_nd(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3, "avg_pool3d", out);
}

Tensor avg_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                  std::optional<int64_t> divisor_override) {
  Tensor grad_input;
  avg_pool_backward_nd(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                       2, "avg_pool2d_backward", grad_input);
  return grad_input;
}

Tensor avg_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                  IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                  std::optional<int64_t> divisor_override) {
  Tensor grad_input;
  avg_pool_backward_nd(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                       3, "avg_pool3d_backward", grad_input);
  return grad_input;
}

}  // namespace tl::native
