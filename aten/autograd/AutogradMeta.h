// Per-tensor autograd state, allocated only for tensors that take part in autograd.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {
struct Node;

// A hook on a tensor's gradient: returns a replacement gradient or an undefined Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor&)>;
// Runs after a leaf's .grad was updated by backward; receives the leaf.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;

struct AutogradMeta {
  AutogradMeta() = default;
  AutogradMeta(const AutogradMeta&) = delete;
  AutogradMeta& operator=(const AutogradMeta&) = delete;

  Tensor grad;                                // accumulated gradient (leaves, retain_grad)
  std::shared_ptr<Node> grad_fn;              // node that produced this tensor (non-leaves)
  std::weak_ptr<Node> grad_accumulator;       // AccumulateGrad node of a leaf, made on demand
  uint32_t output_nr = 0;                     // which output of grad_fn this tensor is
  bool requires_grad = false;                 // set by the user on leaves
  bool retains_grad = false;
  // Made by a differentiable view op from a base (TensorImpl::view_base) while recording:
  // in-place changes of it concern the base too (see check_inplace / rebase_history).
  bool is_differentiable_view = false;
  // For differentiable views: the version counter's value when grad_fn was set. When the base
  // or another of its views changes in place, grad_fn is regenerated on access (Tensor::grad_fn).
  uint32_t view_version = 0;
  // Hooks of a LEAF, run by the engine on the gradient before it is accumulated (also for
  // autograd.grad). Hooks of non-leaves live on their grad_fn (Node::add_tensor_pre_hook):
  // use tl::autograd::register_hook(), which picks the right place.
  std::vector<TensorHook> hooks;
  std::vector<uint64_t> hook_ids;             // parallel to `hooks` (ids from register_hook)
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> post_accumulate_grad_hooks;  // (id, hook)
  // Set by retain_grad(): grad_fn holds it weakly to find this meta (and so the tensor's
  // .grad) without keeping the tensor alive; it expires with the tensor.
  std::shared_ptr<AutogradMeta*> self_handle;
};

}  // namespace tl::autograd
