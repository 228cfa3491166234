// pixel_shuffle, pixel_unshuffle and channel_shuffle: permutations of self's elements. Each is one
// strided copy: self seen (as a view, any strides) with its dims split and ordered as the result's,
// copied into the contiguous result.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/channel_shuffle.h"
#include "generated/ops/copy.h"
#include "generated/ops/pixel_shuffle.h"
#include "generated/ops/pixel_unshuffle.h"

namespace tl::native {
namespace {

// out (contiguous, `out_sizes`) seen with `split_sizes` (the same elements, its dims split) receives
// self seen with `split_sizes` and `src_strides`.
Tensor permuted_copy(const Tensor& self, IntArrayRef out_sizes, IntArrayRef split_sizes, IntArrayRef src_strides) {
  Tensor out = empty_tensor(out_sizes, self.dtype(), self.device());
  if (out.is_meta() || out.numel() == 0) return out;
  DimVector dst_strides(split_sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(split_sizes.size()) - 1; d >= 0; --d) {
    dst_strides[d] = s;
    s *= split_sizes[d];
  }
  copy_kernel(make_view(out, split_sizes, dst_strides, 0), make_view(self, split_sizes, src_strides,
                                                                     self.storage_offset()), false);
  return out;
}

// PyTorch's kernels have no uint16/uint32/uint64 instances (its dispatch raises NotImplementedError); the
// strided copy here would take any dtype, so the refusal is explicit.
void check_dtype(const char* op, const Tensor& self) {
  const ScalarType t = self.scalar_type();
  TL_CHECK_AS(NotImplementedError, t != ScalarType::UInt16 && t != ScalarType::UInt32 && t != ScalarType::UInt64,
              op, ": not implemented for dtype ", scalar_type_name(t));
}

// The first n entries of `a`, then `tail`.
DimVector head_then(IntArrayRef a, int64_t n, std::initializer_list<int64_t> tail) {
  DimVector v;
  for (int64_t d = 0; d < n; ++d) v.push_back(a[d]);
  for (int64_t x : tail) v.push_back(x);
  return v;
}

}  // namespace

Tensor pixel_shuffle_kernel(const Tensor& self, int64_t upscale_factor) {
  check_dtype("pixel_shuffle", self);
  const int64_t nd = self.dim();
  TL_CHECK(nd >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ", nd,
           " dimension(s)");
  const int64_t r = upscale_factor;
  TL_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = self.sizes()[nd - 3], h = self.sizes()[nd - 2], w = self.sizes()[nd - 1];
  // r * r, the output sizes and the channel stride in checked arithmetic: r comes from the caller.
  int64_t rr = 0;
  const bool rr_overflows = __builtin_mul_overflow(r, r, &rr);
  TL_CHECK_VALUE(!rr_overflows, "pixel_shuffle: upscale factor is too large, (upscale_factor)^2 overflowed: ",
                 "upscale_factor=", r);
  TL_CHECK(c % rr == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of ",
           "upscale_factor, but input.size(-3)=", c, " is not divisible by ", rr);
  const int64_t sc = self.strides()[nd - 3], sh = self.strides()[nd - 2], sw = self.strides()[nd - 1];
  int64_t unused = 0;
  TL_CHECK(!__builtin_mul_overflow(h, r, &unused) && !__builtin_mul_overflow(w, r, &unused) &&
               !__builtin_mul_overflow(sc, rr, &unused),
           "pixel_shuffle: the output of input ", self.sizes(), " with upscale_factor ", r, " does not fit in int64");
  const int64_t b = nd - 3;
  // out[..., oc, y * r + i, x * r + j] = self[..., oc * r * r + i * r + j, y, x]
  return permuted_copy(self, head_then(self.sizes(), b, {c / (r * r), h * r, w * r}),
                       head_then(self.sizes(), b, {c / (r * r), h, r, w, r}),
                       head_then(self.strides(), b, {sc * r * r, sh, sc * r, sw, sc}));
}

Tensor pixel_unshuffle_kernel(const Tensor& self, int64_t downscale_factor) {
  check_dtype("pixel_unshuffle", self);
  const int64_t nd = self.dim();
  TL_CHECK(nd >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ", nd,
           " dimension(s)");
  const int64_t r = downscale_factor;
  TL_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = self.sizes()[nd - 3], h = self.sizes()[nd - 2], w = self.sizes()[nd - 1];
  TL_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
           " is not divisible by ", r);
  TL_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
           " is not divisible by ", r);
  const int64_t sc = self.strides()[nd - 3], sh = self.strides()[nd - 2], sw = self.strides()[nd - 1];
  // As PyTorch: an empty input comes back with its own shape.
  if (self.numel() == 0) return empty_tensor(self.sizes(), self.dtype(), self.device());
  const int64_t b = nd - 3;
  // out[..., ic * r * r + i * r + j, y, x] = self[..., ic, y * r + i, x * r + j]
  return permuted_copy(self, head_then(self.sizes(), b, {c * r * r, h / r, w / r}),
                       head_then(self.sizes(), b, {c, r, r, h / r, w / r}),
                       head_then(self.strides(), b, {sc, sh, sw, sh * r, sw * r}));
}

Tensor channel_shuffle_kernel(const Tensor& self, int64_t groups) {
  check_dtype("channel_shuffle", self);
  TL_CHECK(self.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes ", self.sizes());
  TL_CHECK(groups > 0, "channel_shuffle: Number of groups to divide channels in must be positive. Value of groups:",
           groups);
  const int64_t c = self.sizes()[1];
  TL_CHECK(c % groups == 0, "channel_shuffle: Number of channels must be divisible by groups. Got ", c,
           " channels and ", groups, " groups.");
  // out[n, j * groups + g, ...] = self[n, g * (c / groups) + j, ...]
  DimVector split{self.sizes()[0], c / groups, groups};
  DimVector strides{self.strides()[0], self.strides()[1], self.strides()[1] * (c / groups)};
  for (int64_t d = 2; d < self.dim(); ++d) {
    split.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return permuted_copy(self, self.sizes(), split, strides);
}

}  // namespace tl::native
