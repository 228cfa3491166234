// im2col / col2im over one to three spatial dims: the copy between an image and the matrix of its
// sliding windows that turns a convolution into a matrix product. Shared by convolution (forward
// and backward) and the unfold/fold ops (im2col/col2im).
//
// Layout: the image is `channels` planes of img[0] x img[1] x img[2]; the columns are a
// (channels * k[0] * k[1] * k[2]) x (col[0] * col[1] * col[2]) row-major matrix whose row
// (c, kd, kh, kw) holds, for every window position, the image value under that kernel tap (zero in
// the padding). 1-d and 2-d problems use size-1 leading dims (kernel 1, stride 1, padding 0).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/native/cpu/Vectorize.h"

namespace tl::native::conv {

struct Geometry {
  int64_t img[3] = {1, 1, 1};  // spatial sizes of the image side
  int64_t col[3] = {1, 1, 1};  // window positions per dim (the convolution's output for a forward conv)
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};

  int64_t img_numel() const { return img[0] * img[1] * img[2]; }
  int64_t col_numel() const { return col[0] * col[1] * col[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
  // A 1x1 kernel over an unpadded, unstrided image: the columns are the image itself.
  bool is_identity() const {
    for (int i = 0; i < 3; ++i)
      if (k[i] != 1 || s[i] != 1 || p[i] != 0 || img[i] != col[i]) return false;
    return true;
  }
};

// The window positions o in [lo, hi) whose tap o * stride + off lands inside [0, size).
inline void valid_range(int64_t off, int64_t stride, int64_t size, int64_t count, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  hi = size - 1 - off < 0 ? 0 : (size - 1 - off) / stride + 1;
  lo = std::min(lo, count);
  hi = std::max(lo, std::min(hi, count));
}

// Visits every (channel, kernel tap, d, h) row segment: f(c, row_of_columns, plane_or_null, lo, hi, off_w)
// where the segment's window positions [lo, hi) read image elements plane[o * s[2] + off_w]. `ld` is
// the column matrix's row stride: the window count, or more when several images' columns sit side by
// side in one matrix (convolution batches small images into one product).
template <typename F>
inline void for_each_segment(int64_t channels, const Geometry& g, int64_t ld, F&& f) {
  int64_t lo_w, hi_w;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t row = ((c * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw;
          const int64_t off_w = kw * g.d[2] - g.p[2];
          valid_range(off_w, g.s[2], g.img[2], g.col[2], lo_w, hi_w);
          for (int64_t od = 0; od < g.col[0]; ++od) {
            const int64_t id = od * g.s[0] + kd * g.d[0] - g.p[0];
            for (int64_t oh = 0; oh < g.col[1]; ++oh) {
              const int64_t ih = oh * g.s[1] + kh * g.d[1] - g.p[1];
              const int64_t seg = row * ld + (od * g.col[1] + oh) * g.col[2];
              const bool inside = id >= 0 && id < g.img[0] && ih >= 0 && ih < g.img[1];
              f(seg, inside ? (c * g.img[0] + id) * g.img[1] * g.img[2] + ih * g.img[2] : int64_t(-1),
                inside ? lo_w : g.col[2], inside ? hi_w : g.col[2], off_w);
            }
          }
        }
}

// im2col of a 2-d image with short rows (at most kShortRow windows across, e.g. 8x8 digits): each
// channel is first copied into a zero-padded plane, so that every column row is a plain strided copy
// without bounds checks. Walking the segments instead costs more than the product that follows (a
// call and a bounds computation per 8-element segment).
constexpr int64_t kShortRow = 32;
// The plane holds p rows (columns) of zeros on each side, so every window must lie within it: true of a
// whole convolution, not of a tile of output rows (ConvolutionKernels.cpp's for_each_tile) whose
// padding was shifted by its start, which may be negative or leave windows below the plane.
inline bool short_rows_2d(const Geometry& g) {
  if (g.img[0] != 1 || g.col[0] != 1 || g.k[0] != 1 || g.col[2] > kShortRow || g.p[1] < 0 || g.p[2] < 0)
    return false;
  const int64_t PH = g.img[1] + 2 * g.p[1], PW = g.img[2] + 2 * g.p[2];
  const bool inside = (g.col[1] - 1) * g.s[1] + (g.k[1] - 1) * g.d[1] < PH &&
                      (g.col[2] - 1) * g.s[2] + (g.k[2] - 1) * g.d[2] < PW;
  return inside && PH * PW <= (int64_t(1) << 16);  // bounded: a huge padding walks
}
// dst[0, n) = src[0, n) for short n: whole 32-byte blocks as fixed-size copies (one vector move each;
// memcpy with a run-time size is a library call, and a plain loop stays scalar at -O2).
template <typename T>
inline void copy_short(T* dst, const T* src, int64_t n) {
  constexpr int64_t kBlock = 32 / sizeof(T);
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) std::memcpy(dst + i, src + i, 32);
  for (; i < n; ++i) dst[i] = src[i];
}

template <typename T>
void im2col_short_rows(const T* img, int64_t channels, const Geometry& g, T* col, int64_t ld) {
  const int64_t H = g.img[1], W = g.img[2], OH = g.col[1], OW = g.col[2];
  const int64_t PH = H + 2 * g.p[1], PW = W + 2 * g.p[2], sw = g.s[2];
  // Bytes, not a vector<T>: one buffer for every dtype (vector<bool> has no data()); all-zero bytes
  // are T(0) for every arithmetic type.
  thread_local std::vector<unsigned char> padded;
  padded.assign(static_cast<size_t>(PH * PW) * sizeof(T), 0);
  T* pad = reinterpret_cast<T*>(padded.data());
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = img + c * H * W;
    for (int64_t h = 0; h < H; ++h) copy_short(pad + (h + g.p[1]) * PW + g.p[2], plane + h * W, W);
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw) {
        T* dst = col + ((c * g.k[1] + kh) * g.k[2] + kw) * ld;
        for (int64_t oh = 0; oh < OH; ++oh) {
          const T* src = pad + (oh * g.s[1] + kh * g.d[1]) * PW + kw * g.d[2];
          if (sw == 1) {
            copy_short(dst + oh * OW, src, OW);
          } else {
            for (int64_t ow = 0; ow < OW; ++ow) dst[oh * OW + ow] = src[ow * sw];
          }
        }
      }
  }
}

// dst[o] = src[o * stride] for o in [0, n): compiled per ISA, with stride 2 (transposed
// convolutions' gradients, strided downsampling) as its own loop, which the compiler turns into
// vector loads and permutes (the generic strided loop stays scalar).
template <typename T>
TL_TARGET_CLONES void strided_copy(T* __restrict dst, const T* __restrict src, int64_t n, int64_t stride) {
  if (stride == 2) {
#pragma omp simd
    for (int64_t o = 0; o < n; ++o) dst[o] = src[2 * o];
  } else {
    for (int64_t o = 0; o < n; ++o) dst[o] = src[o * stride];
  }
}

// Fills `col` (every element of its window columns written; row stride `ld`, default the window
// count) from `img`.
template <typename T>
void im2col(const T* img, int64_t channels, const Geometry& g, T* col, int64_t ld = -1) {
  if (short_rows_2d(g)) {
    im2col_short_rows(img, channels, g, col, ld < 0 ? g.col_numel() : ld);
    return;
  }
  const int64_t W = g.col[2], sw = g.s[2];
  for_each_segment(channels, g, ld < 0 ? g.col_numel() : ld, [&](int64_t seg, int64_t base, int64_t lo, int64_t hi, int64_t off) {
    T* dst = col + seg;
    if (base < 0) {
      std::fill(dst, dst + W, T(0));
      return;
    }
    const T* src = img + base;
    std::fill(dst, dst + lo, T(0));
    if (sw == 1) {
      if (hi > lo) std::memcpy(dst + lo, src + lo + off, sizeof(T) * static_cast<size_t>(hi - lo));
    } else if (hi > lo) {
      strided_copy(dst + lo, src + lo * sw + off, hi - lo, sw);
    }
    std::fill(dst + hi, dst + W, T(0));
  });
}

// Adds every column element into its image position (`img` must be initialized, e.g. zeroed):
// overlapping windows sum, padding taps are dropped. `ld` as for im2col.
template <typename T>
void col2im(const T* col, int64_t channels, const Geometry& g, T* img, int64_t ld = -1) {
  const int64_t sw = g.s[2];
  for_each_segment(channels, g, ld < 0 ? g.col_numel() : ld, [&](int64_t seg, int64_t base, int64_t lo, int64_t hi, int64_t off) {
    if (base < 0) return;
    const T* src = col + seg;
    T* dst = img + base;
    for (int64_t o = lo; o < hi; ++o) dst[o * sw + off] += src[o];
  });
}

}  // namespace tl::native::conv
