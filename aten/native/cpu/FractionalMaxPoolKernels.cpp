// fractional_max_pool2d/3d and their backward ops (Graham's fractional max pooling). Each plane
// draws one sample u in [0, 1) per pooled dim (`random_samples` (N, C, 2 or 3)); the windows along a
// dim of size `in` pooled to `out` with a kernel of `k` start at
//   start(i) = int((i + u) * alpha) - int(u * alpha),  alpha = (in - k) / (out - 1),  i < out - 1,
//   start(out - 1) = in - k,
// computed in the input's dtype with its rounding after every operation (PyTorch's formula, so the
// 16-bit floats round as c10::Half/BFloat16 arithmetic does). The max takes the first maximum, NaN
// wins (the last NaN's index); indices count within the plane. Planes in parallel on contiguous
// (planes, D, H, W) data (PoolingShape.h); the backward is the max pools' scatter.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "aten/native/DimEngine.h"
#include "aten/native/cpu/PoolingShape.h"
#include "generated/ops/fractional_max_pool2d.h"
#include "generated/ops/fractional_max_pool2d_backward.h"
#include "generated/ops/fractional_max_pool3d.h"
#include "generated/ops/fractional_max_pool3d_backward.h"

namespace tl::native {

using namespace pooling;

namespace {

// static_cast<int> as x86's cvttss2si/cvttsd2si do it: truncation, INT_MIN when out of range or NaN.
template <typename acc>
int32_t to_int_x86(acc v) {
  return (v > acc(-2147483649.0) && v < acc(2147483648.0)) ? static_cast<int32_t>(v) : INT32_MIN;
}

// The window starts of one pooled dim, in T's arithmetic (T(float op float) rounds a 16-bit float
// after each step, as c10's operators do; float and double compute natively).
template <typename T>
std::vector<int64_t> interval_starts(T sample, int64_t in, int64_t out, int64_t k) {
  using acc = opmath_t<T>;
  std::vector<int64_t> seq(static_cast<size_t>(std::max<int64_t>(out, 0)));
  if (out > 1) {
    const T alpha = T(static_cast<acc>(T(static_cast<acc>(in - k))) / static_cast<acc>(T(static_cast<acc>(out - 1))));
    const T offset = T(static_cast<acc>(sample) * static_cast<acc>(alpha));
    for (int64_t i = 0; i < out - 1; ++i) {
      const T shifted = T(static_cast<acc>(T(static_cast<acc>(i))) + static_cast<acc>(sample));
      const T pos = T(static_cast<acc>(shifted) * static_cast<acc>(alpha));
      // int(x) and the difference as PyTorch computes them on x86: a value outside int's range (or NaN)
      // converts to INT_MIN, and the int subtraction wraps. A start outside the input is refused below
      // (PyTorch's assert), so samples far outside [0, 1) never read outside memory.
      const int32_t a = to_int_x86(static_cast<acc>(pos)), b = to_int_x86(static_cast<acc>(offset));
      seq[static_cast<size_t>(i)] = static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
    }
  }
  if (out > 0) seq[static_cast<size_t>(out - 1)] = in - k;
  return seq;
}

struct FracPlan {
  Planes g;
  int64_t batch = 1, channels = 1;
  Dims3 k{1, 1, 1}, out{1, 1, 1};
  DimVector shape;
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

const char* dim_word(int i, int n) {
  static const char* const names[3] = {"time", "height", "width"};
  return names[3 - n + i];
}

// PyTorch's meta checks: n-entry kernel_size and output_size, a (C, spatial) or (N, C, spatial) input
// with no empty dim after the first, and output + kernel - 1 within the input (strictly within for
// the 3-d pool, as PyTorch's).
FracPlan plan_fractional(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size, int n,
                         const char* op) {
  const char* forms = n == 2 ? "a single Int or tuple of Ints" : "a single Int or tuple of three Ints";
  TL_CHECK(static_cast<int>(kernel_size.size()) == n, op, ": kernel_size must either be ", forms);
  TL_CHECK(static_cast<int>(output_size.size()) == n, op, ": output_size must either be ", forms);
  const char* fn = n == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()";
  const int64_t nd = self.dim();
  TL_CHECK(nd == n + 1 || nd == n + 2, fn, ": Expected ", n + 1, "D or ", n + 2, "D tensor, but got: ", self.sizes());
  for (int64_t i = 1; i < nd; ++i)
    TL_CHECK(self.sizes()[i] > 0, fn, ": Expected input to have non-zero size for non-batch dimensions, but got",
             self.sizes(), " with dimension ", i, " being empty.");
  FracPlan pl;
  pl.g = planes_of(self, n);
  pl.batch = nd == n + 2 ? self.sizes()[0] : 1;
  pl.channels = self.sizes()[nd - n - 1];
  for (int i = 0; i < n; ++i) {
    pl.k[3 - n + i] = kernel_size[i];
    pl.out[3 - n + i] = output_size[i];
  }
  // PyTorch checks time, width, height in that order for the 3-d pool; height, width for the 2-d one.
  const int order2[2] = {0, 1}, order3[3] = {0, 2, 1};
  for (int j = 0; j < n; ++j) {
    const int i = n == 2 ? order2[j] : order3[j];
    const int64_t in = self.sizes()[nd - n + i], k = kernel_size[i], o = output_size[i];
    // o + k - 1: the last input row a window may reach, in checked arithmetic (PyTorch's int64 sum
    // overflows for sizes near 2**63; such a size never fits)
    int64_t reach = 0;
    const bool exact = !__builtin_add_overflow(o, k, &reach) && !__builtin_sub_overflow(reach, 1, &reach);
    const bool fits = exact && (n == 2 ? reach <= in : (k <= in && reach < in));
    TL_CHECK(fits, fn, ": pool ", dim_word(i, n), " ", k, " too large relative to input ", dim_word(i, n), " ", in);
  }
  for (int64_t s : output_size)
    TL_CHECK(s >= 0, op, ": Trying to create tensor with negative dimension ", s, ": ", output_size);
  pl.shape = pooled_shape(self, n, pl.out);
  return pl;
}

// fractional_max_pool_check_shape: the samples' dtype and (N >= batch, C, n) shape.
void check_samples(const Tensor& self, const Tensor& samples, const FracPlan& pl, int n) {
  TL_CHECK(samples.dtype() == self.dtype(), "Expect _random_samples to have the same dtype as input");
  TL_CHECK(samples.dim() == 3, "Expect _random_samples to have 3 dimensions, got ", samples.dim());
  TL_CHECK(samples.sizes()[0] >= pl.batch, "Expect _random_samples.size(0) no less then input batch size.");
  TL_CHECK(samples.sizes()[1] == pl.channels, "Expect _random_samples.size(1) equals to input channel size.");
  TL_CHECK(samples.sizes()[2] == n, "Expect _random_samples.size(2) equals to ", n, "; got ", samples.sizes()[2], ".");
}

void fractional_nd(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size, const Tensor& samples, int n,
                   const char* op, Tensor& out, Tensor& indices) {
  const FracPlan pl = plan_fractional(self, kernel_size, output_size, n, op);
  prepare_output(out, pl.shape, self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, pl.shape, ScalarType::Int64, self, OutDtype::Exact, op);
  check_samples(self, samples, pl, n);  // PyTorch checks them on meta tensors too (its Python meta function)
  if (self.is_meta() || out.numel() == 0) return;
  const Tensor in = contiguous_of(self), rs = contiguous_of(samples);
  Tensor ob = write_buffer(out, self), ib = write_buffer(indices, self);
  const Dims3 &I = pl.g.in, &K = pl.k, &O = pl.out;
  const int64_t in_plane = pl.g.plane_size(), out_plane = pl.out_plane();
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    using acc = opmath_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    const scalar_t* u = rs.data_ptr<scalar_t>();
    scalar_t* dst = ob.data_ptr<scalar_t>();
    int64_t* ix = ib.data_ptr<int64_t>();
    const int64_t work = out_plane * std::max<int64_t>(1, K[0] * K[1] * K[2]);
    parallel_for(0, pl.g.planes, plane_grain(work), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        // Plane p = (batch, channel) reads samples[batch][channel]: 2-d as (W, H), 3-d as (T, H, W).
        const scalar_t* up = u + plane * n;
        std::vector<int64_t> starts[3];
        starts[0] = n == 3 ? interval_starts<scalar_t>(up[0], I[0], O[0], K[0]) : std::vector<int64_t>{0};
        starts[1] = interval_starts<scalar_t>(up[1], I[1], O[1], K[1]);
        starts[2] = interval_starts<scalar_t>(up[n == 3 ? 2 : 0], I[2], O[2], K[2]);
        for (int d = 0; d < 3; ++d)
          for (int64_t s : starts[d])
            TL_CHECK(K[d] <= 0 || (s >= 0 && s + K[d] <= I[d]), op,
                     ": a random sample puts a pooling window outside the input (window start ", s,
                     ", kernel ", K[d], ", input size ", I[d], ")");
        const scalar_t* ip = src + plane * in_plane;
        scalar_t* op_ = dst + plane * out_plane;
        int64_t* xp = ix + plane * out_plane;
        for (int64_t ot = 0; ot < O[0]; ++ot)
          for (int64_t oh = 0; oh < O[1]; ++oh)
            for (int64_t ow = 0; ow < O[2]; ++ow) {
              const int64_t t0 = starts[0][ot], h0 = starts[1][oh], w0 = starts[2][ow];
              acc best = -std::numeric_limits<acc>::infinity();
              int64_t best_i = (t0 * I[1] + h0) * I[2] + w0;
              for (int64_t it = t0; it < t0 + K[0]; ++it)
                for (int64_t ih = h0; ih < h0 + K[1]; ++ih) {
                  const int64_t row = (it * I[1] + ih) * I[2];
                  for (int64_t iw = w0; iw < w0 + K[2]; ++iw) {
                    const acc v = static_cast<acc>(ip[row + iw]);
                    const bool take = (v > best) | (v != v);  // NaN wins, as PyTorch; selects, not a branch
                    best = take ? v : best;
                    best_i = take ? row + iw : best_i;
                  }
                }
              *op_++ = static_cast<scalar_t>(best);
              *xp++ = best_i;
            }
      }
    });
  });
  commit(out, ob);
  commit(indices, ib);
}

// PyTorch's backward meta checks: grad_output and indices of the result's shape (the input's leading
// dims, then output_size).
Tensor fractional_backward_nd(const Tensor& grad_output, const Tensor& self, IntArrayRef output_size,
                              const Tensor& indices, int n, const char* op, Tensor& grad_input) {
  const int64_t nd = self.dim();
  // PyTorch reads self's (and, 3-d, grad_output's) plane and spatial sizes before any check: too few
  // dims are its IndexError.
  if (nd < n + 1)
    throw IndexError(str(op, ": Dimension out of range: expected self of ", n + 1, " or ", n + 2,
                         " dims, but got ", self.sizes()));
  if (n == 3 && grad_output.dim() <= (nd == 5 ? 4 : 3))
    throw IndexError(str(op, ": Dimension out of range: grad_output of sizes ", grad_output.sizes()));
  TL_CHECK(nd == n + 1 || nd == n + 2, op, "(): Expected ", n + 1, "D or ", n + 2, "D tensor, but got: ", self.sizes());
  TL_CHECK(static_cast<int>(output_size.size()) == n, op, ": output_size must either be ",
           n == 2 ? "a single Int or tuple of Ints" : "a single Int or tuple of three Ints");
  DimVector expected(self.sizes());
  for (int i = 0; i < n; ++i) expected[static_cast<size_t>(nd - n + i)] = output_size[i];
  TL_CHECK(grad_output.sizes() == IntArrayRef(expected), op, "(): gradOutput sizes unexpected: expected ",
           IntArrayRef(expected), " but got ", grad_output.sizes());
  TL_CHECK(indices.sizes() == IntArrayRef(expected), op, "(): indices sizes unexpected: expected ",
           IntArrayRef(expected), " but got ", indices.sizes());
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": expected indices of dtype int64, but got ",
           scalar_type_name(indices.dtype()));
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ", scalar_type_name(self.dtype()),
           ", but got ", scalar_type_name(grad_output.dtype()));
  prepare_output(grad_input, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta()) return grad_input;
  const Planes g = planes_of(self, n);
  TL_DISPATCH_FLOAT(self.dtype(), op, [] {});  // PyTorch's dtype dispatch runs even when empty
  Tensor gb = write_buffer(grad_input, grad_output);
  if (gb.numel() == 0) return grad_input;
  scatter_planes(contiguous_of(grad_output), contiguous_of(indices), gb, g.planes, g.plane_size(), true, op);
  commit(grad_input, gb);
  return grad_input;
}

}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                        IntArrayRef output_size, const Tensor& random_samples) {
  Tensor out, indices;
  fractional_nd(self, kernel_size, output_size, random_samples, 2, "fractional_max_pool2d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> fractional_max_pool2d_output_kernel(const Tensor& self,
                                                                             IntArrayRef kernel_size,
                                                                             IntArrayRef output_size,
                                                                             const Tensor& random_samples,
                                                                             const Tensor& output,
                                                                             const Tensor& indices) {
  Tensor o = output, i = indices;  // handles on the user's tensors: resized and written in place
  fractional_nd(self, kernel_size, output_size, random_samples, 2, "fractional_max_pool2d", o, i);
  return {output, indices};
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_kernel(const Tensor& self, IntArrayRef kernel_size,
                                                        IntArrayRef output_size, const Tensor& random_samples) {
  Tensor out, indices;
  fractional_nd(self, kernel_size, output_size, random_samples, 3, "fractional_max_pool3d", out, indices);
  return {out, indices};
}

std::tuple<const Tensor&, const Tensor&> fractional_max_pool3d_output_kernel(const Tensor& self,
                                                                             IntArrayRef kernel_size,
                                                                             IntArrayRef output_size,
                                                                             const Tensor& random_samples,
                                                                             const Tensor& output,
                                                                             const Tensor& indices) {
  Tensor o = output, i = indices;
  fractional_nd(self, kernel_size, output_size, random_samples, 3, "fractional_max_pool3d", o, i);
  return {output, indices};
}

Tensor fractional_max_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef output_size, const Tensor& indices) {
  (void)kernel_size;  // unused, as in PyTorch
  Tensor grad_input;
  return fractional_backward_nd(grad_output, self, output_size, indices, 2, "fractional_max_pool2d_backward",
                                grad_input);
}

const Tensor& fractional_max_pool2d_backward_grad_input_kernel(const Tensor& grad_output, const Tensor& self,
                                                               IntArrayRef kernel_size, IntArrayRef output_size,
                                                               const Tensor& indices, const Tensor& grad_input) {
  (void)kernel_size;
  Tensor g = grad_input;
  fractional_backward_nd(grad_output, self, output_size, indices, 2, "fractional_max_pool2d_backward", g);
  return grad_input;
}

Tensor fractional_max_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef output_size, const Tensor& indices) {
  (void)kernel_size;
  Tensor grad_input;
  return fractional_backward_nd(grad_output, self, output_size, indices, 3, "fractional_max_pool3d_backward",
                                grad_input);
}

const Tensor& fractional_max_pool3d_backward_grad_input_kernel(const Tensor& grad_output, const Tensor& self,
                                                               IntArrayRef kernel_size, IntArrayRef output_size,
                                                               const Tensor& indices, const Tensor& grad_input) {
  (void)kernel_size;
  Tensor g = grad_input;
  fractional_backward_nd(grad_output, self, output_size, indices, 3, "fractional_max_pool3d_backward", g);
  return grad_input;
}

}  // namespace tl::native
