// The losses PyTorch builds from other ops (CompositeImplicitAutograd): nll_loss_nd, cross_entropy_loss,
// l1_loss, kl_div, poisson_nll_loss, hinge_embedding_loss, margin_ranking_loss, cosine_embedding_loss,
// triplet_margin_loss. Their gradients come from the ops they call (log_softmax, nll_loss_forward, ...).
#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/CrossEntropy.h"
#include "aten/native/Losses.h"
#include "generated/ops/_cross_entropy_fused.h"
#include "generated/ops/abs.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/cosine_embedding_loss.h"
#include "generated/ops/full_like.h"
#include "generated/ops/hinge_embedding_loss.h"
#include "generated/ops/margin_ranking_loss.h"
#include "generated/ops/minimum.h"
#include "generated/ops/ne.h"
#include "generated/ops/norm.h"
#include "generated/ops/rsub.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/triplet_margin_loss.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros_like.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/cross_entropy_loss.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/kl_div.h"
#include "generated/ops/le.h"
#include "generated/ops/log.h"
#include "generated/ops/poisson_nll_loss.h"
#include "generated/ops/xlogy.h"
#include "generated/ops/index_select.h"
#include "generated/ops/l1_loss.h"
#include "generated/ops/log_softmax.h"
#include "generated/ops/logical_not.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/nll_loss.h"
#include "generated/ops/nll_loss2d.h"
#include "generated/ops/nll_loss_nd.h"
#include "generated/ops/add.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor l1_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction) {
  return apply_loss_reduction(abs(sub(self, target)), reduction);
}

Tensor kl_div_composite(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  TL_CHECK(is_floating_type(self.dtype()) && is_floating_type(target.dtype()),
           "kl_div: Integral inputs not supported.");
  // xlogy gives 0 for target 0 (0 * log 0), where target * log(target) would give NaN.
  const Tensor loss = log_target ? mul(exp(target), sub(target, self)) : sub(xlogy(target, target), mul(target, self));
  return apply_loss_reduction(loss, reduction);
}

Tensor poisson_nll_loss_composite(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                                  int64_t reduction) {
  Tensor loss = log_input ? sub(exp(input), mul(target, input)) : sub(input, mul(target, log(add(input, eps))));
  if (full) {
    // Stirling: log(y!) ~ y log y - y + log(2 pi y) / 2, counted only where y > 1.
    const Tensor stirling =
        add(sub(mul(target, log(target)), target), mul(log(mul(target, 2 * M_PI)), 0.5));
    loss = add(loss, masked_fill(stirling, le(target, 1), 0.0));
  }
  return apply_loss_reduction(loss, reduction);
}

// (C,) and (N, C) go to nll_loss, (N, C, H, W) to nll_loss2d; other ranks run as nll_loss2d on an
// (N, C, 1, d1*...*dk) view, and 'none' gives the per-element loss back its (N, d1, ..., dk) shape.
Tensor nll_loss_nd_composite(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                             int64_t reduction, int64_t ignore_index) {
  TL_CHECK_VALUE(self.dim() >= 1, "nll_loss_nd: Expected 1 or more dimensions (got ", self.dim(), ")");
  if (self.dim() != 1 && target.dim() >= 1) {
    TL_CHECK_VALUE(self.size(0) == target.size(0), "nll_loss_nd: Expected input batch_size (", self.size(0),
                   ") to match target batch_size (", target.size(0), ").");
  }
  if (self.dim() <= 2) return nll_loss(self, target, weight, reduction, ignore_index);
  if (self.dim() == 4) return nll_loss2d(self, target, weight, reduction, ignore_index);
  const int64_t n = self.size(0), c = self.size(1);
  const IntArrayRef spatial = self.sizes().slice(2);
  DimVector out_shape{n};
  for (int64_t s : spatial) out_shape.push_back(s);
  TL_CHECK(target.dim() >= 1 && target.sizes().slice(1) == spatial, "nll_loss_nd: Expected target size ",
           IntArrayRef(out_shape), ", got ", target.sizes());
  const bool empty = self.numel() == 0;
  const Tensor x = view(contiguous(self), empty ? DimVector{n, c, 0, 0} : DimVector{n, c, 1, -1});
  const Tensor t = view(contiguous(target), target.numel() == 0 ? DimVector{n, 0, 0} : DimVector{n, 1, -1});
  Tensor loss = nll_loss2d(x, t, weight, reduction, ignore_index);
  if (reduction != kReductionNone) return loss;
  return view(loss, out_shape);
}

// x where target != -1, plus max(0, margin - x) where target != 1.
Tensor hinge_embedding_loss_composite(const Tensor& self, const Tensor& target, double margin, int64_t reduction) {
  const Tensor zeros = zeros_like(self);
  // PyTorch's C++ `margin - self` fills a tensor like self with margin first: in self's dtype.
  const Tensor margin_part = where(ne(target, 1), clamp_min(sub(full_like(self, margin), self), 0), zeros);
  const Tensor self_part = where(ne(target, -1), self, zeros);
  return apply_loss_reduction(add(margin_part, self_part), reduction);
}

Tensor margin_ranking_loss_composite(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                                     int64_t reduction) {
  return apply_loss_reduction(clamp_min(add(mul(neg(target), sub(input1, input2)), margin), 0), reduction);
}

// 1 - cos for target 1, max(0, cos - margin) for target -1, with PyTorch's 1e-12 added to each squared norm.
Tensor cosine_embedding_loss_composite(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                                       int64_t reduction) {
  const int64_t tdim = target.dim();
  TL_CHECK(tdim == 1 || tdim == 0, "cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported");
  if (tdim == 1) {
    TL_CHECK(input1.dim() == 2 && input2.dim() == 2,
             "cosine_embedding_loss: 1D target tensor expects 2D input tensors, but found inputs with sizes ",
             input1.sizes(), " and ", input2.sizes(), ".");
  } else {
    TL_CHECK(input1.dim() == 1 && input2.dim() == 1,
             "cosine_embedding_loss: 0D target tensor expects 1D input tensors, but found inputs with sizes ",
             input1.sizes(), " and ", input2.sizes(), ".");
  }
  constexpr double eps = 1e-12;
  const DimVector dims{tdim};
  const IntArrayRef dim(dims);
  const Tensor prod = sum(mul(input1, input2), dim, false, std::nullopt);
  const Tensor mag1 = add(sum(mul(input1, input1), dim, false, std::nullopt), eps);
  const Tensor mag2 = add(sum(mul(input2, input2), dim, false, std::nullopt), eps);
  const Tensor cos = div(prod, sqrt(mul(mag1, mag2)));
  const Tensor zeros = zeros_like(cos);
  const Tensor pos = where(eq(target, 1), sub(full_like(cos, 1), cos), zeros);
  const Tensor negative = where(eq(target, -1), clamp_min(sub(cos, margin), 0), zeros);
  return apply_loss_reduction(add(pos, negative), reduction);
}

namespace {

// PyTorch's pairwise_distance: the p-norm of x1 - x2 + eps over the last dim.
Tensor pairwise_distance_of(const Tensor& x1, const Tensor& x2, double p, double eps) {
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  return norm(add(sub(x1, x2), eps), Scalar(p), IntArrayRef{last}, false);
}

}  // namespace

Tensor triplet_margin_loss_composite(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                                     double p, double eps, bool swap, int64_t reduction) {
  TL_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
           "triplet_margin_loss: The anchor, positive, and negative tensors are expected to have the same number of "
           "dimensions, but got: anchor ", anchor.dim(), "D, positive ", positive.dim(), "D, and negative ",
           negative.dim(), "D inputs");
  const Tensor dist_pos = pairwise_distance_of(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance_of(anchor, negative, p, eps);
  if (swap) dist_neg = minimum(dist_neg, pairwise_distance_of(positive, negative, p, eps));
  return apply_loss_reduction(clamp_min(sub(add(dist_pos, margin), dist_neg), 0), reduction);
}

namespace {

// `weight` shaped to broadcast along the class dim of an input of rank `dim`.
Tensor class_weight(const Tensor& weight, int64_t dim, int64_t class_dim) {
  if (dim <= 1) return weight;
  DimVector shape(dim, 1);
  shape[class_dim] = weight.size(0);
  return view(weight, shape);
}

// Targets given as class probabilities (a tensor of self's shape).
Tensor cross_entropy_prob_target(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t classes = self.size(class_dim);
  const bool has_weight = weight && weight->defined();
  TL_CHECK(!has_weight || (weight->dim() == 1 && weight->numel() == classes),
           "cross_entropy: weight tensor should be defined either for all ", classes,
           " classes or no classes but got weight tensor of shape: ", has_weight ? weight->sizes() : IntArrayRef());
  const Tensor logp = log_softmax(self, class_dim, self.dtype());
  Tensor p = target;
  if (label_smoothing > 0.0) {
    TL_CHECK(label_smoothing <= 1.0, "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ",
             label_smoothing);
    p = add(mul(target, 1 - label_smoothing), label_smoothing / static_cast<double>(classes));
  }
  Tensor prod = mul(logp, p);
  if (has_weight) prod = mul(prod, class_weight(*weight, logp.dim(), class_dim));
  if (reduction == kReductionNone) return neg(sum(prod, IntArrayRef{class_dim}, false, std::nullopt));
  const Tensor total = neg(sum(prod));
  if (reduction == kReductionSum) return total;
  if (logp.numel() == 0) return mul(total, std::numeric_limits<double>::quiet_NaN());
  return div(total, static_cast<double>(logp.numel() / classes));
}

// Class indices with label smoothing: (1 - s) * nll + s / C * (the loss against the uniform
// distribution, weighted per class and normalised as nll_loss normalises).
Tensor cross_entropy_label_smoothing(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t classes = self.size(class_dim);
  const Tensor logp = log_softmax(self, class_dim, self.dtype());
  const Tensor nll = nll_loss_nd(logp, target, weight, reduction, ignore_index);
  const Tensor ignored = eq(target, ignore_index);
  const bool has_weight = weight && weight->defined();
  Tensor smooth = has_weight ? mul(logp, class_weight(*weight, logp.dim(), class_dim)) : logp;
  smooth = masked_fill(neg(sum(smooth, IntArrayRef{class_dim}, false, std::nullopt)), ignored, 0.0);
  Tensor reduced;
  if (reduction == kReductionNone) {
    reduced = smooth;
  } else if (reduction == kReductionSum) {
    reduced = sum(smooth);
  } else if (has_weight) {
    reduced = div(sum(smooth), sum(index_select(*weight, 0, masked_select(target, logical_not(ignored)))));
  } else {
    reduced = div(sum(smooth), sum(logical_not(ignored)));
  }
  return add(mul(nll, 1 - label_smoothing), mul(reduced, label_smoothing / static_cast<double>(classes)));
}

}  // namespace

Tensor cross_entropy_loss_composite(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                    int64_t reduction, int64_t ignore_index, double label_smoothing) {
  // The common calls run as one kernel each way (no log_softmax intermediate); the rest as PyTorch composes it.
  if (cross_entropy_fusable(self, target, weight, reduction, ignore_index, label_smoothing))
    return std::get<0>(_cross_entropy_fused(self, target, weight, reduction, ignore_index, label_smoothing));
  // A 0-d self has no class dim: log_softmax(self, 1) raises IndexError, as in PyTorch.
  if (self.sizes() == target.sizes()) {
    TL_CHECK(is_floating_type(target.dtype()),
             "cross_entropy: Expected floating point type for target with class probabilities, got ",
             scalar_type_name(target.dtype()));
    TL_CHECK(ignore_index < 0, "cross_entropy: ignore_index is not supported for floating point target");
    return cross_entropy_prob_target(self, target, weight, reduction, label_smoothing);
  }
  if (label_smoothing > 0.0) {
    TL_CHECK(label_smoothing <= 1.0, "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ",
             label_smoothing);
    return cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing);
  }
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  return nll_loss_nd(log_softmax(self, class_dim, self.dtype()), target, weight, reduction, ignore_index);
}

}  // namespace tl::native
