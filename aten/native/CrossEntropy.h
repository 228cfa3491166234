// What the fused cross_entropy kernel (cpu/CrossEntropyKernels.cpp) shares with its composites
// (composite/Losses.cpp, composite/CrossEntropyFused.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <utility>

#include "aten/core/Tensor.h"

namespace tl::native {

// Logits seen as (outer, classes, inner); row_shape is the shape of one value per row (the 'none' loss).
struct CrossEntropyGeometry {
  int64_t outer = 1, classes = 0, inner = 1;
  bool prob = false;  // class probabilities (a floating target of self's shape), not class indices
  DimVector row_shape;
};

// The shapes of a call of the fused ops, after checking what they accept (RuntimeError naming `op`).
CrossEntropyGeometry cross_entropy_geometry(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction, double label_smoothing, const char* op);

// The backward's coefficients as tensors: q (self's shape) and Q (self's shape with 1 class), so that
// grad_input = grad * (Q * softmax(self) - q); both include the mean's divisor. For the differentiable backward.
std::pair<Tensor, Tensor> cross_entropy_gradient_coefficients(const Tensor& self, const Tensor& target,
                                                              const std::optional<Tensor>& weight, int64_t reduction,
                                                              int64_t ignore_index, double label_smoothing);

// Whether cross_entropy_loss takes the fused kernel for these arguments ((C), (N, C) or (N, C, d1, ...) float32/float64 logits, Long class
// indices or same-dtype probabilities, shapes cross_entropy accepts, no gradient wanted for target or weight);
// everything else takes the composite, which raises PyTorch's errors.
bool cross_entropy_fusable(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                           int64_t reduction, int64_t ignore_index, double label_smoothing);

}  // namespace tl::native
