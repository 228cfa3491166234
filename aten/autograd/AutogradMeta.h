// Per-tensor autograd state, allocated only for tensors that take part in autograd.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {
struct Node;

// A hook on a tensor's gradient: returns a replacement gradient or an undefined Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor&)>;

struct AutogradMeta {
  Tensor grad;                                // accumulated gradient (leaves, retain_grad)
  std::shared_ptr<Node> grad_fn;              // node that produced this tensor (non-leaves)
  std::weak_ptr<Node> grad_accumulator;       // AccumulateGrad node of a leaf, made on demand
  uint32_t output_nr = 0;                     // which output of grad_fn this tensor is
  bool requires_grad = false;                 // set by the user on leaves
  bool retains_grad = false;
  std::vector<TensorHook> hooks;
};

}  // namespace tl::autograd
