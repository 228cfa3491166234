// A tensor kept by a backward node. Remembers the version it was saved at, so a later
// in-place change is reported at backward; outputs of the node itself are saved without
// their grad_fn (the node holds them, they must not hold the node: no reference cycle).
#pragma once
#include <memory>

#include "aten/core/Tensor.h"

namespace tl::autograd {
struct Node;

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  // Returns the saved tensor with its autograd history; `saved_for` is the node asking
  // (used as grad_fn of saved outputs). Throws if it was modified in place or released.
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data();
  bool defined() const { return was_defined_; }
  size_t nbytes() const;

 private:
  Tensor data_;
  std::shared_ptr<Node> grad_fn_;       // for saved inputs that are non-leaves
  std::weak_ptr<Node> grad_accumulator_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace tl::autograd
