// ctc_loss: the reductions and the unbatched form around _ctc_loss (aten/native/cpu/CtcLossKernels.cpp).
#include <limits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/CtcLoss.h"
#include "aten/native/Losses.h"
#include "generated/ops/_ctc_loss.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/ctc_loss.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/eq.h"
#include "generated/ops/mean.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {
Tensor ctc_loss_composite(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                          IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  const bool batched = log_probs.dim() == 3;
  // (T, C) is one batch element; its targets (S) read as concatenated.
  const Tensor lp = batched ? log_probs : tl::unsqueeze(log_probs, 1);
  Tensor loss = std::get<0>(tl::_ctc_loss(lp, tl::to(targets, ScalarType::Int64), input_lengths, target_lengths,
                                          blank, zero_infinity));
  if (zero_infinity)
    loss = tl::where(tl::eq(loss, std::numeric_limits<double>::infinity()),
                     tl::zeros({}, loss.scalar_type(), loss.device()), loss);
  if (reduction == kReductionMean) {
    // each loss per target label (an empty target counts as one), then the average
    if (loss.is_meta()) return tl::mean(loss);
    Tensor lengths = tl::empty({static_cast<int64_t>(target_lengths.size())}, ScalarType::Float64, loss.device());
    double* data = lengths.data_ptr<double>();
    for (size_t i = 0; i < target_lengths.size(); ++i) data[i] = static_cast<double>(target_lengths[i]);
    lengths = tl::to(lengths, loss.scalar_type());
    return tl::mean(tl::div(loss, tl::clamp_min(lengths, 1)));
  }
  if (reduction == kReductionSum) return tl::sum(loss);
  return batched ? loss : tl::squeeze(loss, 0);
}

Tensor ctc_loss_tensor_composite(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                                 const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  // PyTorch reads CPU lengths first; with a meta tensor among the arguments it takes its composite path, which
  // unsqueezes unbatched log_probs first (a 0-d one is an IndexError before any lengths check)
  const bool meta = log_probs.is_meta() || targets.is_meta() || input_lengths.is_meta() || target_lengths.is_meta();
  if (meta && log_probs.dim() != 3) (void)tl::unsqueeze(log_probs, 1);
  const std::vector<int64_t> il = ctc_lengths(input_lengths, "input_lengths");
  const std::vector<int64_t> tgl = ctc_lengths(target_lengths, "target_lengths");
  return tl::ctc_loss(log_probs, targets, il, tgl, blank, reduction, zero_infinity);
}

}  // namespace tl::native
