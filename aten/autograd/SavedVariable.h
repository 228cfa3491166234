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
  // `is_output`: `t` is an output of the node that saves it (`result`, or `self` of an
  // in-place op after rebase_history).
  SavedVariable(const Tensor& t, bool is_output);
  // Returns the saved tensor with its autograd history; `saved_for` is the node asking
  // (used as grad_fn of saved outputs). Throws if it was modified in place or released.
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data();
  bool defined() const { return was_defined_; }
  bool was_released() const { return released_; }
  size_t nbytes() const;

 private:
  // Leaves and tensors without history are kept as they are (a leaf must come back as the
  // same tensor, so its gradient reaches its AccumulateGrad). Tensors with a grad_fn are kept
  // as an alias without autograd state (data_), their history in grad_fn_ (inputs) or
  // weak_grad_fn_ (outputs), and rebuilt at unpack.
  Tensor data_;
  std::shared_ptr<Node> grad_fn_;       // for saved inputs that are non-leaves
  std::weak_ptr<Node> grad_accumulator_;
  std::weak_ptr<Node> weak_grad_fn_;    // for saved outputs: the node that made them
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
  bool saved_original_ = false;         // data_ is the tensor itself (no rebuild at unpack)
};

}  // namespace tl::autograd
