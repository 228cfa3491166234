// Geometry shared by the pooling kernels (PoolingKernels.cpp, AdaptivePoolingKernels.cpp,
// MaxUnpoolKernels.cpp): every pool runs on a contiguous (planes, D, H, W) view of its input, a 2-d
// pool with D = 1 and a unit window along it, so one loop nest serves both ranks.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/DimEngine.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"

namespace tl::native::pooling {

using Dims3 = std::array<int64_t, 3>;  // (depth, height, width)

inline const char* count_word(int n) { return n == 2 ? "two" : "three"; }

// A window argument (kernel_size, stride, padding, dilation) of an n-d pool as three dims: one value
// applies to every dim, n values to each; the depth of a 2-d pool is `unit`.
inline Dims3 window_arg(IntArrayRef v, int n, int64_t unit, const char* op, const char* what, const char* forms) {
  TL_CHECK(v.size() == 1 || static_cast<int>(v.size()) == n, op, ": ", what, " must either be ", forms,
           "a single int, or a tuple of ", count_word(n), " ints");
  Dims3 r{unit, unit, unit};
  for (int i = 0; i < n; ++i) r[3 - n + i] = v.size() == 1 ? v[0] : v[i];
  return r;
}

// The windows of a kernel_size / stride / padding / dilation pool, checked as PyTorch checks them.
struct Window {
  Dims3 k, s, p, d;
};

inline Window window_args(IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                          int n, const char* op) {
  Window w;
  w.k = window_arg(kernel_size, n, 1, op, "kernel_size", "");
  w.s = stride.empty() ? w.k : window_arg(stride, n, 1, op, "stride", "omitted, ");
  w.p = window_arg(padding, n, 0, op, "padding", "");
  w.d = window_arg(dilation, n, 1, op, "dilation", "");
  for (int i = 0; i < 3; ++i) {
    TL_CHECK(w.s[i] != 0, op, ": stride should not be zero");
    TL_CHECK(w.p[i] >= 0, op, ": pad must be non-negative, but got pad: ", w.p[i]);
    // __int128: the fuzzer's 2**62 kernels must not overflow the effective size.
    const __int128 effective = (static_cast<__int128>(w.k[i]) - 1) * w.d[i] + 1;
    TL_CHECK(w.p[i] <= effective / 2, op, ": pad should be at most half of effective kernel size, but got pad=",
             w.p[i], ", kernel_size=", w.k[i], " and dilation=", w.d[i]);
    // Window ends are then computed in int64 without overflow (such windows cannot fit in memory anyway).
    TL_CHECK(effective < (static_cast<__int128>(1) << 62), op, ": kernel_size ", w.k[i], " with dilation ", w.d[i],
             " is too large");
  }
  for (int i = 0; i < 3; ++i) {
    TL_CHECK(w.k[i] > 0, op, ": kernel size should be greater than zero, but got kernel_size: ", kernel_size);
    TL_CHECK(w.s[i] > 0, op, ": stride should be greater than zero, but got stride: ", stride);
    TL_CHECK(w.d[i] > 0, op, ": dilation should be greater than zero, but got dilation: ", dilation);
  }
  return w;
}

// Output length of a pooled dim: floor (or ceil) of the window positions, a last ceil window that
// would start in the right padding dropped (PyTorch's pooling_output_shape).
inline int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const __int128 span = static_cast<__int128>(in) + 2 * static_cast<__int128>(pad) -
                        static_cast<__int128>(dil) * (static_cast<__int128>(k) - 1) - 1 +
                        (ceil_mode ? static_cast<__int128>(stride) - 1 : 0);
  __int128 q = span / stride;
  if (span % stride != 0 && span < 0) --q;  // floor division
  __int128 out = q + 1;
  if (ceil_mode && (out - 1) * stride >= static_cast<__int128>(in) + pad) --out;
  return static_cast<int64_t>(out);
}

// The input as planes: `batch_dims` leading dims (1 or 2: C or N, C) then n spatial dims.
struct Planes {
  int64_t planes = 1;
  Dims3 in{1, 1, 1};
  int64_t plane_size() const { return in[0] * in[1] * in[2]; }
};

inline Planes planes_of(const Tensor& self, int n) {
  Planes g;
  const int64_t nd = self.dim();
  for (int64_t i = 0; i < nd - n; ++i) g.planes *= self.sizes()[i];
  for (int i = 0; i < n; ++i) g.in[3 - n + i] = self.sizes()[nd - n + i];
  return g;
}

// The shape of a pool's result: the input's leading dims, then the pooled spatial dims.
inline DimVector pooled_shape(const Tensor& self, int n, const Dims3& out) {
  DimVector shape(self.sizes());
  for (int i = 0; i < n; ++i) shape[shape.size() - n + i] = out[3 - n + i];
  return shape;
}

inline Tensor contiguous_of(const Tensor& t) { return t.is_contiguous() ? t : tl::contiguous(t); }

// The contiguous tensor a kernel writes: `out` itself unless it is strided or shares memory with an
// input (an out= call), then a fresh one that commit() copies into `out`.
inline Tensor write_buffer(const Tensor& out, const Tensor& input) {
  if (out.is_contiguous() && !(out.storage() == input.storage())) return out;
  return empty_tensor(out.sizes(), out.dtype(), out.device());
}
inline void commit(const Tensor& out, const Tensor& buffer) {
  if (!buffer.is_same(out)) tl::copy_(out, buffer);
}

// Grain of a parallel loop over planes that each cost `work` element steps.
inline int64_t plane_grain(int64_t work) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)); }

// Checks that a backward's gradient has the forward result's shape.
inline void check_grad_shape(const Tensor& grad, IntArrayRef expected, const char* op, const char* name) {
  TL_CHECK(grad.sizes() == expected, op, ": expected ", name, " of size ", expected, " but got ", grad.sizes());
}

// grad_input[p][indices[p][j]] += grad_output[p][j] for every plane p: the backward of the max pools
// (and max_unpool's forward, with `accumulate` false). An index outside the plane raises instead of
// writing outside memory.
void scatter_planes(const Tensor& src, const Tensor& indices, const Tensor& dst, int64_t planes, int64_t dst_plane,
                    bool accumulate, const char* op);

}  // namespace tl::native::pooling
