// _adaptive_avg_pool2d/3d and adaptive_max_pool2d/3d with their backward ops: output position o of a
// dim of size `in` pooled to `out` covers [floor(o * in / out), ceil((o + 1) * in / out)). Planes in
// parallel on contiguous (planes, D, H, W) data (PoolingShape.h); sums in opmath divided by each window
// extent in turn and NaN winning a max, as PyTorch's CPU kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/native/DimEngine.h"
#include "aten/native/cpu/PoolingShape.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_adaptive_avg_pool2d.h"
#include "generated/ops/_adaptive_avg_pool2d_backward.h"
#include "generated/ops/_adaptive_avg_pool3d.h"
#include "generated/ops/_adaptive_avg_pool3d_backward.h"
#include "generated/ops/adaptive_avg_pool2d.h"
#include "generated/ops/adaptive_avg_pool3d.h"
#include "generated/ops/adaptive_max_pool2d.h"
#include "generated/ops/adaptive_max_pool2d_backward.h"
#include "generated/ops/adaptive_max_pool3d.h"
#include "generated/ops/adaptive_max_pool3d_backward.h"

namespace tl::native {

using namespace pooling;

namespace {

inline int64_t window_begin(int64_t o, int64_t out, int64_t in) { return (o / out) * in + ((o % out) * in) / out; }
inline int64_t window_end(int64_t o, int64_t out, int64_t in) { return 1 + ((o + 1) * in - 1) / out; }

struct AdaptivePlan {
  Planes g;
  Dims3 out{1, 1, 1};
  DimVector shape;
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// PyTorch's checks: output_size of n entries >= 0, a (C, spatial) or (N, C, spatial) input whose
// dims after the first are not empty.
AdaptivePlan plan_adaptive(const Tensor& self, IntArrayRef output_size, int n, bool avg, const char* op) {
  if (avg) {
    TL_CHECK(static_cast<int>(output_size.size()) == n, op, ": output_size must be ", n);
  } else {
    TL_CHECK(static_cast<int>(output_size.size()) == n, op, "(): internal error: output_size.size() must be ", n);
  }
  for (int64_t s : output_size)
    TL_CHECK(s >= 0, op, ": elements of output_size must be greater than or equal to 0 but received ", output_size);
  const int64_t nd = self.dim();
  TL_CHECK(nd == n + 1 || nd == n + 2, op, "(): Expected ", n + 1, "D or ", n + 2, "D tensor, but got ", self.sizes());
  // PyTorch's 2-d average checks only the pooled dims; the others every dim after the first.
  for (int64_t i = (avg && n == 2) ? nd - 2 : 1; i < nd; ++i)
    TL_CHECK(self.sizes()[i] != 0, op,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ", self.sizes(),
             " with dimension ", i, " being empty");
  AdaptivePlan pl;
  pl.g = planes_of(self, n);
  for (int i = 0; i < n; ++i) pl.out[3 - n + i] = output_size[i];
  pl.shape = pooled_shape(self, n, pl.out);
  return pl;
}

// Calls f(window begin/end per dim) for every output position of a plane, in order.
template <typename F>
void for_each_adaptive_window(const AdaptivePlan& pl, const F& f) {
  const Dims3 &I = pl.g.in, &O = pl.out;
  for (int64_t od = 0; od < O[0]; ++od) {
    const int64_t d0 = window_begin(od, O[0], I[0]), d1 = window_end(od, O[0], I[0]);
    for (int64_t oh = 0; oh < O[1]; ++oh) {
      const int64_t h0 = window_begin(oh, O[1], I[1]), h1 = window_end(oh, O[1], I[1]);
      for (int64_t ow = 0; ow < O[2]; ++ow) {
        const int64_t w0 = window_begin(ow, O[2], I[2]), w1 = window_end(ow, O[2], I[2]);
        f(d0, d1, h0, h1, w0, w1);
      }
    }
  }
}

// For each input index of a dim, the outputs whose windows cover it: [lo, hi) (empty when out is 0).
struct Covering {
  std::vector<int64_t> lo, hi;
};

Covering covering(int64_t in, int64_t out) {
  Covering c{std::vector<int64_t>(static_cast<size_t>(in), out), std::vector<int64_t>(static_cast<size_t>(in), 0)};
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = window_begin(o, out, in); i < window_end(o, out, in); ++i) {
      c.lo[i] = std::min(c.lo[i], o);
      c.hi[i] = std::max(c.hi[i], o + 1);
    }
  return c;
}

// Work of one plane: each input element is read about once per output window covering it.
int64_t adaptive_work(const AdaptivePlan& pl) { return std::max(pl.g.plane_size(), pl.out_plane()); }

// sums[iw] = the sum over rows (id, ih) in [d0, d1) x [h0, h1) of plane[id][ih][iw] (rows of W elements).
template <typename T>
TL_TARGET_CLONES void add_rows(const T* plane, int64_t H, int64_t W, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                               opmath_t<T>* sums) {
  using acc = opmath_t<T>;
  for (int64_t iw = 0; iw < W; ++iw) sums[iw] = acc(0);
  for (int64_t id = d0; id < d1; ++id)
    for (int64_t ih = h0; ih < h1; ++ih) {
      const T* row = plane + (id * H + ih) * W;
#pragma omp simd
      for (int64_t iw = 0; iw < W; ++iw) sums[iw] += static_cast<acc>(row[iw]);
    }
}

void adaptive_avg_nd(const Tensor& self, IntArrayRef output_size, int n, const char* op, Tensor& out) {
  const AdaptivePlan pl = plan_adaptive(self, output_size, n, true, op);
  prepare_output(out, pl.shape, self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  if (n == 2 && out.numel() == 0) return;  // PyTorch's 2-d kernel checks the dtype only when there is work
  const Tensor in = contiguous_of(self);
  Tensor ob = write_buffer(out, self);
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const Dims3& I = pl.g.in;
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    using acc = opmath_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = ob.data_ptr<scalar_t>();
    const Dims3& O = pl.out;
    parallel_for(0, pl.g.planes, plane_grain(adaptive_work(pl)), [&](int64_t b, int64_t e) {
      std::vector<acc> rowsum(static_cast<size_t>(I[2]));
      for (int64_t plane = b; plane < e; ++plane) {
        const scalar_t* ip = src + plane * in_plane;
        scalar_t* op_ = dst + plane * out_plane;
        // One row of outputs at a time: the window's input rows are added element by element into a
        // full-width row of sums (contiguous, vectorized; the input streams through once), then each
        // output sums its span of that row. Every window is summed column by column, then across.
        for (int64_t od = 0; od < O[0]; ++od) {
          const int64_t d0 = window_begin(od, O[0], I[0]), d1 = window_end(od, O[0], I[0]);
          for (int64_t oh = 0; oh < O[1]; ++oh) {
            const int64_t h0 = window_begin(oh, O[1], I[1]), h1 = window_end(oh, O[1], I[1]);
            add_rows<scalar_t>(ip, I[1], I[2], d0, d1, h0, h1, rowsum.data());
            for (int64_t ow = 0; ow < O[2]; ++ow) {
              const int64_t w0 = window_begin(ow, O[2], I[2]), w1 = window_end(ow, O[2], I[2]);
              acc sum = 0;
              for (int64_t iw = w0; iw < w1; ++iw) sum += rowsum[iw];
              *op_++ = static_cast<scalar_t>(sum / static_cast<acc>(d1 - d0) / static_cast<acc>(h1 - h0) /
                                             static_cast<acc>(w1 - w0));
            }
          }
        }
      }
    });
  });
  commit(out, ob);
}

Tensor adaptive_avg_backward_nd(const Tensor& grad_output, const Tensor& self, int n, const char* op) {
  const int64_t nd = grad_output.dim();
  // PyTorch's 3-d backward reads grad_output.size(-4) first: IndexError below 4 dims.
  TL_CHECK_INDEX(n == 2 || nd >= n + 1, op, ": Dimension specified as ", -(n + 1), " but tensor has ", nd,
                 " dimensions");
  TL_CHECK(nd == self.dim() && (nd == n + 1 || nd == n + 2), op, ": expected grad_output of ", self.dim(),
           " dims, but got ", grad_output.sizes());
  for (int64_t i = 1; i < nd; ++i)
    TL_CHECK(grad_output.sizes()[i] != 0, op,
             ": Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes ",
             grad_output.sizes(), " with dimension ", i, " being empty");
  DimVector out_size;
  for (int i = 0; i < n; ++i) out_size.push_back(grad_output.sizes()[nd - n + i]);
  const AdaptivePlan pl = plan_adaptive(self, out_size, n, true, op);
  check_grad_shape(grad_output, pl.shape, op, "grad_output");
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ", scalar_type_name(self.dtype()),
           ", but got ", scalar_type_name(grad_output.dtype()));
  Tensor grad_input;
  prepare_output(grad_input, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return grad_input;
  const Tensor go = contiguous_of(grad_output);
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const Dims3& I = pl.g.in;
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    using acc = opmath_t<scalar_t>;
    const scalar_t* src = go.data_ptr<scalar_t>();
    scalar_t* dst = grad_input.data_ptr<scalar_t>();
    const Dims3& O = pl.out;
    const Covering cover[3] = {covering(I[0], O[0]), covering(I[1], O[1]), covering(I[2], O[2])};
    bool w_disjoint = true;  // every input column in exactly one window
    for (int64_t iw = 0; iw < I[2]; ++iw) w_disjoint = w_disjoint && cover[2].hi[iw] - cover[2].lo[iw] == 1;
    parallel_for(0, pl.g.planes, plane_grain(adaptive_work(pl)), [&](int64_t b, int64_t e) {
      std::vector<acc> delta(static_cast<size_t>(out_plane)), column(static_cast<size_t>(O[2]));
      for (int64_t plane = b; plane < e; ++plane) {
        const scalar_t* gp = src + plane * out_plane;
        scalar_t* ip = dst + plane * in_plane;
        // Each output's share of its window, rounded to scalar_t as PyTorch's kernel keeps it.
        int64_t j = 0;
        for_each_adaptive_window(pl, [&](int64_t d0, int64_t d1, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
          delta[j] = static_cast<acc>(static_cast<scalar_t>(static_cast<acc>(gp[j]) / static_cast<acc>(d1 - d0) /
                                                            static_cast<acc>(h1 - h0) / static_cast<acc>(w1 - w0)));
          ++j;
        });
        // Every input element sums the shares of the windows covering it: one write per element, no
        // zeroing pass. A row first sums its covering (d, h) windows per output column; columns whose
        // windows do not overlap (the usual case) then fill their span with one value.
        const scalar_t* last = nullptr;  // the previous row, when covered by the same (d, h) windows
        for (int64_t id = 0; id < I[0]; ++id)
          for (int64_t ih = 0; ih < I[1]; ++ih) {
            scalar_t* row = ip + (id * I[1] + ih) * I[2];
            const bool same = last && (ih > 0 ? cover[1].lo[ih] == cover[1].lo[ih - 1] &&
                                                    cover[1].hi[ih] == cover[1].hi[ih - 1]
                                              : I[1] == 1) &&
                              (ih > 0 || (cover[0].lo[id] == cover[0].lo[id - 1] &&
                                          cover[0].hi[id] == cover[0].hi[id - 1]));
            if (same) {  // (an adaptive window spans several rows: most rows repeat the one above)
              std::copy(last, last + I[2], row);
              last = row;
              continue;
            }
            for (int64_t ow = 0; ow < O[2]; ++ow) {
              acc sum = 0;
              for (int64_t od = cover[0].lo[id]; od < cover[0].hi[id]; ++od)
                for (int64_t oh = cover[1].lo[ih]; oh < cover[1].hi[ih]; ++oh) sum += delta[(od * O[1] + oh) * O[2] + ow];
              column[ow] = sum;
            }
            last = row;
            if (w_disjoint) {
              for (int64_t ow = 0; ow < O[2]; ++ow) {
                const scalar_t v = static_cast<scalar_t>(column[ow]);
                for (int64_t iw = window_begin(ow, O[2], I[2]), end = window_end(ow, O[2], I[2]); iw < end; ++iw)
                  row[iw] = v;
              }
            } else {
              for (int64_t iw = 0; iw < I[2]; ++iw) {
                acc sum = 0;
                for (int64_t ow = cover[2].lo[iw]; ow < cover[2].hi[iw]; ++ow) sum += column[ow];
                row[iw] = static_cast<scalar_t>(sum);
              }
            }
          }
      }
    });
  });
  return grad_input;
}

void adaptive_max_nd(const Tensor& self, IntArrayRef output_size, int n, const char* op, Tensor& out,
                     Tensor& indices) {
  const AdaptivePlan pl = plan_adaptive(self, output_size, n, false, op);
  prepare_output(out, pl.shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, pl.shape, ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  const Tensor in = contiguous_of(self);
  Tensor ob = write_buffer(out, self), ib = write_buffer(indices, self);
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  const Dims3& I = pl.g.in;
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    using acc = opmath_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = ob.data_ptr<scalar_t>();
    int64_t* ix = ib.data_ptr<int64_t>();
    parallel_for(0, pl.g.planes, plane_grain(adaptive_work(pl)), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        const scalar_t* ip = src + plane * in_plane;
        scalar_t* op_ = dst + plane * out_plane;
        int64_t* xp = ix + plane * out_plane;
        for_each_adaptive_window(pl, [&](int64_t d0, int64_t d1, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
          acc best = -std::numeric_limits<acc>::infinity();
          int64_t best_i = (d0 * I[1] + h0) * I[2] + w0;
          for (int64_t id = d0; id < d1; ++id)
            for (int64_t ih = h0; ih < h1; ++ih) {
              const int64_t row = (id * I[1] + ih) * I[2];
              for (int64_t iw = w0; iw < w1; ++iw) {
                const acc v = static_cast<acc>(ip[row + iw]);
                const bool take = (v > best) | (v != v);  // NaN wins, as PyTorch; selects, not a branch
                best = take ? v : best;
                best_i = take ? row + iw : best_i;
              }
            }
          *op_++ = static_cast<scalar_t>(best);
          *xp++ = best_i;
        });
      }
    });
  });
  commit(out, ob);
  commit(indices, ib);
}

Tensor adaptive_max_backward_nd(const Tensor& grad_output, const Tensor& self, const Tensor& indices, int n,
                                const char* op) {
  const int64_t nd = self.dim();
  TL_CHECK(nd == n + 1 || nd == n + 2, op, "(): Expected ", n + 1, "D or ", n + 2, "D tensor, but got ", self.sizes());
  TL_CHECK(grad_output.dim() == nd, op, ": expected grad_output of ", nd, " dims, but got ", grad_output.sizes());
  check_grad_shape(indices, grad_output.sizes(), op, "indices");
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": expected indices of dtype int64, but got ",
           scalar_type_name(indices.dtype()));
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ", scalar_type_name(self.dtype()),
           ", but got ", scalar_type_name(grad_output.dtype()));
  for (int64_t i = 0; i < nd - n; ++i)
    TL_CHECK(grad_output.sizes()[i] == self.sizes()[i], op, ": expected grad_output of size ", self.sizes(),
             " in its leading dims, but got ", grad_output.sizes());
  for (int64_t i = 1; i < nd; ++i)
    TL_CHECK(grad_output.sizes()[i] != 0, op,
             ": Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes ",
             grad_output.sizes(), " with dimension ", i, " being empty");
  Tensor grad_input;
  prepare_output(grad_input, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return grad_input;
  const Planes g = planes_of(self, n);
  scatter_planes(contiguous_of(grad_output), contiguous_of(indices), grad_input, g.planes, g.plane_size(), true, op);
  return grad_input;
}

}  // namespace

Tensor _adaptive_avg_pool2d_kernel(const Tensor& self, IntArrayRef output_size) {
  Tensor out;
  adaptive_avg_nd(self, output_size, 2, "adaptive_avg_pool2d", out);
  return out;
}

Tensor _adaptive_avg_pool3d_kernel(const Tensor& self, IntArrayRef output_size) {
  Tensor out;
  adaptive_avg_nd(self, output_size, 3, "adaptive_avg_pool3d", out);
  return out;
}

// adaptive_avg_pool2d/3d's out= runs the kernel for every output size (PyTorch's takes no mean shortcut).
const Tensor& adaptive_avg_pool2d_out_kernel(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  Tensor o = out;  // a handle on the user's tensor: resized and written in place
  adaptive_avg_nd(self, output_size, 2, "adaptive_avg_pool2d", o);
  return out;
}

const Tensor& adaptive_avg_pool3d_out_kernel(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  Tensor o = out;
  adaptive_avg_nd(self, output_size, 3, "adaptive_avg_pool3d", o);
  return out;
}

Tensor _adaptive_avg_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward_nd(grad_output, self, 2, "_adaptive_avg_pool2d_backward");
}

Tensor _adaptive_avg_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward_nd(grad_output, self, 3, "_adaptive_avg_pool3d_backward");
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_kernel(const Tensor& self, IntArrayRef output_size) {
  Tensor out, indices;
  adaptive_max_nd(self, output_size, 2, "adaptive_max_pool2d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> adaptive_max_pool2d_out_kernel(const Tensor& self, IntArrayRef output_size,
                                                                      const Tensor& out, const Tensor& indices) {
  Tensor o = out, i = indices;  // handles on the user's tensors: resized and written in place
  adaptive_max_nd(self, output_size, 2, "adaptive_max_pool2d", o, i);
  return {out, indices};
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_kernel(const Tensor& self, IntArrayRef output_size) {
  Tensor out, indices;
  adaptive_max_nd(self, output_size, 3, "adaptive_max_pool3d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> adaptive_max_pool3d_out_kernel(const Tensor& self, IntArrayRef output_size,
                                                                      const Tensor& out, const Tensor& indices) {
  Tensor o = out, i = indices;  // handles on the user's tensors: resized and written in place
  adaptive_max_nd(self, output_size, 3, "adaptive_max_pool3d", o, i);
  return {out, indices};
}

Tensor adaptive_max_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  return adaptive_max_backward_nd(grad_output, self, indices, 2, "adaptive_max_pool2d_backward");
}

Tensor adaptive_max_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  return adaptive_max_backward_nd(grad_output, self, indices, 3, "adaptive_max_pool3d_backward");
}

}  // namespace tl::native
