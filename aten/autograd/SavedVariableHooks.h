// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): while a pair of hooks is pushed
// on this thread, every SavedVariable hands its tensor to the pack hook instead of keeping it,
// and asks the unpack hook for it at backward. Activation checkpointing and offloading use it.
#pragma once
#include <functional>
#include <memory>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// One saved tensor's hooks: pack once when saved, unpack at every use.
struct SavedVariableHooks {
  virtual ~SavedVariableHooks() = default;
  virtual void call_pack_hook(const Tensor& t) = 0;
  virtual Tensor call_unpack_hook() = 0;
};

// Makes the hooks object for one tensor being saved (the language binding supplies it).
using SavedVariableHooksFactory = std::function<std::unique_ptr<SavedVariableHooks>()>;

// The thread's stack of default hooks; the innermost pair applies.
void push_saved_variable_hooks(SavedVariableHooksFactory factory);
void pop_saved_variable_hooks();
// nullptr when no hooks are pushed on this thread, or while a pack hook runs (its own ops must
// not be packed again).
std::unique_ptr<SavedVariableHooks> make_saved_variable_hooks();

// Marks the scope of a running pack hook (see make_saved_variable_hooks).
struct PackHookGuard {
  PackHookGuard();
  ~PackHookGuard();
  PackHookGuard(const PackHookGuard&) = delete;
  PackHookGuard& operator=(const PackHookGuard&) = delete;
};

}  // namespace tl::autograd
