// When cross_entropy_loss takes the fused kernel (cpu/CrossEntropyKernels.cpp), and the fused kernel's
// gradient written with differentiable ops: what its derivative formula uses in a backward that builds a
// graph (create_graph), so that double backward works as through PyTorch's composite.
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/CrossEntropy.h"
#include "aten/native/Losses.h"
#include "generated/ops/_cross_entropy_fused_differentiable_backward.h"
#include "generated/ops/mul.h"
#include "generated/ops/softmax.h"
#include "generated/ops/sub.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

bool cross_entropy_fusable(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                           int64_t reduction, int64_t ignore_index, double label_smoothing) {
  if (self.dtype() != ScalarType::Float32 && self.dtype() != ScalarType::Float64) return false;
  // K-dim inputs (N, C, d1, ...) too: the kernel takes them in blocks of neighbouring positions
  // (CrossEntropyColumns.h), the loops running across positions.
  if (self.dim() < 1 || self.numel() == 0) return false;
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0)) return false;
  if (reduction < kReductionNone || reduction > kReductionSum) return false;
  // The kernel's backward gives self's gradient only: a weight or target that wants one takes the composite.
  const bool grad = autograd::GradMode::is_enabled();
  const int64_t classes = self.size(self.dim() == 1 ? 0 : 1);
  if (weight && weight->defined()) {
    if (weight->dim() != 1 || weight->numel() != classes || weight->dtype() != self.dtype()) return false;
    if (grad && weight->requires_grad()) return false;
  }
  if (self.sizes() == target.sizes())
    return target.dtype() == self.dtype() && ignore_index < 0 && !(grad && target.requires_grad());
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
  if (reduction == kReductionNone) {
    TL_CHECK(grad_output.sizes() == IntArrayRef(geo.row_shape), op, ": expected grad_output of shape ",
             IntArrayRef(geo.row_shape), ", got ", grad_output.sizes());
  } else {
    TL_CHECK(grad_output.numel() == 1, op, ": expected a single element grad_output, got ", grad_output.sizes());
  }
  const auto [q, Q] = cross_entropy_gradient_coefficients(self, target, weight, reduction, ignore_index, label_smoothing);
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor g = reduction == kReductionNone && self.dim() > 1 ? unsqueeze(grad_output, class_dim) : grad_output;
  return mul(g, sub(mul(softmax(self, class_dim, std::nullopt), Q), q));
}

}  // namespace tl::native
