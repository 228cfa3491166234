// When cross_entropy_loss takes the fused kernel (cpu/CrossEntropyKernels.cpp), and the fused kernel's
// gradient written with differentiable ops: what its derivative formula uses in a backward that builds a
// graph (create_graph), so that double backward works as through PyTorch's composite.
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/CrossEntropy.h"
#include "aten/native/Losses.h"
#include "generated/ops/_cross_entropy_fused_differentiable_backward.h"
#include "generated/ops/_cross_entropy_fused_differentiable_target_backward.h"
#include "generated/ops/add.h"
#include "generated/ops/div.h"
#include "generated/ops/log_softmax.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/softmax.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"

namespace tl::native {

namespace {

// The class weights as a view broadcasting against (N, C, d1, ...): (1, C, 1, ...) (or (C) for 1-d logits).
Tensor class_weight_view(const Tensor& weight, int64_t dim, int64_t class_dim) {
  DimVector shape(static_cast<size_t>(dim), 1);
  shape[static_cast<size_t>(class_dim)] = weight.numel();
  return view(weight, shape);
}

void check_grad_output(const Tensor& grad_output, const CrossEntropyGeometry& geo, int64_t reduction, const char* op) {
  if (reduction == kReductionNone) {
    TL_CHECK(grad_output.sizes() == IntArrayRef(geo.row_shape), op, ": expected grad_output of shape ",
             IntArrayRef(geo.row_shape), ", got ", grad_output.sizes());
  } else {
    TL_CHECK(grad_output.numel() == 1, op, ": expected a single element grad_output, got ", grad_output.sizes());
  }
}

}  // namespace

bool cross_entropy_fusable(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                           int64_t reduction, int64_t ignore_index, double label_smoothing) {
  if (self.dtype() != ScalarType::Float32 && self.dtype() != ScalarType::Float64) return false;
  // K-dim inputs (N, C, d1, ...) too: the kernel takes them in blocks of neighbouring positions
  // (CrossEntropyColumns.h), the loops running across positions.
  if (self.dim() < 1 || self.numel() == 0) return false;
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0)) return false;
  if (reduction < kReductionNone || reduction > kReductionSum) return false;
  // The kernel's backward gives the gradients of self and of class probabilities: a weight that wants one (or
  // class indices, which have none) takes the composite.
  const bool grad = autograd::GradMode::is_enabled();
  const int64_t classes = self.size(self.dim() == 1 ? 0 : 1);
  if (weight && weight->defined()) {
    if (weight->dim() != 1 || weight->numel() != classes || weight->dtype() != self.dtype()) return false;
    if (grad && weight->requires_grad()) return false;
  }
  if (self.sizes() == target.sizes())
    return target.dtype() == self.dtype() && ignore_index < 0;
  if (target.dtype() != ScalarType::Int64) return false;
  if (self.dim() == 1) return target.dim() == 0;
  return target.dim() == self.dim() - 1 && target.size(0) == self.size(0) &&
         target.sizes().slice(1) == self.sizes().slice(2);
}

// grad_output * (Q * softmax(self) - q): q and Q depend only on target, weight and the options (and include the mean's
// divisor), so the result's derivatives are those of softmax and of the products.
Tensor cross_entropy_fused_differentiable_backward_composite(const Tensor& grad_output, const Tensor& self,
                                                             const Tensor& target, const std::optional<Tensor>& weight,
                                                             int64_t reduction, int64_t ignore_index,
                                                             double label_smoothing) {
  const char* op = "_cross_entropy_fused_differentiable_backward";
  const CrossEntropyGeometry geo = cross_entropy_geometry(self, target, weight, reduction, label_smoothing, op);
  check_grad_output(grad_output, geo, reduction, op);
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor g = reduction == kReductionNone && self.dim() > 1 ? unsqueeze(grad_output, class_dim) : grad_output;
  if (geo.prob) {
    // Class probabilities: q and Q in ops of the target, which may require grad (d2 loss / dx dp flows through them).
    Tensor q = add(mul(target, 1.0 - label_smoothing), label_smoothing / static_cast<double>(geo.classes));
    if (weight && weight->defined()) q = mul(q, class_weight_view(*weight, self.dim(), class_dim));
    if (reduction == kReductionMean) q = div(q, static_cast<double>(geo.outer * geo.inner));
    const Tensor Q = sum(q, IntArrayRef{class_dim}, true);
    return mul(g, sub(mul(softmax(self, class_dim, std::nullopt), Q), q));
  }
  const auto [q, Q] = cross_entropy_gradient_coefficients(self, target, weight, reduction, ignore_index, label_smoothing);
  return mul(g, sub(mul(softmax(self, class_dim, std::nullopt), Q), q));
}

// -grad * (1 - s) * w * log_softmax(self) (/ rows for mean): the target's gradient as PyTorch's composite gives it,
// in differentiable ops of grad and self.
Tensor cross_entropy_fused_differentiable_target_backward_composite(const Tensor& grad_output, const Tensor& self,
                                                                    const Tensor& target,
                                                                    const std::optional<Tensor>& weight,
                                                                    int64_t reduction, double label_smoothing) {
  const char* op = "_cross_entropy_fused_differentiable_target_backward";
  const CrossEntropyGeometry geo = cross_entropy_geometry(self, target, weight, reduction, label_smoothing, op);
  TL_CHECK(geo.prob, op, ": expected class probabilities (a floating target of the input's shape), got class indices");
  check_grad_output(grad_output, geo, reduction, op);
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  Tensor g = reduction == kReductionNone && self.dim() > 1 ? unsqueeze(grad_output, class_dim) : grad_output;
  if (reduction == kReductionMean) g = div(g, static_cast<double>(geo.outer * geo.inner));
  Tensor r = mul(log_softmax(self, class_dim, std::nullopt), neg(mul(g, 1.0 - label_smoothing)));
  if (weight && weight->defined()) r = mul(r, class_weight_view(*weight, self.dim(), class_dim));
  return r;
}

}  // namespace tl::native
