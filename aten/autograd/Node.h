// A node of the backward graph. Generated backward classes (one per differentiable op
// overload, in generated/autograd/) derive from Node and implement apply() from the
// derivative formulas in native_functions.yaml.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aten/autograd/Edge.h"
#include "aten/core/Tensor.h"

namespace tl::autograd {

using variable_list = std::vector<Tensor>;

// Shape, dtype and device of one forward output, so the engine can check the incoming
// gradient and reduce a broadcast gradient to this shape (sum_to) before apply().
struct InputMetadata {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
  Device device;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // grads[i] is the gradient of forward output i (undefined if none flowed there).
  // Returns one gradient per next edge (undefined where there is none).
  virtual variable_list apply(variable_list&& grads) = 0;
  // Class name shown in repr and grad_fn.name(), e.g. "AddBackward0".
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward pass without retain_graph.
  virtual void release_variables() {}
  // Bytes of tensor data this node keeps alive for backward (saved tensors).
  virtual size_t saved_bytes() const { return 0; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void set_next_edges(std::vector<Edge>&& edges) { next_edges_ = std::move(edges); }
  size_t num_outputs() const { return next_edges_.size(); }
  // Describes forward output `index` (forward outputs are this node's inputs). Returns its index.
  uint32_t add_input_metadata(const Tensor& t);
  const std::vector<InputMetadata>& input_metadata() const { return input_metadata_; }
  size_t num_inputs() const { return input_metadata_.size(); }
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }
  // Creation order; the engine runs later-created nodes first among ready ones.
  uint64_t sequence_nr() const { return sequence_nr_; }

 protected:
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  uint64_t sequence_nr_;
};

// The sink for a leaf's gradient: adds it into tensor.grad (and runs the leaf's hooks).
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  Tensor variable;  // holds the leaf; the leaf holds this node only weakly
};

// --- helpers used by generated autograd wrappers ---------------------------------------

// True when grad mode is on and any defined tensor argument requires grad.
bool compute_requires_grad(std::initializer_list<const Tensor*> tensors);
inline bool any_requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);
std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> tensors);
std::vector<Edge> collect_next_edges(TensorList tensors);
// Makes `fn` the grad_fn of `result` (output number `output_nr`).
void set_history(const Tensor& result, const std::shared_ptr<Node>& fn);
// For in-place ops: checks `self` may be modified in place, then points it at `fn`.
void check_inplace(const Tensor& self, const char* op);
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);

}  // namespace tl::autograd
