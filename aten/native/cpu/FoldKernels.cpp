// im2col / col2im as ops (torch.nn.functional.unfold / fold): the 2-d case of Im2Col.h, applied to
// each batch element in parallel. float16/bfloat16 fold sums in float32.
#include <string>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/Im2Col.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/col2im.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/im2col.h"

namespace tl::native {

namespace {

void check_pair(IntArrayRef v, const char* name, const char* op) {
  TL_CHECK(v.size() == 2, op, ": ", name, " must be a pair of ints, but got ", v);
}

// PyTorch's common checks of the window parameters (kernel, dilation, padding, stride).
void check_window(IntArrayRef k, IntArrayRef dil, IntArrayRef pad, IntArrayRef stride, const char* op) {
  check_pair(k, "kernel_size", op);
  check_pair(dil, "dilation", op);
  check_pair(pad, "padding", op);
  check_pair(stride, "stride", op);
  TL_CHECK(k[0] > 0 && k[1] > 0, op, ": kernel size should be greater than zero, but got kernel_height: ", k[0],
           " kernel_width: ", k[1]);
  TL_CHECK(stride[0] > 0 && stride[1] > 0, op, ": stride should be greater than zero, but got stride_height: ",
           stride[0], " stride_width: ", stride[1]);
  TL_CHECK(dil[0] > 0 && dil[1] > 0, op, ": dilation should be greater than zero, but got dilation_height: ", dil[0],
           " dilation_width: ", dil[1]);
  TL_CHECK(pad[0] >= 0 && pad[1] >= 0, op, ": padding should be non-negative, but got pad_height: ", pad[0],
           " pad_width: ", pad[1]);
}

conv::Geometry window_geometry(int64_t h, int64_t w, IntArrayRef k, IntArrayRef dil, IntArrayRef pad,
                               IntArrayRef stride) {
  conv::Geometry g;
  const int64_t img[2] = {h, w};
  for (int i = 0; i < 2; ++i) {
    g.img[1 + i] = img[i];
    g.k[1 + i] = k[i];
    g.d[1 + i] = dil[i];
    g.p[1 + i] = pad[i];
    g.s[1 + i] = stride[i];
    g.col[1 + i] = (img[i] + 2 * pad[i] - (dil[i] * (k[i] - 1) + 1)) / stride[i] + 1;
  }
  return g;
}

template <typename F>
void for_batch(int64_t batch, int64_t work, const F& f) {
  parallel_for(0, batch, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t b0, int64_t b1) {
    for (int64_t n = b0; n < b1; ++n) f(n);
  });
}

#define TL_DISPATCH_FOLD(dtype, opname, ...)                                                     \
  TL_DISPATCH_SWITCH(dtype, opname, TL_DISPATCH_CASE(Float32, float, __VA_ARGS__)                \
                                        TL_DISPATCH_CASE(Float64, double, __VA_ARGS__)           \
                                            TL_DISPATCH_CASE(Float16, ::tl::Half, __VA_ARGS__)   \
                                                TL_DISPATCH_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__) \
                                                    TL_CASES_BOOL(__VA_ARGS__) TL_CASES_COMPLEX(__VA_ARGS__))

// Runs `compute` into `out` (allocating it, or through a temporary when `out` is not contiguous).
template <typename F>
void into_out(Tensor& out, IntArrayRef shape, ScalarType st, Device device, const char* op, const F& compute) {
  if (out.defined()) {
    TL_CHECK(out.dtype() == st, op, ": Expected out tensor to have dtype ", scalar_type_name(st), ", but got ",
             scalar_type_name(out.dtype()), " instead");
    resize_output(out, shape, op);
  }
  if (device.is_meta()) {
    if (!out.defined()) out = empty_tensor(shape, st, device);
    return;
  }
  Tensor res = out.defined() && out.is_contiguous() ? out : empty_tensor(shape, st, device);
  compute(res);
  if (!out.defined()) {
    out = res;
  } else if (!res.is_same(out)) {
    copy_(out, res);
  }
}

// img[n] = col2im(cols[n]) for each batch element of contiguous tensors.
template <typename T>
void fold_batch(const Tensor& cols, Tensor& img, int64_t batch, int64_t channels, const conv::Geometry& g) {
  const int64_t in_per = channels * g.k_numel() * g.col_numel(), out_per = channels * g.img_numel();
  const T* xp = cols.data_ptr<T>();
  T* ip = img.data_ptr<T>();
  for_batch(batch, in_per, [&](int64_t n) {
    T* dst = ip + n * out_per;
    std::fill(dst, dst + out_per, T(0));
    conv::col2im(xp + n * in_per, channels, g, dst);
  });
}

}  // namespace

void im2col_kernel(const Tensor& self_arg, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride, Tensor& out) {
  const Tensor self = input_unaffected_by_resize(self_arg, out);
  check_window(kernel_size, dilation, padding, stride, "im2col");
  TL_CHECK_AS(IndexError, self.dim() >= 3, "im2col: Dimension out of range (expected a 3-D or 4-D input, but got ",
              self.dim(), "-D)");
  const bool batched = self.dim() == 4;
  bool ok = self.dim() == 3 || batched;
  for (int64_t i = batched ? 1 : 0; ok && i < self.dim(); ++i) ok = self.sizes()[i] != 0;
  TL_CHECK(ok, "im2col: Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
               "dimensions for input, but got: ", self.sizes());
  const int64_t batch = batched ? self.sizes()[0] : 1, channels = self.sizes()[self.dim() - 3];
  const int64_t h = self.sizes()[self.dim() - 2], w = self.sizes()[self.dim() - 1];
  const conv::Geometry g = window_geometry(h, w, kernel_size, dilation, padding, stride);
  TL_CHECK(g.col[1] >= 1 && g.col[2] >= 1, "im2col: Given input with spatial size (", h, ", ", w, "), kernel_size=(",
           kernel_size[0], ", ", kernel_size[1], "), dilation=(", dilation[0], ", ", dilation[1], "), padding=(",
           padding[0], ", ", padding[1], "), calculated shape of the array of sliding blocks as (", g.col[1], ", ",
           g.col[2], "), but its components must be at least one.");
  const int64_t rows = channels * g.k_numel(), L = g.col_numel();
  DimVector shape{rows, L};
  if (batched) shape = DimVector{batch, rows, L};
  const ScalarType st = self.dtype();
  TL_DISPATCH_FOLD(st, "im2col", [&] {});  // refuses the dtypes PyTorch refuses before allocating
  into_out(out, shape, st, self.device(), "im2col", [&](Tensor& res) {
    const Tensor x = contiguous(self);
    TL_DISPATCH_FOLD(st, "im2col", [&] {
      const scalar_t* xp = x.data_ptr<scalar_t>();
      scalar_t* rp = res.data_ptr<scalar_t>();
      for_batch(batch, rows * L, [&](int64_t n) { conv::im2col(xp + n * channels * h * w, channels, g, rp + n * rows * L); });
    });
  });
}

void col2im_kernel(const Tensor& self_arg, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride, Tensor& out) {
  const Tensor self = input_unaffected_by_resize(self_arg, out);
  check_pair(output_size, "output_size", "col2im");
  check_window(kernel_size, dilation, padding, stride, "col2im");
  TL_CHECK(output_size[0] > 0 && output_size[1] > 0, "col2im: output_size should be greater than zero, but got ",
           "output_height: ", output_size[0], " output_width: ", output_size[1]);
  const bool batched = self.dim() == 3;
  bool ok = self.dim() == 2 || batched;
  for (int64_t i = batched ? 1 : 0; ok && i < self.dim(); ++i) ok = self.sizes()[i] != 0;
  TL_CHECK(ok, "col2im: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
               "dimensions for input, but got: ", self.sizes());
  const int64_t batch = batched ? self.sizes()[0] : 1;
  const int64_t rows = self.sizes()[self.dim() - 2], L = self.sizes()[self.dim() - 1];
  const int64_t K = kernel_size[0] * kernel_size[1];
  TL_CHECK(rows % K == 0, "col2im: Expected size of input's dimension 1 to be divisible by the product of kernel_size, ",
           "but got input.size(1)=", rows, " and kernel_size=(", kernel_size[0], ", ", kernel_size[1], ").");
  const int64_t channels = rows / K, h = output_size[0], w = output_size[1];
  const conv::Geometry g = window_geometry(h, w, kernel_size, dilation, padding, stride);
  TL_CHECK(g.col[1] >= 1 && g.col[2] >= 1 && L == g.col_numel(), "col2im: Given output_size=(", h, ", ", w,
           "), kernel_size=(", kernel_size[0], ", ", kernel_size[1], "), dilation=(", dilation[0], ", ", dilation[1],
           "), padding=(", padding[0], ", ", padding[1], "), stride=(", stride[0], ", ", stride[1],
           "), expected size of input's dimension 2 to match the calculated number of sliding blocks ", g.col[1],
           " * ", g.col[2], " = ", g.col[1] * g.col[2], ", but got input.size(2)=", L, ".");
  DimVector shape{channels, h, w};
  if (batched) shape = DimVector{batch, channels, h, w};
  const ScalarType st = self.dtype();
  TL_DISPATCH_FOLD(st, "col2im", [&] {});
  into_out(out, shape, st, self.device(), "col2im", [&](Tensor& res) {
    // 16-bit floats sum overlapping windows in float32, rounding once.
    const bool widen = is_reduced_float(st);
    const Tensor x = widen ? _to_copy(self, ScalarType::Float32) : contiguous(self);
    Tensor acc = widen ? empty_tensor(shape, ScalarType::Float32, self.device()) : res;
    TL_DISPATCH_SWITCH(x.dtype(), "col2im", TL_DISPATCH_CASE(Float32, float, [&] {
      fold_batch<scalar_t>(x, acc, batch, channels, g);
    }) TL_DISPATCH_CASE(Float64, double, [&] { fold_batch<scalar_t>(x, acc, batch, channels, g); })
                                                TL_CASES_BOOL([&] { fold_batch<scalar_t>(x, acc, batch, channels, g); })
                                                    TL_CASES_COMPLEX([&] { fold_batch<scalar_t>(x, acc, batch, channels, g); }));
    if (widen) copy_(res, acc);
  });
}

}  // namespace tl::native
