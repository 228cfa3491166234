// A node of the backward graph. Generated backward classes (one per differentiable op
// overload, in generated/autograd/) derive from Node and implement apply() from the
// derivative formulas in native_functions.yaml.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/Edge.h"
#include "aten/core/Tensor.h"

namespace tl::autograd {

using variable_list = std::vector<Tensor>;

// True when any gradient in the list is defined (generated apply() returns early otherwise).
inline bool any_defined(const variable_list& grads) {
  for (const Tensor& g : grads)
    if (g.defined()) return true;
  return false;
}

// Shape, dtype and device of one forward output, so the engine can check the incoming
// gradient and reduce a broadcast gradient to this shape (sum_to) before apply().
struct InputMetadata {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
  Device device;
  bool is_defined = true;  // false for an undefined (absent) forward output
};

// Hooks on a whole node (grad_fn.register_prehook / register_hook in Python).
// A pre-hook sees the gradients flowing into the node (one per forward output) and may return
// replacements (an empty list keeps them); a post-hook also sees what apply() produced (one per
// next edge) and may return replacements for those.
using NodePreHook = std::function<variable_list(const variable_list& grad_outputs)>;
using NodePostHook = std::function<variable_list(const variable_list& grad_inputs, const variable_list& grad_outputs)>;

struct Node : std::enable_shared_from_this<Node> {
  Node();
  // Not recursive: a long chain of nodes freed by the last reference is torn down iteratively.
  virtual ~Node();
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
  void add_next_edge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  size_t num_outputs() const { return next_edges_.size(); }
  // Describes forward output `index` (forward outputs are this node's inputs). Returns its index.
  uint32_t add_input_metadata(const Tensor& t);
  const std::vector<InputMetadata>& input_metadata() const { return input_metadata_; }
  size_t num_inputs() const { return input_metadata_.size(); }
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }
  // Whether any of the n edges from `begin` needs a gradient (the elements of a Tensor[] input).
  bool should_compute_any(size_t begin, size_t n) const {
    for (size_t i = begin; i < begin + n; ++i)
      if (should_compute_output(i)) return true;
    return false;
  }
  // Creation order; the engine runs later-created nodes first among ready ones.
  uint64_t sequence_nr() const { return sequence_nr_; }

  // --- hooks (run by the engine; ids are unique across all hooks of the process) ---------
  // Tensor hook of forward output `input_nr` (a non-leaf tensor's register_hook).
  uint64_t add_tensor_pre_hook(uint32_t input_nr, TensorHook hook);
  uint64_t add_pre_hook(NodePreHook hook);
  uint64_t add_post_hook(NodePostHook hook);
  // Removes the hook with this id from this node; false if it is not here.
  bool remove_hook(uint64_t id);
  // retain_grad() of forward output `input_nr`: the engine stores its gradient into the
  // tensor's .grad (found through the weak handle, see AutogradMeta::self_handle).
  void set_retains_grad(uint32_t input_nr, std::weak_ptr<AutogradMeta*> meta);
  void clear_retains_grad(uint32_t input_nr);
  bool has_retains_grad(uint32_t input_nr) const;

  // Engine steps around apply(). Tensor hooks then retain_grad on the incoming gradients
  // (undefined gradients are passed over); AccumulateGrad runs its leaf's hooks here.
  virtual variable_list call_tensor_pre_hooks(variable_list grads);
  variable_list call_pre_hooks(variable_list grads);
  variable_list call_post_hooks(variable_list grad_inputs, const variable_list& grad_outputs);
  bool has_tensor_pre_hooks() const { return !tensor_pre_hooks_.empty() || !retains_grad_.empty(); }
  bool has_post_hooks() const { return !post_hooks_.empty(); }

  // --- for the Python bindings ---------------------------------------------------------------
  // Non-owning pointer to the Python object wrapping this node (the wrapper clears it).
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* obj) { pyobj_ = obj; }
  // Opaque per-node data owned by the bindings (the `metadata` dict), freed with the node.
  const std::shared_ptr<void>& py_metadata() const { return py_metadata_; }
  void set_py_metadata(std::shared_ptr<void> m) { py_metadata_ = std::move(m); }

  // Whether the engine fills the missing gradients of a multi-output node with zeros before
  // apply() (custom Functions can turn it off: ctx.set_materialize_grads(False)).
  bool materialize_grads() const { return materialize_grads_; }

 protected:
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  uint64_t sequence_nr_;
  bool materialize_grads_ = true;

 private:
  struct TensorPreHook {
    uint32_t input_nr;
    uint64_t id;
    TensorHook fn;
  };
  std::vector<TensorPreHook> tensor_pre_hooks_;
  std::vector<std::pair<uint64_t, NodePreHook>> pre_hooks_;
  std::vector<std::pair<uint64_t, NodePostHook>> post_hooks_;
  std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMeta*>>> retains_grad_;
  void* pyobj_ = nullptr;
  std::shared_ptr<void> py_metadata_;
};

// The sink for a leaf's gradient: adds it into tensor.grad (and runs the leaf's hooks).
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  // Runs the leaf's hooks (AutogradMeta::hooks), so they also apply under autograd.grad.
  variable_list call_tensor_pre_hooks(variable_list grads) override;
  Tensor variable;  // holds the leaf; the leaf holds this node only weakly
};

// Fresh hook/handle id (process-wide, never 0).
uint64_t next_hook_id();

// Anomaly mode (AnomalyMode in GradMode.h) support, installed by the Python bindings:
// `record` runs in the constructor of every Node made while anomaly mode is on (it stores the
// Python stack of the forward call in the node's metadata); `report` runs when the backward of
// a node fails in anomaly mode (it warns with that stack). Both may be null.
struct AnomalyHooks {
  void (*record)(Node& node) = nullptr;
  void (*report)(const Node& node) = nullptr;
};
AnomalyHooks& anomaly_hooks();

// --- helpers used by generated autograd wrappers ---------------------------------------

// True when grad mode is on and any defined tensor argument requires grad.
bool compute_requires_grad(std::initializer_list<const Tensor*> tensors);
bool compute_requires_grad(TensorList tensors);
inline bool any_requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);
std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> tensors);
std::vector<Edge> collect_next_edges(TensorList tensors);
// For ops with Tensor[] inputs: the edges of each argument in order, one per tensor, one per
// element of a list, one (possibly invalid) per optional tensor.
inline void append_next_edges(std::vector<Edge>& edges, const Tensor& t) { edges.push_back(gradient_edge(t)); }
inline void append_next_edges(std::vector<Edge>& edges, const std::optional<Tensor>& t) {
  edges.push_back(t ? gradient_edge(*t) : Edge{});
}
inline void append_next_edges(std::vector<Edge>& edges, TensorList ts) {
  for (const Tensor& t : ts) edges.push_back(gradient_edge(t));
}
template <typename... Args>
std::vector<Edge> next_edges_of(const Args&... args) {
  std::vector<Edge> edges;
  (append_next_edges(edges, args), ...);
  return edges;
}
// Makes `fn` the grad_fn of `result` (output number `output_nr`). An undefined `result` still
// takes an output slot; a result of a non-floating dtype gets the slot but no history
// (integer outputs are not differentiable).
void set_history(const Tensor& result, const std::shared_ptr<Node>& fn);
// For in-place ops: checks `self` may be modified in place, then points it at `fn`.
void check_inplace(const Tensor& self, const char* op);
// The same checks for in-place ops that autograd does not record (eq_, floor_divide_, ...; the
// dispatcher calls it): made when `self` or the base it views requires grad, or is an inference tensor.
void check_inplace_unrecorded(const Tensor& self, const char* op);
// ... for each tensor of a written list (the fused optimizer steps: leaves requiring grad are refused
// unless grad mode is off, as a step runs under no_grad).
void check_inplace_unrecorded(TensorList tensors, const char* op);
// Marks the outputs of an op returning several views of one input (split, unbind; the dispatcher
// calls it, recording or not): in-place changes of them, or of views of them, are then refused
// while grad mode is on, as in PyTorch (CreationMeta.h).
std::vector<Tensor> mark_multi_output_views(std::vector<Tensor> views);
// After such an op wrote `self`: when self requires grad, its history becomes a node named
// `node` (PyTorch's, e.g. "EqBackward0") whose gradient is zero, so the old history no longer
// sees the gradient of values the op replaced.
void rebase_history_zero_grad(const Tensor& self, const char* node);
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);
// After an in-place view op (squeeze_, t_: tag inplace_view) changed self's geometry: `fn` becomes
// self's history as for a view op's output (PyTorch's set_history, not rebase_history): the base's
// history is untouched and a view of a base stays one.
void set_inplace_view_history(const Tensor& self, const std::shared_ptr<Node>& fn);
// Called by Tensor::grad_fn() for a differentiable view whose base (or a sibling view) was
// modified in place since its grad_fn was recorded: the view's history becomes "read from the
// base's current value" (AsStridedBackward0 over the base).
std::shared_ptr<Node> regenerate_view_grad_fn(const Tensor& view);

// --- helpers for the Tensor API (Python bindings, issue 3) -----------------------------
// The AccumulateGrad node of a leaf that requires grad (created on first use; null otherwise).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
// Registers a hook on `t`'s gradient (t must require grad); returns an id for remove_hook.
// Leaves keep it in AutogradMeta::hooks, non-leaves on their current grad_fn.
uint64_t register_hook(const Tensor& t, TensorHook hook);
// Runs `hook(leaf)` after backward updated leaf.grad; returns an id for remove_hook.
uint64_t register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook);
// Removes a hook registered by register_hook or register_post_accumulate_grad_hook on `t` (looks
// at the leaf's lists, or at the grad_fn the hook was registered on, passed as `node`,
// defaulting to t's grad_fn).
bool remove_hook(const Tensor& t, uint64_t id, const std::shared_ptr<Node>& node = nullptr);
// Makes backward store the gradient of the non-leaf `t` in t.grad (no-op on leaves).
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
// A tensor sharing t's data, geometry and version counter, without autograd state
// (what detach() gives, made without going through the dispatcher).
Tensor detached_alias(const Tensor& t);

}  // namespace tl::autograd
