// `_fused_rms_norm_backward`: the gradients of y = (x * rstd) * w for x and w in one read of each row of
// grad_out and x. Per row, with gw = g * w: dx = rstd * gw - x * (rstd^3 / N) * sum(gw * x), and
// dw += g * (x * rstd). Pass 1 sums the row (and adds its dw terms) with the row then in L1; pass 2
// writes dx, streamed around the cache when the op's memory overflows it (StreamStore.h). dw is summed
// per fixed block of rows, then the blocks in order: the result does not depend on the thread count.
#include <algorithm>
#include <array>
#include <tuple>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/NormalizationUtils.h"
#include "aten/native/cpu/NormalizationLoops.h"
#include "aten/native/cpu/RmsNormForward.h"
#include "aten/native/cpu/StreamStore.h"
#include "generated/ops/_fused_rms_norm_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

// At most this many row blocks for dw (each an N-element opmath buffer), fewer when N is large.
constexpr int64_t kDwBlocks = 32;
constexpr int64_t kDwBufferBytes = int64_t(8) << 20;

template <typename T, bool DW>
TL_TARGET_CLONES void rms_norm_backward_row(const T* g, const T* x, const opmath_t<T>* w, opmath_t<T> rstd, int64_t n,
                                            T* dx, opmath_t<T>* dw, bool stream) {
  using acc_t = opmath_t<T>;
  using norm::kLanes;
  using norm::ld;
  acc_t a[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (int64_t j = 0; j < kLanes; ++j) {
      const acc_t gv = ld(g, i + j), xv = ld(x, i + j);
      a[j] += gv * w[i + j] * xv;
      if constexpr (DW) dw[i + j] += gv * (xv * rstd);
    }
  }
  acc_t t = 0;
  for (; i < n; ++i) {
    const acc_t gv = ld(g, i), xv = ld(x, i);
    t += gv * w[i] * xv;
    if constexpr (DW) dw[i] += gv * (xv * rstd);
  }
  if (!dx) return;
  for (int64_t k = kLanes / 2; k >= 1; k /= 2)
    for (int64_t j = 0; j < k; ++j) a[j] += a[j + k];
  const acc_t c = -rstd * rstd * rstd * ((a[0] + t) / static_cast<acc_t>(n));
  if (!stream) {
#pragma omp simd
    for (int64_t k = 0; k < n; ++k) dx[k] = static_cast<T>(ld(g, k) * w[k] * rstd + c * ld(x, k));
    return;
  }
  T buf[kStreamPiece];
  for (int64_t k0 = 0; k0 < n; k0 += kStreamPiece) {
    const int64_t len = std::min(kStreamPiece, n - k0);
#pragma omp simd
    for (int64_t k = 0; k < len; ++k) buf[k] = static_cast<T>(ld(g, k0 + k) * w[k0 + k] * rstd + c * ld(x, k0 + k));
    stream_copy(dx + k0, buf, len * static_cast<int64_t>(sizeof(T)));
  }
}

}  // namespace

std::tuple<Tensor, Tensor> fused_rms_norm_backward_kernel(const Tensor& grad_out, const Tensor& input,
                                                          IntArrayRef normalized_shape, const Tensor& rstd,
                                                          const std::optional<Tensor>& weight,
                                                          std::array<bool, 2> output_mask) {
  const char* op = "_fused_rms_norm_backward";
  const int64_t nd = check_rms_norm_inputs(input, normalized_shape, weight);
  TL_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out of shape ", grad_out.sizes(),
           " does not match input of shape ", input.sizes());
  int64_t N = 1, M = 1;
  for (int64_t i = 0; i < input.dim(); ++i) (i < input.dim() - nd ? M : N) *= input.sizes()[i];
  TL_CHECK(rstd.numel() == M, op, ": expected rstd with ", M, " elements, but got ", rstd.numel());
  TL_CHECK_AS(NotImplementedError, is_floating_type(grad_out.dtype()) && is_floating_type(rstd.dtype()), op,
              ": not implemented for '", scalar_type_name(grad_out.dtype()), "' and '",
              scalar_type_name(rstd.dtype()), "'");
  const bool has_w = weight && weight->defined();
  Tensor dx, dw;
  if (output_mask[0]) dx = empty(input.sizes(), input.dtype(), input.device());
  // The weight's gradient over no rows is zeros (as the composite's sum).
  if (output_mask[1] && has_w)
    dw = M > 0 ? empty(weight->sizes(), weight->dtype(), weight->device())
               : zeros(weight->sizes(), weight->dtype(), weight->device());
  if (input.is_meta() || M == 0 || N == 0 || (!dx.defined() && !dw.defined())) return {dx, dw};
  const ScalarType acc = opmath_type(input.dtype());
  const Tensor x = contiguous(input), g = contiguous(to(grad_out, input.dtype()));
  const Tensor r = contiguous(to(rstd, acc));
  // A missing weight reads as ones (one load from L1 instead of a second set of loops).
  Tensor w = has_w ? contiguous(to(*weight, acc)) : empty({N}, acc, input.device());
  if (!has_w) TL_DISPATCH_FLOAT(acc, op, [&] { std::fill_n(w.data_ptr<scalar_t>(), N, scalar_t(1)); });
  const bool want_dw = dw.defined();
  const int64_t cap = std::max<int64_t>(1, kDwBufferBytes / (N * static_cast<int64_t>(element_size(acc))));
  const int64_t want_blocks = std::min({M, kDwBlocks, cap});
  const int64_t rows_per_block = want_dw ? (M + want_blocks - 1) / want_blocks : 1;
  const int64_t nblocks = (M + rows_per_block - 1) / rows_per_block;
  Tensor dw_acc = want_dw ? zeros({nblocks, N}, acc, input.device()) : Tensor();
  TL_DISPATCH_FLOAT(input.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const acc_t* wp = w.data_ptr<acc_t>();
    const acc_t* rp = r.data_ptr<acc_t>();
    scalar_t* dxp = dx.defined() ? dx.data_ptr<scalar_t>() : nullptr;
    acc_t* dwp = want_dw ? dw_acc.data_ptr<acc_t>() : nullptr;
    // dx is streamed when grad_out, x and dx together overflow the cache.
    const bool stream = dxp && stream_output(3 * M * N * static_cast<int64_t>(sizeof(scalar_t)));
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * rows_per_block * N));
    parallel_for(0, nblocks, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = lo; blk < hi; ++blk) {
        const int64_t r0 = blk * rows_per_block, r1 = std::min(M, r0 + rows_per_block);
        for (int64_t row = r0; row < r1; ++row) {
          scalar_t* dxr = dxp ? dxp + row * N : nullptr;
          if (dwp)
            rms_norm_backward_row<scalar_t, true>(gp + row * N, xp + row * N, wp, rp[row], N, dxr, dwp + blk * N, stream);
          else
            rms_norm_backward_row<scalar_t, false>(gp + row * N, xp + row * N, wp, rp[row], N, dxr, nullptr, stream);
        }
      }
      if (stream) stream_fence();
    });
    for (int64_t blk = 1; blk < (dwp ? nblocks : 0); ++blk)
      for (int64_t i = 0; i < N; ++i) dwp[i] += dwp[blk * N + i];
  });
  if (want_dw) copy_stats(dw, dw_acc);  // block 0's row: the first N elements, cast to the weight's dtype
  return {dx, dw};
}

}  // namespace tl::native
