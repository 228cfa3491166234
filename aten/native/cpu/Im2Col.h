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
// where the segment's window positions [lo, hi) read image elements plane[o * s[2] + off_w].
template <typename F>
inline void for_each_segment(int64_t channels, const Geometry& g, F&& f) {
  const int64_t L = g.col_numel();
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
              const int64_t seg = row * L + (od * g.col[1] + oh) * g.col[2];
              const bool inside = id >= 0 && id < g.img[0] && ih >= 0 && ih < g.img[1];
              f(seg, inside ? (c * g.img[0] + id) * g.img[1] * g.img[2] + ih * g.img[2] : int64_t(-1),
                inside ? lo_w : g.col[2], inside ? hi_w : g.col[2], off_w);
            }
          }
        }
}

// Fills `col` (every element written) from `img`.
template <typename T>
void im2col(const T* img, int64_t channels, const Geometry& g, T* col) {
  const int64_t W = g.col[2], sw = g.s[2];
  for_each_segment(channels, g, [&](int64_t seg, int64_t base, int64_t lo, int64_t hi, int64_t off) {
    T* dst = col + seg;
    if (base < 0) {
      std::fill(dst, dst + W, T(0));
      return;
    }
    const T* src = img + base;
    std::fill(dst, dst + lo, T(0));
    if (sw == 1) {
      if (hi > lo) std::memcpy(dst + lo, src + lo + off, sizeof(T) * static_cast<size_t>(hi - lo));
    } else {
      for (int64_t o = lo; o < hi; ++o) dst[o] = src[o * sw + off];
    }
    std::fill(dst + hi, dst + W, T(0));
  });
}

// Adds every column element into its image position (`img` must be initialized, e.g. zeroed):
// overlapping windows sum, padding taps are dropped.
template <typename T>
void col2im(const T* col, int64_t channels, const Geometry& g, T* img) {
  const int64_t sw = g.s[2];
  for_each_segment(channels, g, [&](int64_t seg, int64_t base, int64_t lo, int64_t hi, int64_t off) {
    if (base < 0) return;
    const T* src = col + seg;
    T* dst = img + base;
    for (int64_t o = lo; o < hi; ++o) dst[o * sw + off] += src[o];
  });
}

}  // namespace tl::native::conv
