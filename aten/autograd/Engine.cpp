#include "aten/autograd/Engine.h"

#include <cmath>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "aten/autograd/FunctionsManual.h"
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/real.h"
#include "generated/ops/add.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/zeros.h"

namespace tl::autograd {

namespace {

// The node every backward pass starts from: hands the root gradients to the roots' edges.
struct GraphRoot final : Node {
  GraphRoot(std::vector<Edge> edges, variable_list grads) : grads_(std::move(grads)) {
    next_edges_ = std::move(edges);
    sequence_nr_ = std::numeric_limits<uint64_t>::max();
  }
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return std::move(grads_); }

 private:
  variable_list grads_;
};

// Where autograd.grad (or backward(inputs=)) picks up a gradient: input `input_nr` of a node,
// i.e. the gradient of one forward output, after the tensor hooks ran.
struct Capture {
  uint32_t input_nr;
  size_t output_idx;
  Tensor accumulate_into;  // backward(inputs=) on a non-leaf: add the gradient to its .grad
};

struct NodeTask {
  int dependencies = 0;     // edges from nodes of this pass that have not delivered yet
  bool needed = true;       // apply() must run (false: only captures are taken)
  bool in_graph = true;     // whether anything must happen here at all (filtered passes)
  std::vector<Capture> captures;
  variable_list buffer;     // the gradients received so far, one per node input
};

std::string shape_str(IntArrayRef s) { return str(s); }

// Checks a gradient flowing into input `edge.input_nr` of `edge.function` against what the
// forward pass recorded there; reduces broadcast gradients and casts dtypes.
Tensor validate_gradient(Tensor g, const Edge& edge, const Node& producer, size_t index) {
  const auto& metas = edge.function->input_metadata();
  TL_CHECK(edge.input_nr < metas.size(), "Function ", producer.name(), " has an edge to input ", edge.input_nr,
           " of ", edge.function->name(), ", which has only ", metas.size(), " inputs");
  const InputMetadata& m = metas[edge.input_nr];
  if (!m.is_defined) return Tensor();
  if (!g.sizes().equals(m.shape)) {
    TL_CHECK(generated::is_expandable_to(m.shape, g.sizes()), "Function ", producer.name(),
             " returned an invalid gradient at index ", index, " - got ", shape_str(g.sizes()),
             " but expected shape compatible with ", shape_str(m.shape));
    g = generated::sum_to(g, m.shape);
  }
  TL_CHECK(g.device().type == m.device.type, "Function ", producer.name(), " returned an invalid gradient at index ",
           index, " - expected device ", m.device.str(), " but got ", g.device().str());
  // A complex gradient of a real input: its real part (PyTorch's handle_r_to_c), without the
  // warning a complex-to-real conversion gives.
  if (is_complex_type(g.dtype()) && !is_complex_type(m.dtype)) g = tl::real(g);
  if (g.dtype() != m.dtype) g = tl::_to_copy(g, m.dtype, std::nullopt);
  return g;
}

// Anomaly mode: a NaN in any gradient a node produced is an error naming the node.
void check_nan(const Node& fn, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !g.is_cpu() || !is_floating_type(g.dtype()) || g.numel() == 0) continue;
    bool has_nan = false;
    {
      NoGradGuard no_grad;
      Tensor d = tl::contiguous(tl::_to_copy(g, ScalarType::Float64, std::nullopt));
      const double* p = d.data_ptr<double>();
      for (int64_t k = 0, n = d.numel(); k < n && !has_nan; ++k) has_nan = std::isnan(p[k]);
    }
    TL_CHECK(!has_nan, "Function '", fn.name(), "' returned nan values in its ", i, "th output.");
  }
}

// What `inputs` a pass computes gradients for.
enum class Mode { Backward, BackwardInputs, Grad };

class GraphTask {
 public:
  GraphTask(bool keep_graph, Mode mode) : keep_graph_(keep_graph), mode_(mode) {}

  // Runs the pass from `root`; `targets` are the edges of `inputs` (Backward: none).
  void run(const std::shared_ptr<Node>& root, const std::vector<Edge>& targets, const variable_list& inputs);
  variable_list take_captured() { return std::move(captured_); }

 private:
  void discover(Node* root);
  void mark_needed(Node* root, const std::vector<Edge>& targets, const variable_list& inputs);
  void evaluate(Node* fn, NodeTask& task);
  void push_ready(Node* fn) {
    ready_.emplace(fn->sequence_nr(), std::numeric_limits<uint64_t>::max() - ready_counter_++, fn);
  }

  bool keep_graph_;
  Mode mode_;
  std::unordered_map<Node*, NodeTask> tasks_;
  // Ready nodes, latest-created first; FIFO among equal sequence numbers (leaves, root).
  std::priority_queue<std::tuple<uint64_t, uint64_t, Node*>> ready_;
  uint64_t ready_counter_ = 0;
  variable_list captured_;
};

void GraphTask::discover(Node* root) {
  // Iterative DFS over every node reachable from the root, counting incoming edges.
  std::vector<Node*> stack{root};
  tasks_[root];
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      auto [it, inserted] = tasks_.try_emplace(e.function.get());
      it->second.dependencies++;
      if (inserted) stack.push_back(e.function.get());
    }
  }
}

void GraphTask::mark_needed(Node* root, const std::vector<Edge>& targets, const variable_list& inputs) {
  // A filtered pass runs only the nodes that lead to a target. Leaf targets of
  // backward(inputs=) run their AccumulateGrad; the others capture the gradient at
  // (node, input_nr) without running the node for it.
  captured_.assign(targets.size(), Tensor());
  std::unordered_set<Node*> run_targets;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Edge& e = targets[i];
    if (!e.is_valid()) continue;
    auto it = tasks_.find(e.function.get());
    if (it == tasks_.end()) continue;  // not reached from the outputs: stays undefined
    if (mode_ == Mode::BackwardInputs && dynamic_cast<AccumulateGrad*>(e.function.get())) {
      run_targets.insert(e.function.get());
    } else {
      Capture c{e.input_nr, i, Tensor()};
      if (mode_ == Mode::BackwardInputs) c.accumulate_into = inputs[i];
      it->second.captures.push_back(std::move(c));
    }
  }
  // Topological order (parents first) by Kahn's algorithm on a copy of the dependency counts.
  std::unordered_map<Node*, int> deps;
  for (auto& [n, t] : tasks_) deps[n] = t.dependencies;
  std::vector<Node*> order{root};
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Edge& e : order[i]->next_edges()) {
      if (e.is_valid() && --deps[e.function.get()] == 0) order.push_back(e.function.get());
    }
  }
  // Children before parents: needed = leads to a capture or a run target.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = *it;
    NodeTask& t = tasks_[n];
    bool needed = run_targets.count(n) > 0;
    for (const Edge& e : n->next_edges()) {
      if (needed) break;
      if (!e.is_valid()) continue;
      const NodeTask& c = tasks_[e.function.get()];
      needed = c.needed || !c.captures.empty();
    }
    t.needed = needed;
    t.in_graph = needed || !t.captures.empty();
  }
  tasks_[root].needed = true;
  tasks_[root].in_graph = true;
}

void GraphTask::run(const std::shared_ptr<Node>& root, const std::vector<Edge>& targets,
                    const variable_list& inputs) {
  discover(root.get());
  if (mode_ != Mode::Backward) mark_needed(root.get(), targets, inputs);
  push_ready(root.get());
  while (!ready_.empty()) {
    Node* fn = std::get<2>(ready_.top());
    ready_.pop();
    if (!AnomalyMode::is_enabled()) {
      evaluate(fn, tasks_[fn]);
      continue;
    }
    try {
      evaluate(fn, tasks_[fn]);
    } catch (...) {
      // Anomaly mode: show where the failing node's forward op was called, then re-raise.
      if (auto report = anomaly_hooks().report) report(*fn);
      throw;
    }
  }
}

void GraphTask::evaluate(Node* fn, NodeTask& task) {
  variable_list inputs = std::move(task.buffer);
  task.buffer = variable_list();
  inputs.resize(fn->num_inputs());

  inputs = fn->call_tensor_pre_hooks(std::move(inputs));
  for (Capture& c : task.captures) {
    const Tensor& g = c.input_nr < inputs.size() ? inputs[c.input_nr] : Tensor();
    if (c.accumulate_into.defined()) {
      if (g.defined()) {
        Tensor& dst = c.accumulate_into.mutable_grad();
        dst = dst.defined() ? tl::add(dst, g, 1) : tl::clone(g);
      }
    } else {
      captured_[c.output_idx] = g;
    }
  }
  if (!task.needed) return;
  inputs = fn->call_pre_hooks(std::move(inputs));

  variable_list outputs;
  if (!any_defined(inputs) && fn->num_inputs() > 0) {
    // Nothing flowed into this node: every gradient it would produce is undefined.
    outputs.resize(fn->num_outputs());
  } else {
    if (fn->num_inputs() > 1 && fn->materialize_grads()) {
      // Formulas see defined gradients only: materialize the missing ones as zeros.
      const auto& metas = fn->input_metadata();
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].defined() && metas[i].is_defined)
          inputs[i] = tl::zeros(metas[i].shape, metas[i].dtype, metas[i].device);
      }
    }
    variable_list grad_outputs;
    if (fn->has_post_hooks()) grad_outputs = inputs;
    outputs = fn->apply(std::move(inputs));
    if (fn->has_post_hooks()) outputs = fn->call_post_hooks(std::move(outputs), grad_outputs);
  }
  if (!keep_graph_) fn->release_variables();
  if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) check_nan(*fn, outputs);

  const auto& edges = fn->next_edges();
  TL_CHECK(outputs.size() == edges.size() || (outputs.empty() && edges.empty()), "Function ", fn->name(),
           " returned an incorrect number of gradients (expected ", edges.size(), ", got ", outputs.size(), ")");
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    if (!e.is_valid()) continue;
    auto it = tasks_.find(e.function.get());
    NodeTask& next = it->second;
    if (!next.in_graph) continue;
    Tensor g = std::move(outputs[i]);
    if (g.defined()) g = validate_gradient(std::move(g), e, *fn, i);
    if (g.defined()) {
      if (next.buffer.empty()) next.buffer.resize(e.function->num_inputs());
      Tensor& slot = next.buffer[e.input_nr];
      slot = slot.defined() ? tl::add(slot, g, 1) : std::move(g);
    }
    if (--next.dependencies == 0) push_ready(e.function.get());
  }
}

// The root gradients: given ones checked against their outputs, missing ones made for
// one-element outputs.
variable_list make_root_grads(const variable_list& roots, const variable_list& grad_roots) {
  TL_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), "got ", roots.size(), " tensors and ",
           grad_roots.size(), " gradients");
  variable_list grads(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& root = roots[i];
    TL_CHECK(root.defined(), "element ", i, " of tensors is undefined");
    TL_CHECK(root.requires_grad(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    const Tensor g = i < grad_roots.size() ? grad_roots[i] : Tensor();
    if (g.defined()) {
      TL_CHECK(g.sizes().equals(root.sizes()), "Mismatch in shape: grad_output[", i, "] has a shape of ",
               shape_str(g.sizes()), " and output[", i, "] has a shape of ", shape_str(root.sizes()), ".");
      TL_CHECK(is_complex_type(g.dtype()) == is_complex_type(root.dtype()),
               "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in "
               "dtype: grad_output[", i, "] has a dtype of torchlite.", scalar_type_name(g.dtype()), " and output[", i,
               "] has a dtype of torchlite.", scalar_type_name(root.dtype()), ".");
      grads[i] = g;
    } else {
      TL_CHECK(root.numel() == 1, "grad can be implicitly created only for scalar outputs");
      TL_CHECK(!is_complex_type(root.dtype()), "grad can be implicitly created only for real scalar outputs");
      NoGradGuard no_grad;
      grads[i] = tl::ones_like(root, std::nullopt, std::nullopt);
    }
  }
  return grads;
}

variable_list run_pass(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                       bool create_graph, const variable_list& inputs, Mode mode) {
  variable_list grads = make_root_grads(roots, grad_roots);
  std::vector<Edge> root_edges;
  root_edges.reserve(roots.size());
  for (const Tensor& r : roots) root_edges.push_back(gradient_edge(r));
  std::vector<Edge> targets;
  targets.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    TL_CHECK(t.defined() && t.requires_grad(), "One of the differentiated Tensors does not require grad");
    targets.push_back(gradient_edge(t));
  }
  AutoGradMode grad_mode(create_graph);
  auto root = std::make_shared<GraphRoot>(std::move(root_edges), std::move(grads));
  GraphTask task(keep_graph, mode);
  task.run(root, targets, inputs);
  return task.take_captured();
}

}  // namespace

void backward(const variable_list& roots, const variable_list& grad_roots, bool retain_graph, bool create_graph,
              const variable_list& inputs) {
  run_pass(roots, grad_roots, retain_graph, create_graph, inputs,
           inputs.empty() ? Mode::Backward : Mode::BackwardInputs);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   bool retain_graph, bool create_graph, bool allow_unused) {
  TL_CHECK(!inputs.empty(), "grad requires at least one input");
  variable_list result = run_pass(outputs, grad_outputs, retain_graph, create_graph, inputs, Mode::Grad);
  if (!allow_unused) {
    for (const Tensor& g : result)
      TL_CHECK(g.defined(),
               "One of the differentiated Tensors appears to not have been used in the graph. Set "
               "allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace tl::autograd
