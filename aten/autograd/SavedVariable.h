// A tensor kept by a backward node. Remembers the version it was saved at, so a later
// in-place change is reported at backward; outputs of the node itself are saved without
// their grad_fn (the node holds them, they must not hold the node: no reference cycle).
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "aten/autograd/SavedVariableHooks.h"
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
  // With saved-tensor hooks (pushed when this was saved): the tensor went to hooks_ instead of
  // data_, and comes back from it at unpack with the history recorded here re-attached.
  Tensor unpack_from_hooks(std::shared_ptr<Node> fn) const;

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
  std::shared_ptr<SavedVariableHooks> hooks_;  // shared: SavedVariable stays copyable
};

// Tensor[] and Tensor? arguments kept by a node (generated code).
std::vector<SavedVariable> save_list(TensorList tensors, bool is_output);
std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& saved_for);
inline SavedVariable save_optional(const std::optional<Tensor>& t, bool is_output) {
  return SavedVariable(t ? *t : Tensor(), is_output);
}
// nullopt for a tensor that was absent when saved.
std::optional<Tensor> unpack_optional(const SavedVariable& saved, const std::shared_ptr<Node>& saved_for);
inline void reset_data(std::vector<SavedVariable>& saved) {
  for (SavedVariable& v : saved) v.reset_data();
}
inline size_t nbytes(const std::vector<SavedVariable>& saved) {
  size_t n = 0;
  for (const SavedVariable& v : saved) n += v.nbytes();
  return n;
}

}  // namespace tl::autograd
