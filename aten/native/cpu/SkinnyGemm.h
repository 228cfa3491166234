// Piece sizes for products cut into pieces of about 2^19 multiply-adds: the convolutions' shifted
// products (ConvolutionKernels.cpp) cut their own loops to these sizes.
//
// Why: OpenBLAS packs both operands of every call, and a product with few rows or columns uses each
// element of the other operand only a few times, so the packing can cost as much as the arithmetic.
// For pieces of up to ~2^19 multiply-adds OpenBLAS's SkylakeX build runs its small-matrix kernels,
// which read the operands in place (measured on the build machine's Zen 4, one thread: a 16-row LSTM
// step as eight 16 x 128 x 256 pieces took 78-86 us against 137 us as one call). Pieces much smaller
// than that fell back to the packing path again (16 x 32 x 256: 181 us), so the cut aims at the size,
// not at "as small as possible". OpenBLAS's AVX2 build (Haswell/Zen kernels) has no small-matrix
// kernels and packs both operands of every piece. The LSTM's step products moved
// to PanelGemm.h (the weight packed once per layer call), which does not depend on the BLAS build.
#pragma once
#include <algorithm>
#include <cstdint>

namespace tl::native {

constexpr int64_t kSkinnyPieceMacs = int64_t(1) << 19;

// Columns per piece for a product of `rows` x `depth` operands: a multiple of 16 (a SIMD width's
// worth), at least 16, with rows * columns * depth about kSkinnyPieceMacs.
inline int64_t piece_columns(int64_t rows, int64_t depth) {
  return std::max<int64_t>(16, kSkinnyPieceMacs / std::max<int64_t>(1, rows * depth) / 16 * 16);
}
// Rows per piece where the caller cuts the rows too (convolution's shifted products: 128 output
// channels as two 64-row pieces; 64 x 128 x 64 pieces ran at ~96 GFLOP/s where 128 x 512 x 64 ran at
// ~83, and 64 x 64 x 128 at ~103 against ~87 for 64 x 1024 x 128).
constexpr int64_t kPieceRows = 64;

}  // namespace tl::native
