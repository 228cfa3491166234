// convolution and convolution_backward on the CPU: im2col (Im2Col.h) + one matrix product per
// batch element and group (GemmOrLoop.h: the BLAS for float32/float64), parallel over the batch.
// float16/bfloat16 are computed in float32; integers by the plain loop.
//
// One geometry serves both directions. The "image" side is the one the kernel slides over (the
// input of a convolution, the output of a transposed one); the "column" side has one position per
// window. With the weight viewed per group as W_g = [colC/groups, imgC/groups * K]:
//   cols_from_image:  colside = W_g @ im2col(image)       conv forward, transposed conv's grad_input
//   image_from_cols:  image   = col2im(W_g^T @ colside)   transposed forward, conv's grad_input
//   weight_grad:      dW_g    = sum_n colside @ im2col(image)^T   (both directions)
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/Conv1dWinograd.h"
#include "aten/native/cpu/DepthwiseConv.h"
#include "aten/native/cpu/GemmOrLoop.h"
#include "aten/native/cpu/Im2Col.h"
#include "aten/native/cpu/SkinnyGemm.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_backward.h"
#include "generated/ops/flip.h"
#include "generated/ops/reshape.h"
#include "generated/ops/transpose.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

using conv::Geometry;

// The checked problem: batch, channels and spatial sizes of both sides.
struct ConvShape {
  int64_t nsp = 0;  // spatial dims (1 to 3)
  int64_t batch = 0, groups = 1;
  int64_t img_channels = 0, col_channels = 0;
  int64_t bias_channels = 0;  // the weight's output channels (the output has none when the weight is empty)
  DimVector output;  // the convolution's output shape
  Geometry g;
};

DimVector expand_param(IntArrayRef v, int64_t n, const char* name) {
  if (v.size() == 1) return DimVector(static_cast<size_t>(n), v[0]);
  TL_CHECK(static_cast<int64_t>(v.size()) == n, "convolution: expected ", name,
           " to be a single integer value or a list of ", n,
           " values to match the convolution dimensions, but got ", name, "=", v);
  return DimVector(v);
}

std::string join_x(const int64_t* v, int64_t n) {
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

// PyTorch's argument checks, in its order, and the output shape.
ConvShape check_convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                            IntArrayRef stride_, IntArrayRef padding_, IntArrayRef dilation_, bool transposed,
                            IntArrayRef output_padding_, int64_t groups) {
  TL_CHECK(weight.dim() >= 3, "convolution: weight should have at least three dimensions");
  TL_CHECK(weight.dim() <= 5, "convolution: only 1, 2 or 3 spatial dimensions are supported, but got weight of size ",
           weight.sizes());
  const int64_t nsp = weight.dim() - 2;
  const DimVector stride = expand_param(stride_, nsp, "stride");
  const DimVector padding = expand_param(padding_, nsp, "padding");
  const DimVector dilation = expand_param(dilation_, nsp, "dilation");
  const DimVector output_padding =
      transposed ? expand_param(output_padding_, nsp, "output_padding") : DimVector(static_cast<size_t>(nsp), 0);
  for (int64_t v : stride) TL_CHECK(v > 0, "convolution: non-positive stride is not supported");
  for (int64_t v : padding) TL_CHECK(v >= 0, "convolution: negative padding is not supported");
  for (int64_t v : output_padding) TL_CHECK(v >= 0, "convolution: negative output_padding is not supported");
  for (int64_t v : dilation) TL_CHECK(v > 0, "convolution: dilation should be greater than zero, but got ", dilation.ref());
  TL_CHECK(groups > 0, "convolution: non-positive groups is not supported");
  TL_CHECK(input.dim() == weight.dim(), "convolution: Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
           "-dimensional weight ", weight.sizes(), ", but got ", input.dim(), "-dimensional input of size ",
           input.sizes(), " instead");
  TL_CHECK(input.dtype() == weight.dtype(), "convolution: expected scalar type ", scalar_type_name(input.dtype()),
           " but found ", scalar_type_name(weight.dtype()));
  if (bias)
    TL_CHECK(bias->dtype() == input.dtype(), "convolution: Input type (", scalar_type_name(input.dtype()),
             ") and bias type (", scalar_type_name(bias->dtype()), ") should be the same");
  // Inputs with no batch or no channels skip PyTorch's kernels (and their kernel-size check); other
  // empty inputs are refused.
  const bool empty_path = input.dim() >= 2 && (input.sizes()[0] == 0 || input.sizes()[1] == 0);
  if (!empty_path) {
    TL_CHECK(input.numel() > 0, "convolution: Only zero batch or zero channel inputs are supported, but got input shape: ",
             input.sizes());
    for (int64_t i = 2; i < weight.dim(); ++i)
      TL_CHECK(weight.sizes()[i] > 0, "convolution: kernel size should be greater than zero, but got weight of size ",
               weight.sizes());
  }
  const int64_t w0 = weight.sizes()[0], w1 = weight.sizes()[1];
  TL_CHECK(w0 >= groups, "convolution: Given groups=", groups, ", expected weight to be at least ", groups,
           " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  TL_CHECK(w0 % groups == 0, "convolution: Given groups=", groups, ", expected weight to be divisible by ", groups,
           " at dimension 0, but got weight of size [", weight.sizes(), "] instead");
  const int64_t in_ch = input.sizes()[1];
  // PyTorch gives an empty weight (no input channels) an output with no channels.
  const int64_t bias_ch = transposed ? w1 * groups : w0;
  const int64_t out_ch = !transposed && weight.numel() == 0 ? 0 : bias_ch;
  if (!transposed) {
    TL_CHECK(in_ch == w1 * groups, "convolution: Given groups=", groups, ", weight of size ", weight.sizes(),
             ", expected input", input.sizes(), " to have ", w1 * groups, " channels, but got ", in_ch,
             " channels instead");
  } else {
    TL_CHECK(in_ch == w0, "convolution: Given transposed=1, weight of size ", weight.sizes(), ", expected input",
             input.sizes(), " to have ", w0, " channels, but got ", in_ch, " channels instead");
  }
  if (bias)
    TL_CHECK(bias->dim() == 1 && bias->sizes()[0] == bias_ch, "convolution: Given ",
             transposed ? "transposed=1, " : "", "weight of size ", weight.sizes(), ", expected bias to be 1-dimensional with ",
             bias_ch, " elements, but got bias of size ", bias->sizes(), " instead");

  // PyTorch's transposed and dilated CPU kernels compute int64 among the integers, its others all of them.
  if (is_integral_type(input.dtype(), false) && input.dtype() != ScalarType::Int64) {
    bool dilated = false;
    for (int64_t v : dilation) dilated = dilated || v != 1;
    TL_CHECK_AS(NotImplementedError, !transposed && !dilated, "convolution: ", transposed ? "transposed" : "dilated",
                " convolution is not implemented for dtype ", scalar_type_name(input.dtype()));
  }
  ConvShape sh;
  sh.nsp = nsp;
  sh.batch = input.sizes()[0];
  sh.groups = groups;
  sh.bias_channels = bias_ch;
  sh.output = DimVector{sh.batch, out_ch};
  int64_t in_sp[3], k[3], padded[3], dk[3], out_sp[3];
  for (int64_t i = 0; i < nsp; ++i) {
    in_sp[i] = input.sizes()[2 + i];
    k[i] = weight.sizes()[2 + i];
    padded[i] = in_sp[i] + 2 * padding[i];
    dk[i] = dilation[i] * (k[i] - 1) + 1;
  }
  if (!transposed) {
    bool fits = true;
    for (int64_t i = 0; i < nsp; ++i) fits = fits && padded[i] >= dk[i];
    TL_CHECK(fits, "convolution: Calculated padded input size per channel: (", join_x(padded, nsp), "). Kernel size: (",
             join_x(dk, nsp), "). Kernel size can't be greater than actual input size");
    for (int64_t i = 0; i < nsp; ++i) out_sp[i] = (padded[i] - dk[i]) / stride[i] + 1;
  } else {
    for (int64_t i = 0; i < nsp; ++i) {
      TL_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i],
               "convolution: output padding must be smaller than either stride or dilation, but got output_padding=",
               output_padding.ref(), " stride=", stride.ref(), " dilation=", dilation.ref());
      out_sp[i] = (in_sp[i] - 1) * stride[i] - 2 * padding[i] + dk[i] + output_padding[i];
    }
    bool positive = true;
    for (int64_t i = 0; i < nsp; ++i) positive = positive && out_sp[i] > 0;
    TL_CHECK(positive, "convolution: Given input size per channel: (", join_x(in_sp, nsp),
             "). Calculated output size per channel: (", join_x(out_sp, nsp), "). Output size is too small");
  }
  for (int64_t i = 0; i < nsp; ++i) sh.output.push_back(out_sp[i]);
  // The image side is the input of a convolution and the output of a transposed one.
  const int64_t off = 3 - nsp;
  for (int64_t i = 0; i < nsp; ++i) {
    sh.g.img[off + i] = transposed ? out_sp[i] : in_sp[i];
    sh.g.col[off + i] = transposed ? in_sp[i] : out_sp[i];
    sh.g.k[off + i] = k[i];
    sh.g.s[off + i] = stride[i];
    sh.g.p[off + i] = padding[i];
    sh.g.d[off + i] = dilation[i];
  }
  sh.img_channels = transposed ? out_ch : in_ch;
  sh.col_channels = transposed ? in_ch : out_ch;
  return sh;
}

// Window positions are processed in tiles of whole output rows (depth slices for 3-d) so that one
// tile's columns stay in cache between im2col/col2im and the product (measured: the whole
// rows x L buffer of a ResNet layer is 7 MB). A tile is the geometry with fewer positions along
// the tiled dim and its padding shifted by the tile's start.
struct Tile {
  Geometry g;
  int64_t offset, len;  // first column and column count within the full L
};
constexpr int64_t kTileBytes = int64_t(256) << 10;

template <typename F>
void for_each_tile(const Geometry& g, int64_t rows, size_t elem, const F& f) {
  // A 1-d problem (one output row) is tiled along its width: a tile's columns are still contiguous
  // in the output (conv1d 32x64x1024, k 5: the untiled 320 x 1024 columns are 1.3 MB).
  const int t = g.col[0] > 1 ? 0 : g.col[1] > 1 ? 1 : 2;
  const int64_t inner = t == 0 ? g.col[1] * g.col[2] : t == 1 ? g.col[2] : 1;
  const int64_t per_unit = std::max<int64_t>(1, rows * inner * static_cast<int64_t>(elem));
  int64_t units = std::max<int64_t>(1, kTileBytes / per_unit);
  if (t == 2) units = std::max<int64_t>(units, std::min<int64_t>(64, g.col[2]));  // products of some width
  for (int64_t u0 = 0; u0 < g.col[t]; u0 += units) {
    const int64_t u1 = std::min(g.col[t], u0 + units);
    Tile tile{g, u0 * inner, (u1 - u0) * inner};
    tile.g.col[t] = u1 - u0;
    tile.g.p[t] = g.p[t] - u0 * g.s[t];
    f(tile);
  }
}

// Images with few window positions go through the product several at a time, their columns side by
// side in one matrix: on 64 x 288 weights (the digits CNN's second layer, 8x8 images) one product with
// 512 columns costs a third less per image than eight products with 64 (OpenBLAS, one thread). The
// batch is bounded so that its column matrix stays within a core's L2.
constexpr int64_t kBatchColumns = 512;
constexpr int64_t kBatchBytes = int64_t(2) << 20;

int64_t images_per_product(const Geometry& g, int64_t rows, size_t elem, int64_t batch) {
  const int64_t L = g.col_numel(), per_image = rows * L * static_cast<int64_t>(elem);
  if (2 * L > kBatchColumns || per_image > kBatchBytes) return 1;
  return std::max<int64_t>(1, std::min({batch, kBatchColumns / L, kBatchBytes / std::max<int64_t>(1, per_image)}));
}

// The `channels` planes of L elements of images [n0, n0 + m) (each image `stride` elements apart) copied
// side by side into a channels x (m * L) matrix, and back.
template <typename T>
void planes_to_matrix(const T* src, int64_t stride, int64_t m, int64_t channels, int64_t L, T* mat) {
  for (int64_t j = 0; j < m; ++j)
    for (int64_t c = 0; c < channels; ++c)
      std::copy(src + j * stride + c * L, src + j * stride + (c + 1) * L, mat + c * m * L + j * L);
}
template <typename T>
void matrix_to_planes(const T* mat, int64_t m, int64_t channels, int64_t L, T* dst, int64_t stride) {
  for (int64_t j = 0; j < m; ++j)
    for (int64_t c = 0; c < channels; ++c)
      std::copy(mat + c * m * L + j * L, mat + c * m * L + (j + 1) * L, dst + j * stride + c * L);
}

// colside[n] = W_g @ im2col(image[n]) per group, starting from the bias when there is one.
template <typename T>
void cols_from_image(const T* w, const T* image, const T* bias, T* colside, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel(), rows = imgCg * K;
  const bool identity = g.is_identity();
  const int64_t nb = images_per_product(g, rows, sizeof(T), (sh.batch + get_num_threads() - 1) / get_num_threads());
  if (nb > 1) {
    parallel_for(0, sh.batch, nb, [&](int64_t n0, int64_t n1) {
      std::vector<T> col, prod;
      for (int64_t b = n0; b < n1; b += nb) {
        const int64_t m = std::min(nb, n1 - b), ld = m * L;
        col.resize(static_cast<size_t>(rows * ld));
        prod.resize(static_cast<size_t>(colCg * ld));
        for (int64_t gi = 0; gi < G; ++gi) {
          for (int64_t j = 0; j < m; ++j)
            conv::im2col(image + ((b + j) * sh.img_channels + gi * imgCg) * I, imgCg, g, col.data() + j * L, ld);
          if (bias)
            for (int64_t c = 0; c < colCg; ++c)
              std::fill(prod.begin() + c * ld, prod.begin() + (c + 1) * ld, bias[gi * colCg + c]);
          gemm_or_loop<T>(false, false, colCg, ld, rows, w + gi * colCg * rows, rows, col.data(), ld,
                          bias != nullptr, prod.data(), ld);
          matrix_to_planes(prod.data(), m, colCg, L, colside + (b * sh.col_channels + gi * colCg) * L,
                           sh.col_channels * L);
        }
      }
    });
    return;
  }
  parallel_for(0, sh.batch, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> col;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < G; ++gi) {
        const T* src = image + (n * sh.img_channels + gi * imgCg) * I;
        const T* wg = w + gi * colCg * rows;
        T* dst = colside + (n * sh.col_channels + gi * colCg) * L;
        if (bias)
          for (int64_t c = 0; c < colCg; ++c) std::fill(dst + c * L, dst + (c + 1) * L, bias[gi * colCg + c]);
        if (identity) {
          gemm_or_loop<T>(false, false, colCg, L, rows, wg, rows, src, L, bias != nullptr, dst, L);
          continue;
        }
        for_each_tile(g, rows, sizeof(T), [&](const Tile& t) {
          col.resize(static_cast<size_t>(rows * t.len));
          conv::im2col(src, imgCg, t.g, col.data());
          gemm_or_loop<T>(false, false, colCg, t.len, rows, wg, rows, col.data(), t.len, bias != nullptr,
                          dst + t.offset, L);
        });
      }
  });
}

// image[n] = col2im(W_g^T @ colside[n]) per group (the image is overwritten).
template <typename T>
void image_from_cols(const T* w, const T* colside, T* image, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel(), rows = imgCg * K;
  const bool identity = g.is_identity();
  const int64_t nb = images_per_product(g, rows, sizeof(T), (sh.batch + get_num_threads() - 1) / get_num_threads());
  if (nb > 1) {
    parallel_for(0, sh.batch, nb, [&](int64_t n0, int64_t n1) {
      std::vector<T> col, side;
      for (int64_t b = n0; b < n1; b += nb) {
        const int64_t m = std::min(nb, n1 - b), ld = m * L;
        col.resize(static_cast<size_t>(rows * ld));
        side.resize(static_cast<size_t>(colCg * ld));
        for (int64_t gi = 0; gi < G; ++gi) {
          planes_to_matrix(colside + (b * sh.col_channels + gi * colCg) * L, sh.col_channels * L, m, colCg, L,
                           side.data());
          gemm_or_loop<T>(true, false, rows, ld, colCg, w + gi * colCg * rows, rows, side.data(), ld, false,
                          col.data(), ld);
          for (int64_t j = 0; j < m; ++j) {
            T* dst = image + ((b + j) * sh.img_channels + gi * imgCg) * I;
            std::fill(dst, dst + imgCg * I, T(0));
            conv::col2im(col.data() + j * L, imgCg, g, dst, ld);
          }
        }
      }
    });
    return;
  }
  parallel_for(0, sh.batch, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> col;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < G; ++gi) {
        const T* src = colside + (n * sh.col_channels + gi * colCg) * L;
        const T* wg = w + gi * colCg * rows;
        T* dst = image + (n * sh.img_channels + gi * imgCg) * I;
        if (identity) {
          gemm_or_loop<T>(true, false, rows, L, colCg, wg, rows, src, L, false, dst, L);
          continue;
        }
        std::fill(dst, dst + imgCg * I, T(0));
        for_each_tile(g, rows, sizeof(T), [&](const Tile& t) {
          col.resize(static_cast<size_t>(rows * t.len));
          gemm_or_loop<T>(true, false, rows, t.len, colCg, wg, rows, src + t.offset, L, false, col.data(), t.len);
          conv::col2im(col.data(), imgCg, t.g, dst);
        });
      }
  });
}

// The weight's taps laid out [group][k][out/groups][in/groups]: tap k of a group is a plain matrix.
template <typename T>
std::vector<T> weight_by_tap(const T* w, int64_t G, int64_t colCg, int64_t imgCg, int64_t K) {
  std::vector<T> wr(static_cast<size_t>(G * K * colCg * imgCg));
  for (int64_t g = 0; g < G; ++g)
    for (int64_t co = 0; co < colCg; ++co)
      for (int64_t ci = 0; ci < imgCg; ++ci)
        for (int64_t k = 0; k < K; ++k)
          wr[static_cast<size_t>(((g * K + k) * colCg + co) * imgCg + ci)] = w[((g * colCg + co) * imgCg + ci) * K + k];
  return wr;
}

// The 1-d shifted products' piece shape: the pieces of kPieceRows rows and ~2^19 multiply-adds suit
// OpenBLAS's SkylakeX build, whose small-matrix kernels read such pieces in place (SkinnyGemm.h). On CPUs
// without AVX-512 OpenBLAS runs its Haswell build, which has no such kernels and packs both operands of
// every piece: there whole products (up to 128 rows, ~2^22 multiply-adds) are faster (conv1d 64 -> 128, k 5,
// 1024 columns, one thread on a Zen 3 under load, 61 alternating rounds: 64 x 128 pieces 1.59-1.94 ms per
// image, 128 x 1024 1.39-1.67 ms; the input gradient's shapes were even).
struct PieceShape {
  int64_t rows, columns;
};
PieceShape shifted_piece(int64_t rows, int64_t depth) {
  static const bool small_kernels = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return true;
#endif
  }();
  if (small_kernels) {
    const int64_t mc = std::min(rows, kPieceRows);
    return {mc, piece_columns(mc, depth)};
  }
  const int64_t mc = std::min<int64_t>(rows, 128);
  return {mc, std::max<int64_t>(16, (int64_t(1) << 22) / std::max<int64_t>(1, mc * depth) / 16 * 16)};
}

// A stride-1 1-d convolution without im2col: with the input zero-padded once per image, out = bias +
// sum over taps k of W_k @ x shifted by k * d - p (K products of depth in_channels/groups).
template <typename T>
void conv1d_shifted(const T* w, const T* x, const T* bias, T* out, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t K = g.k[2], d = g.d[2], p = g.p[2], Lin = g.img[2], Lout = g.col[2];
  const int64_t PR = std::max<int64_t>(0, Lout - 1 + (K - 1) * d - p - Lin + 1);
  const int64_t Wp = p + Lin + PR;
  const std::vector<T> wr = weight_by_tap(w, G, colCg, imgCg, K);
  // The products in pieces of at most kPieceRows output channels and ~2^19 multiply-adds, the taps
  // innermost so that a piece of the output stays in L1 while the K products add into it: OpenBLAS
  // runs pieces of that size without packing its operands (SkinnyGemm.h; conv1d 32x64x1024 -> 128,
  // k 5: 64 x 128 x 64 pieces ~96 GFLOP/s, 128 x 512 x 64 products ~83, one thread).
  const PieceShape ps = shifted_piece(colCg, imgCg);
  const int64_t mc = ps.rows, chunk = ps.columns;
  parallel_for(0, sh.batch, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> xp(static_cast<size_t>(imgCg * Wp), T(0));
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* src = x + (n * sh.img_channels + gr * imgCg) * Lin;
        for (int64_t c = 0; c < imgCg; ++c) std::copy(src + c * Lin, src + (c + 1) * Lin, xp.data() + c * Wp + p);
        T* dst = out + (n * sh.col_channels + gr * colCg) * Lout;
        if (bias)
          for (int64_t c = 0; c < colCg; ++c) std::fill(dst + c * Lout, dst + (c + 1) * Lout, bias[gr * colCg + c]);
        for (int64_t j0 = 0; j0 < Lout; j0 += chunk) {
          const int64_t len = std::min(chunk, Lout - j0);
          for (int64_t i0 = 0; i0 < colCg; i0 += mc)
            for (int64_t k = 0; k < K; ++k)
              gemm_or_loop<T>(false, false, std::min(mc, colCg - i0), len, imgCg,
                              wr.data() + ((gr * K + k) * colCg + i0) * imgCg, imgCg, xp.data() + k * d + j0, Wp,
                              k > 0 || bias != nullptr, dst + i0 * Lout + j0, Lout);
        }
      }
  });
}

// The Winograd path (Conv1dWinograd.h) for float32 stride-1 undilated conv1d forwards with k 3 or 5 and
// enough channels: 0.4 (k 5) / 0.5 (k 3) of the shifted products' multiplications.
Conv1dProblem conv1d_problem(const ConvShape& sh) {
  const Geometry& g = sh.g;
  return {sh.batch, sh.groups, sh.img_channels, sh.col_channels, g.img[2], g.col[2], g.k[2], g.p[2]};
}
template <typename T>
bool conv1d_winograd_if_ok(const T* w, const T* x, const T* bias, T* out, const ConvShape& sh) {
  if constexpr (std::is_same_v<T, float>) {
    if (sh.g.d[2] == 1 && conv1d_winograd_ok(conv1d_problem(sh))) {
      conv1d_winograd(w, x, bias, out, conv1d_problem(sh));
      return true;
    }
  }
  return false;
}

// A stride-1 1-d convolution's input gradient without im2col or col2im: with grad_output zero-padded
// once per image, gi = sum over taps k of W_k^T @ go shifted by p - k * d, K products of depth
// out_channels/groups accumulating into gi (W_k: the weight's tap k, laid out (out, in) once).
template <typename T>
void input_grad_1d_shifted(const T* w, const T* go, T* gi, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t K = g.k[2], d = g.d[2], p = g.p[2], Lin = g.img[2], Lout = g.col[2];
  const int64_t PL = std::max<int64_t>(0, (K - 1) * d - p), PR = std::max<int64_t>(0, p + Lin - Lout);
  const int64_t Wp = PL + Lout + PR;
  // Tap k of a group transposed, (in/groups, out/groups), so that the pieces are plain products.
  const std::vector<T> wr = weight_by_tap(w, G, colCg, imgCg, K);
  std::vector<T> wt(wr.size());
  for (int64_t gk = 0; gk < G * K; ++gk)
    for (int64_t co = 0; co < colCg; ++co)
      for (int64_t ci = 0; ci < imgCg; ++ci)
        wt[static_cast<size_t>((gk * imgCg + ci) * colCg + co)] = wr[static_cast<size_t>((gk * colCg + co) * imgCg + ci)];
  // Pieces as in conv1d_shifted (64 x 64 x 128 for conv1d 64 -> 128: ~103 GFLOP/s against ~87 for
  // the 64 x 1024 x 128 products before).
  const PieceShape ps = shifted_piece(imgCg, colCg);
  const int64_t mc = ps.rows, chunk = ps.columns;
  parallel_for(0, sh.batch, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> gp(static_cast<size_t>(colCg * Wp), T(0));
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* src = go + (n * sh.col_channels + gr * colCg) * Lout;
        for (int64_t c = 0; c < colCg; ++c) std::copy(src + c * Lout, src + (c + 1) * Lout, gp.data() + c * Wp + PL);
        T* dst = gi + (n * sh.img_channels + gr * imgCg) * Lin;
        for (int64_t j0 = 0; j0 < Lin; j0 += chunk) {
          const int64_t len = std::min(chunk, Lin - j0);
          for (int64_t i0 = 0; i0 < imgCg; i0 += mc)
            for (int64_t k = 0; k < K; ++k)
              gemm_or_loop<T>(false, false, std::min(mc, imgCg - i0), len, colCg,
                              wt.data() + ((gr * K + k) * imgCg + i0) * colCg, colCg, gp.data() + PL + p - k * d + j0,
                              Wp, k > 0, dst + i0 * Lin + j0, Lin);
        }
      }
  });
}

// A stride-1 2-d convolution without im2col, for inputs with many channels per group (ResNet's 64 -> 64
// 3x3 layer). Each image's planes are zero-padded once into rows of width PW = W + 2 pw; the output is
// computed in that row width too (positions q = oh * PW + ow, the last PW - OW of each row being junk),
// where tap (kh, kw) reads the padded planes at q + kh * dh * PW + kw * dw: a plain strided matrix, so
// out = sum over taps of W_tap @ shifted planes, products of depth in_channels/groups, in pieces as in
// conv1d_shifted. The valid columns are copied out of each piece (adding the bias there).
bool conv2d_shifted_ok(const ConvShape& sh) {
  const Geometry& g = sh.g;
  if (sh.nsp != 2 || g.s[1] != 1 || g.s[2] != 1) return false;
  const int64_t imgCg = sh.img_channels / sh.groups, PW = g.img[2] + 2 * g.p[2];
  // Deep enough products, and at most 1/8 of the computed columns junk.
  return imgCg >= 32 && g.col[2] * 8 >= PW * 7;
}

template <typename T>
void conv2d_shifted(const T* w, const T* x, const T* bias, T* out, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t KH = g.k[1], KW = g.k[2], K = KH * KW, H = g.img[1], W = g.img[2];
  const int64_t OH = g.col[1], OW = g.col[2], PW = W + 2 * g.p[2], PH = OH + (KH - 1) * g.d[1];
  // A plane holds PH padded rows (the last taps of the last output row read up to row PH - 1) and a
  // tail that the junk columns of the last row may read past it.
  const int64_t plane = PH * PW + (KW - 1) * g.d[2], Q = OH * PW;
  const std::vector<T> wr = weight_by_tap(w, G, colCg, imgCg, K);
  const int64_t mc = std::min(colCg, kPieceRows), chunk = piece_columns(mc, imgCg);
  parallel_for(0, sh.batch, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> xp(static_cast<size_t>(imgCg * plane), T(0)), piece(static_cast<size_t>(mc * chunk));
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* src = x + (n * sh.img_channels + gr * imgCg) * H * W;
        // Rows of the image that fall inside the padded plane (the plane's top p rows stay zero).
        for (int64_t c = 0; c < imgCg; ++c)
          for (int64_t h = 0; h < H; ++h) {
            const int64_t ph = h + g.p[1];
            if (ph >= PH) break;
            std::copy(src + (c * H + h) * W, src + (c * H + h + 1) * W, xp.data() + c * plane + ph * PW + g.p[2]);
          }
        T* dst = out + (n * sh.col_channels + gr * colCg) * OH * OW;
        for (int64_t j0 = 0; j0 < Q; j0 += chunk) {
          const int64_t len = std::min(chunk, Q - j0);
          for (int64_t i0 = 0; i0 < colCg; i0 += mc) {
            const int64_t rows = std::min(mc, colCg - i0);
            for (int64_t k = 0; k < K; ++k) {
              const int64_t shift = (k / KW) * g.d[1] * PW + (k % KW) * g.d[2];
              gemm_or_loop<T>(false, false, rows, len, imgCg, wr.data() + ((gr * K + k) * colCg + i0) * imgCg, imgCg,
                              xp.data() + shift + j0, plane, k > 0, piece.data(), chunk);
            }
            // The valid columns of the output rows this piece covers.
            for (int64_t oh = j0 / PW; oh * PW < j0 + len; ++oh) {
              const int64_t a = std::max(j0, oh * PW), b = std::min(j0 + len, oh * PW + OW);
              if (b <= a) continue;
              for (int64_t r = 0; r < rows; ++r) {
                const T* ps = piece.data() + r * chunk + (a - j0);
                T* pd = dst + (i0 + r) * OH * OW + oh * OW + (a - oh * PW);
                if (bias) {
                  const T bv = bias[gr * colCg + i0 + r];
                  for (int64_t q = 0; q < b - a; ++q) pd[q] = ps[q] + bv;
                } else {
                  std::copy(ps, ps + (b - a), pd);
                }
              }
            }
          }
        }
      }
  });
}

// a + b wrapping as the integer type's arithmetic (modulo 2^bits, no signed overflow); plain + for floats.
template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// dW_g = sum over the batch of colside[n] @ im2col(image[n])^T. Each thread sums its share of the
// batch into its own buffer (the first into dW itself); the buffers are added at the end.
template <typename T>
void weight_grad(const T* colside, const T* image, T* dw, const ConvShape& sh) {
  const Geometry& g = sh.g;
  const int64_t G = sh.groups, imgCg = sh.img_channels / G, colCg = sh.col_channels / G;
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel(), rows = imgCg * K;
  const int64_t wsize = sh.col_channels * rows;
  if (sh.batch == 0) {
    std::fill(dw, dw + wsize, T(0));
    return;
  }
  const bool identity = g.is_identity();
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), sh.batch));
  const int64_t per_product = images_per_product(g, rows, sizeof(T), (sh.batch + chunks - 1) / chunks);
  std::vector<std::vector<T>> partial(static_cast<size_t>(chunks - 1));
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<T> col;
    for (int64_t ch = c0; ch < c1; ++ch) {
      T* acc = dw;
      if (ch > 0) {
        partial[ch - 1].resize(static_cast<size_t>(wsize));
        acc = partial[ch - 1].data();
      }
      const int64_t nb = sh.batch * ch / chunks, ne = sh.batch * (ch + 1) / chunks;
      if (per_product > 1) {
        std::vector<T> side;
        for (int64_t b = nb; b < ne; b += per_product) {
          const int64_t m = std::min(per_product, ne - b), ld = m * L;
          col.resize(static_cast<size_t>(rows * ld));
          side.resize(static_cast<size_t>(colCg * ld));
          for (int64_t gi = 0; gi < G; ++gi) {
            planes_to_matrix(colside + (b * sh.col_channels + gi * colCg) * L, sh.col_channels * L, m, colCg, L,
                             side.data());
            for (int64_t j = 0; j < m; ++j)
              conv::im2col(image + ((b + j) * sh.img_channels + gi * imgCg) * I, imgCg, g, col.data() + j * L, ld);
            gemm_or_loop<T>(false, true, colCg, rows, ld, side.data(), ld, col.data(), ld, b != nb,
                            acc + gi * colCg * rows, rows);
          }
        }
        continue;
      }
      for (int64_t n = nb; n < ne; ++n)
        for (int64_t gi = 0; gi < G; ++gi) {
          const T* img = image + (n * sh.img_channels + gi * imgCg) * I;
          const T* cs = colside + (n * sh.col_channels + gi * colCg) * L;
          T* dwg = acc + gi * colCg * rows;
          if (identity) {
            gemm_or_loop<T>(false, true, colCg, rows, L, cs, L, img, L, n != nb, dwg, rows);
            continue;
          }
          bool first = n == nb;
          for_each_tile(g, rows, sizeof(T), [&](const Tile& t) {
            col.resize(static_cast<size_t>(rows * t.len));
            conv::im2col(img, imgCg, t.g, col.data());
            gemm_or_loop<T>(false, true, colCg, rows, t.len, cs + t.offset, L, col.data(), t.len, !first, dwg, rows);
            first = false;
          });
        }
    }
  });
  for (const auto& p : partial)
    for (int64_t i = 0; i < wsize; ++i) dw[i] = wrapping_add(dw[i], p[static_cast<size_t>(i)]);
}

// Sum of grad_output over the batch and spatial dims, per channel (accumulated in double, or in
// uint64 for integers: wrapping as the type's arithmetic, without signed overflow).
// One plane's sum in double, compiled per ISA: the widened sum vectorizes (the baseline build's
// scalar loop took 2 ms of a 32x64x32x32 bias gradient, more than PyTorch's whole bias pass).
template <typename T>
TL_TARGET_CLONES double plane_sum(const T* p, int64_t n) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(p[i]);
  return acc;
}

template <typename T>
void bias_grad(const T* go, T* db, int64_t batch, int64_t channels, int64_t spatial) {
  using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  parallel_for(0, channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, batch * spatial)),
               [&](int64_t c0, int64_t c1) {
                 for (int64_t c = c0; c < c1; ++c) {
                   acc_t acc = 0;
                   for (int64_t n = 0; n < batch; ++n) {
                     const T* p = go + (n * channels + c) * spatial;
                     if constexpr (std::is_floating_point_v<T>) {
                       acc += plane_sum(p, spatial);
                     } else {
                       for (int64_t i = 0; i < spatial; ++i) acc += static_cast<acc_t>(p[i]);
                     }
                   }
                   db[c] = static_cast<T>(acc);
                 }
               });
}

// A depthwise convolution (groups == input channels, 1-d or 2-d, floating) runs the direct kernel
// (DepthwiseConv.cpp): im2col + GEMM would make one K-deep product per channel.
bool depthwise_ok(const ConvShape& sh, bool transposed, ScalarType st) {
  return !transposed && sh.nsp <= 2 && sh.groups == sh.img_channels && sh.col_channels > 0 &&
         (st == ScalarType::Float32 || st == ScalarType::Float64);
}

depthwise::Problem depthwise_problem(const ConvShape& sh) {
  const Geometry& g = sh.g;  // 1-d problems have size-1 leading dims
  depthwise::Problem p;
  p.batch = sh.batch;
  p.channels = sh.img_channels;
  p.mult = sh.col_channels / sh.groups;
  p.H = g.img[1], p.W = g.img[2], p.OH = g.col[1], p.OW = g.col[2];
  p.KH = g.k[1], p.KW = g.k[2], p.sh = g.s[1], p.sw = g.s[2];
  p.ph = g.p[1], p.pw = g.p[2], p.dh = g.d[1], p.dw = g.d[2];
  return p;
}

// The gradients output_mask asked for (the defined ones), of a depthwise_ok problem.
template <typename T>
void depthwise_backward(const Tensor& go, const Tensor& x, const Tensor& w, Tensor& gi, Tensor& gw, Tensor& gb,
                        const ConvShape& sh) {
  auto ptr = [](Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; };
  depthwise::backward<T>(go.data_ptr<T>(), x.data_ptr<T>(), w.data_ptr<T>(), ptr(gi), ptr(gw), ptr(gb),
                         depthwise_problem(sh));
}

// float32, float64 and the integers; float16/bfloat16 are widened by the callers.
#define TL_DISPATCH_CONV(dtype, opname, ...)                                                           \
  TL_DISPATCH_SWITCH(dtype, opname, TL_DISPATCH_CASE(Float32, float, __VA_ARGS__)                      \
                                        TL_DISPATCH_CASE(Float64, double, __VA_ARGS__)                 \
                                            TL_CASES_INTEGRAL(__VA_ARGS__))

Tensor widen(const Tensor& t) { return t.defined() ? _to_copy(t, ScalarType::Float32) : t; }
Tensor narrow_to(const Tensor& t, ScalarType st) { return t.defined() ? _to_copy(t, st) : t; }

}  // namespace

Tensor convolution_kernel(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                          IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                          IntArrayRef output_padding, int64_t groups) {
  const ConvShape sh =
      check_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  const ScalarType st = input.dtype();
  // PyTorch's path for inputs with no batch reads the weight's first element.
  TL_CHECK_AS(IndexError, input.sizes()[0] != 0 || input.sizes()[1] == 0 || weight.numel() > 0,
              "convolution: select(): index 0 out of range for tensor of size [0] at dimension 0");
  if (input.is_meta() || weight.is_meta()) return empty_tensor(sh.output, st, input.device());
  if (is_reduced_float(st)) {
    std::optional<Tensor> b32;
    if (bias) b32 = widen(*bias);
    return narrow_to(convolution_kernel(widen(input), widen(weight), b32, stride, padding, dilation, transposed,
                                        output_padding, groups),
                     st);
  }
  Tensor out = empty_tensor(sh.output, st, input.device());
  if (out.numel() == 0) return out;
  const Tensor x = contiguous(input), w = contiguous(weight);
  const Tensor b = bias ? contiguous(*bias) : Tensor();
  TL_DISPATCH_CONV(st, "convolution", [&] {
    const scalar_t* bp = b.defined() ? b.data_ptr<scalar_t>() : nullptr;
    if constexpr (std::is_floating_point_v<scalar_t>) {
      if (depthwise_ok(sh, transposed, st)) {
        depthwise::forward<scalar_t>(x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), bp, out.data_ptr<scalar_t>(),
                                     depthwise_problem(sh));
        return;
      }
    }
    if (!transposed && sh.nsp == 1 && sh.g.s[2] == 1 &&
        conv1d_winograd_if_ok(w.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bp, out.data_ptr<scalar_t>(), sh)) {
    } else if (!transposed && sh.nsp == 1 && sh.g.s[2] == 1) {
      conv1d_shifted<scalar_t>(w.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bp, out.data_ptr<scalar_t>(), sh);
    } else if (!transposed && conv2d_shifted_ok(sh)) {
      conv2d_shifted<scalar_t>(w.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bp, out.data_ptr<scalar_t>(), sh);
    } else if (!transposed) {
      cols_from_image<scalar_t>(w.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bp, out.data_ptr<scalar_t>(), sh);
    } else {
      image_from_cols<scalar_t>(w.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), sh);
      if (bp) {
        const int64_t I = sh.g.img_numel();
        scalar_t* o = out.data_ptr<scalar_t>();
        for (int64_t n = 0; n < sh.batch; ++n)
          for (int64_t c = 0; c < sh.img_channels; ++c) {
            scalar_t* p = o + (n * sh.img_channels + c) * I;
            for (int64_t i = 0; i < I; ++i) p[i] += bp[c];
          }
      }
    }
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_kernel(const Tensor& grad_output, const Tensor& input,
                                                               const Tensor& weight, OptionalIntArrayRef bias_sizes,
                                                               IntArrayRef stride, IntArrayRef padding,
                                                               IntArrayRef dilation, bool transposed,
                                                               IntArrayRef output_padding, int64_t groups,
                                                               std::array<bool, 3> output_mask) {
  (void)bias_sizes;  // the bias gradient is always (out_channels,), as PyTorch's
  const ConvShape sh =
      check_convolution(input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  TL_CHECK(grad_output.numel() == 0 || grad_output.sizes() == IntArrayRef(sh.output), "convolution_backward: expected grad_output of size ",
           IntArrayRef(sh.output), ", but got ", grad_output.sizes());
  TL_CHECK(grad_output.dtype() == input.dtype(), "convolution_backward: expected grad_output of dtype ",
           scalar_type_name(input.dtype()), ", but got ", scalar_type_name(grad_output.dtype()));
  const ScalarType st = input.dtype();
  const int64_t out_ch = sh.bias_channels;
  Tensor gi, gw, gb;
  // Empty problems have all-zero gradients, computed for any dtype (PyTorch skips its kernels there).
  if (grad_output.numel() == 0 || input.numel() == 0) {
    if (output_mask[0]) gi = zeros(input.sizes(), st, input.device());
    if (output_mask[1]) gw = zeros(weight.sizes(), st, input.device());
    if (output_mask[2]) gb = zeros({out_ch}, st, input.device());
    return {gi, gw, gb};
  }
  TL_CHECK_AS(NotImplementedError, is_floating_type(st), "convolution_backward: not implemented for dtype ",
              scalar_type_name(st));
  if (input.is_meta() || weight.is_meta() || grad_output.is_meta()) {
    if (output_mask[0]) gi = empty_tensor(input.sizes(), st, input.device());
    if (output_mask[1]) gw = empty_tensor(weight.sizes(), st, input.device());
    if (output_mask[2]) gb = empty_tensor({out_ch}, st, input.device());
    return {gi, gw, gb};
  }
  if (is_reduced_float(st)) {
    auto [a, b, c] = convolution_backward_kernel(widen(grad_output), widen(input), widen(weight), bias_sizes, stride,
                                                 padding, dilation, transposed, output_padding, groups, output_mask);
    return {narrow_to(a, st), narrow_to(b, st), narrow_to(c, st)};
  }
  const Tensor go = contiguous(grad_output), x = contiguous(input), w = contiguous(weight);
  if (output_mask[0]) gi = empty_tensor(input.sizes(), st, input.device());
  if (output_mask[1]) gw = empty_tensor(weight.sizes(), st, input.device());
  if (output_mask[2]) gb = empty_tensor({out_ch}, st, input.device());
  if (depthwise_ok(sh, transposed, st)) {
    if (st == ScalarType::Float32) depthwise_backward<float>(go, x, w, gi, gw, gb, sh);
    else depthwise_backward<double>(go, x, w, gi, gw, gb, sh);
    return {gi, gw, gb};
  }
  // With stride 1, a convolution's input gradient is itself a convolution of grad_output with the
  // weight flipped and its channel dims swapped (padding d * (k - 1) - p): one product of depth
  // out_channels * K per position instead of a depth-out_channels product and a col2im pass
  // (measured ~1.5x faster on a ResNet 3x3 layer).
  // Only where its im2col (out_channels * K rows) is not much longer than the col2im path's
  // (in_channels * K rows): conv2d 3 -> 64 channels spent 9 ms im2col-ing 576 rows per image where
  // the transposed product and col2im of 27 rows take 3 ms (PyTorch: 7.4 ms); ResNet's 64 -> 64 and
  // conv1d's 64 -> 128 are faster as the convolution (measured).
  bool full_conv_ok = !transposed && output_mask[0] && sh.col_channels <= 2 * sh.img_channels;
  DimVector full_pad;
  const DimVector dil = expand_param(dilation, sh.nsp, "dilation");
  const DimVector pad = expand_param(padding, sh.nsp, "padding");
  for (int64_t i = 0; i < sh.nsp && full_conv_ok; ++i) {
    full_conv_ok = sh.g.s[3 - sh.nsp + i] == 1 && dil[i] * (weight.sizes()[2 + i] - 1) - pad[i] >= 0;
    full_pad.push_back(dil[i] * (weight.sizes()[2 + i] - 1) - pad[i]);
  }
  Tensor flipped;
  if (full_conv_ok) {
    // (out, in/g, k...) -> (g, out/g, in/g, k...) -> (in, out/g, k...), spatially reversed.
    DimVector grouped{groups, weight.sizes()[0] / groups, weight.sizes()[1]};
    DimVector flat{weight.sizes()[1] * groups, weight.sizes()[0] / groups};
    DimVector spatial_dims;
    for (int64_t i = 2; i < weight.dim(); ++i) {
      grouped.push_back(weight.sizes()[i]);
      flat.push_back(weight.sizes()[i]);
      spatial_dims.push_back(i + 1);
    }
    flipped = contiguous(reshape(flip(transpose(reshape(w, grouped), 1, 2), spatial_dims), flat));
  }
  TL_DISPATCH_CONV(st, "convolution_backward", [&] {
    const scalar_t* gop = go.data_ptr<scalar_t>();
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = w.data_ptr<scalar_t>();
    // A convolution's column side is its output; a transposed one's is its input.
    const scalar_t* colside = transposed ? xp : gop;
    const scalar_t* image = transposed ? gop : xp;
    if (gi.defined() && gi.numel() > 0) {
      if (!transposed && sh.nsp == 1 && sh.g.s[2] == 1) {
        input_grad_1d_shifted<scalar_t>(wp, gop, gi.data_ptr<scalar_t>(), sh);
      } else if (!transposed && full_conv_ok) {
        const ConvShape fs = check_convolution(go, flipped, std::nullopt, DimVector(sh.nsp, 1), full_pad, dilation,
                                               false, {0}, groups);
        if (conv2d_shifted_ok(fs))
          conv2d_shifted<scalar_t>(flipped.data_ptr<scalar_t>(), gop, nullptr, gi.data_ptr<scalar_t>(), fs);
        else
          cols_from_image<scalar_t>(flipped.data_ptr<scalar_t>(), gop, nullptr, gi.data_ptr<scalar_t>(), fs);
      } else if (!transposed) {
        image_from_cols<scalar_t>(wp, gop, gi.data_ptr<scalar_t>(), sh);
      } else {
        cols_from_image<scalar_t>(wp, gop, nullptr, gi.data_ptr<scalar_t>(), sh);
      }
    }
    if (gw.defined() && gw.numel() > 0) weight_grad<scalar_t>(colside, image, gw.data_ptr<scalar_t>(), sh);
    if (gb.defined() && go.numel() == 0) {
      std::fill(gb.data_ptr<scalar_t>(), gb.data_ptr<scalar_t>() + gb.numel(), scalar_t(0));
    } else if (gb.defined() && gb.numel() > 0) {
      int64_t spatial = 1;
      for (size_t i = 2; i < sh.output.size(); ++i) spatial *= sh.output[i];
      bias_grad<scalar_t>(gop, gb.data_ptr<scalar_t>(), sh.batch, out_ch, spatial);
    }
  });
  return {gi, gw, gb};
}

}  // namespace tl::native
