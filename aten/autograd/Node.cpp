#include "aten/autograd/Node.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>

#include "aten/autograd/CreationMeta.h"
#include "aten/autograd/FunctionsManual.h"
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "generated/ops/add.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/clone.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty_strided.h"
#include "generated/ops/fill.h"
#include "generated/ops/neg.h"
#include "generated/ops/view_as_real.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd {

namespace {

std::atomic<uint64_t> g_next_sequence_nr{0};
std::atomic<uint64_t> g_next_hook_id{1};

// Iterative graph teardown. Freeing the last reference to the head of a long chain would
// otherwise recurse through ~Node -> ~shared_ptr -> ~Node ... and overflow the stack. The
// outermost ~Node on a thread drains a worklist; nested ones only append to it.
// (Plain pointers/bools: trivially destructible thread_locals are safe to touch at any time.)
thread_local bool t_draining = false;
thread_local std::vector<std::shared_ptr<Node>>* t_pending = nullptr;

void take_if_last(std::shared_ptr<Node>& fn, std::vector<std::shared_ptr<Node>>& out) {
  // use_count() == 1: we hold the only owner, so nobody can copy it concurrently.
  if (fn && fn.use_count() == 1) out.push_back(std::move(fn));
}

// A tensor hook may replace the gradient, but not with one of another shape.
void check_hook_result(const Tensor& before, const Tensor& after) {
  TL_CHECK(after.sizes().equals(before.sizes()), "hook 'hook' has changed the size of value: expected ",
           before.sizes(), " but got ", after.sizes());
}

}  // namespace

uint64_t next_hook_id() { return g_next_hook_id.fetch_add(1, std::memory_order_relaxed); }

AnomalyHooks& anomaly_hooks() {
  static AnomalyHooks hooks;
  return hooks;
}

Node::Node() : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
  // One relaxed load when anomaly mode is off.
  if (AnomalyMode::is_enabled()) {
    if (auto record = anomaly_hooks().record) record(*this);
  }
}

Node::~Node() {
  if (t_draining) {
    for (Edge& e : next_edges_) take_if_last(e.function, *t_pending);
    return;
  }
  std::vector<std::shared_ptr<Node>> pending;
  for (Edge& e : next_edges_) take_if_last(e.function, pending);
  if (pending.empty()) return;
  t_draining = true;
  t_pending = &pending;
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // runs ~Node of n, which appends n's last-owned children to `pending`
  }
  t_pending = nullptr;
  t_draining = false;
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  InputMetadata m;
  if (t.defined()) {
    m.shape = t.sizes();
    m.dtype = t.dtype();
    m.device = t.device();
  } else {
    m.is_defined = false;
  }
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

// ---- hooks ---------------------------------------------------------------------------------

uint64_t Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook hook) {
  uint64_t id = next_hook_id();
  tensor_pre_hooks_.push_back({input_nr, id, std::move(hook)});
  return id;
}

uint64_t Node::add_pre_hook(NodePreHook hook) {
  uint64_t id = next_hook_id();
  pre_hooks_.emplace_back(id, std::move(hook));
  return id;
}

uint64_t Node::add_post_hook(NodePostHook hook) {
  uint64_t id = next_hook_id();
  post_hooks_.emplace_back(id, std::move(hook));
  return id;
}

bool Node::remove_hook(uint64_t id) {
  auto t = std::find_if(tensor_pre_hooks_.begin(), tensor_pre_hooks_.end(),
                        [&](const TensorPreHook& h) { return h.id == id; });
  if (t != tensor_pre_hooks_.end()) {
    tensor_pre_hooks_.erase(t);
    return true;
  }
  auto pre = std::find_if(pre_hooks_.begin(), pre_hooks_.end(), [&](const auto& h) { return h.first == id; });
  if (pre != pre_hooks_.end()) {
    pre_hooks_.erase(pre);
    return true;
  }
  auto post = std::find_if(post_hooks_.begin(), post_hooks_.end(), [&](const auto& h) { return h.first == id; });
  if (post != post_hooks_.end()) {
    post_hooks_.erase(post);
    return true;
  }
  return false;
}

void Node::set_retains_grad(uint32_t input_nr, std::weak_ptr<AutogradMeta*> meta) {
  for (auto& r : retains_grad_) {
    if (r.first == input_nr) {
      r.second = std::move(meta);
      return;
    }
  }
  retains_grad_.emplace_back(input_nr, std::move(meta));
}

void Node::clear_retains_grad(uint32_t input_nr) {
  retains_grad_.erase(std::remove_if(retains_grad_.begin(), retains_grad_.end(),
                                     [&](const auto& r) { return r.first == input_nr; }),
                      retains_grad_.end());
}

bool Node::has_retains_grad(uint32_t input_nr) const {
  for (const auto& r : retains_grad_)
    if (r.first == input_nr && !r.second.expired()) return true;
  return false;
}

variable_list Node::call_tensor_pre_hooks(variable_list grads) {
  if (!tensor_pre_hooks_.empty()) {
    // Copy: a hook may register or remove hooks on this node.
    std::vector<TensorPreHook> hooks = tensor_pre_hooks_;
    for (const auto& h : hooks) {
      if (h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
      Tensor r = h.fn(grads[h.input_nr]);
      if (!r.defined()) continue;
      check_hook_result(grads[h.input_nr], r);
      grads[h.input_nr] = std::move(r);
    }
  }
  // retain_grad runs after the other hooks, so .grad sees what they returned.
  for (const auto& r : retains_grad_) {
    std::shared_ptr<AutogradMeta*> handle = r.second.lock();
    if (!handle || r.first >= grads.size() || !grads[r.first].defined()) continue;
    AutogradMeta* meta = *handle;
    const Tensor& g = grads[r.first];
    meta->grad = meta->grad.defined() ? tl::add(meta->grad, g, 1) : tl::clone(g);
  }
  return grads;
}

variable_list Node::call_pre_hooks(variable_list grads) {
  if (pre_hooks_.empty()) return grads;
  auto hooks = pre_hooks_;
  for (const auto& h : hooks) {
    variable_list r = h.second(grads);
    if (r.empty()) continue;
    TL_CHECK(r.size() == grads.size(), "hook '", name(), "' has returned an incorrect number of values (got ",
             r.size(), ", but expected ", grads.size(), ")");
    grads = std::move(r);
  }
  return grads;
}

variable_list Node::call_post_hooks(variable_list grad_inputs, const variable_list& grad_outputs) {
  if (post_hooks_.empty()) return grad_inputs;
  auto hooks = post_hooks_;
  for (const auto& h : hooks) {
    variable_list r = h.second(grad_inputs, grad_outputs);
    if (r.empty()) continue;
    TL_CHECK(r.size() == grad_inputs.size(), "hook '", name(),
             "' has returned an incorrect number of values (got ", r.size(), ", but expected ",
             grad_inputs.size(), ")");
    grad_inputs = std::move(r);
  }
  return grad_inputs;
}

// ---- AccumulateGrad --------------------------------------------------------------------------

namespace {

// Strides describe a permutation of a contiguous layout (no holes, no overlap).
bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t n = t.dim();
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.sizes()[a] < 2) return false;
    if (t.sizes()[b] < 2) return true;
    return t.strides()[a] < t.strides()[b];
  });
  int64_t expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t size = t.sizes()[perm[i]];
    if (size < 2) continue;
    if (t.strides()[perm[i]] != expected) return false;
    expected *= size;
  }
  return true;
}

// The "layout contract": a leaf's .grad has the leaf's strides when those are dense and
// non-overlapping, otherwise it is contiguous.
bool obeys_layout_contract(const Tensor& grad, const Tensor& variable) {
  if (!grad.sizes().equals(variable.sizes())) return false;
  if (is_non_overlapping_and_dense(variable)) return grad.strides().equals(variable.strides());
  return grad.is_contiguous();
}

Tensor clone_obeying_layout_contract(const Tensor& grad, const Tensor& variable) {
  if (grad.sizes().equals(variable.sizes()) && !variable.is_contiguous() && is_non_overlapping_and_dense(variable)) {
    Tensor out = tl::empty_strided(variable.sizes(), variable.strides(), grad.dtype(), grad.device());
    return tl::copy_(out, grad, false);
  }
  return tl::clone(grad);
}

}  // namespace

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) {
  // Ready leaves accumulate before anything else runs, as in PyTorch.
  sequence_nr_ = std::numeric_limits<uint64_t>::max();
  add_input_metadata(variable);
}

variable_list AccumulateGrad::call_tensor_pre_hooks(variable_list grads) {
  AutogradMeta* meta = variable.impl()->autograd_meta();
  if (meta && !meta->hooks.empty() && !grads.empty()) {
    std::vector<TensorHook> hooks = meta->hooks;
    for (const auto& h : hooks) {
      if (!grads[0].defined()) break;
      Tensor r = h(grads[0]);
      if (!r.defined()) continue;
      check_hook_result(grads[0], r);
      grads[0] = std::move(r);
    }
  }
  return Node::call_tensor_pre_hooks(std::move(grads));
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  TL_CHECK(grads.size() == 1, "AccumulateGrad: expected 1 gradient, got ", grads.size());
  Tensor new_grad = std::move(grads[0]);
  grads.clear();
  if (!new_grad.defined() || !variable.requires_grad()) return {};
  AutogradMeta& meta = variable.impl()->ensure_autograd_meta();
  Tensor& g = meta.grad;
  if (!g.defined()) {
    if (!GradMode::is_enabled()) {
      // Steal the gradient when no other handle holds it (PyTorch's test: the tensor's own reference
      // count, not its storage's), otherwise copy. A view is stolen too: after x.conj().backward(g)
      // x.grad is the conj view of g, as PyTorch's.
      bool alone = new_grad.impl()->use_count() == 1;
      if (alone && obeys_layout_contract(new_grad, variable)) {
        g = new_grad.impl()->autograd_meta() ? detached_alias(new_grad) : std::move(new_grad);
      } else {
        g = clone_obeying_layout_contract(new_grad, variable);
      }
    } else {
      // create_graph: record the copy so .grad carries history.
      g = clone_obeying_layout_contract(new_grad, variable);
    }
  } else if (!GradMode::is_enabled() && g.sizes().equals(new_grad.sizes()) && g.dtype() == new_grad.dtype() &&
             g.device() == new_grad.device()) {
    // Accumulate in place: x.grad keeps its identity across backward calls (PyTorch does too).
    tl::add_(g, new_grad, 1);
  } else {
    g = tl::add(g, new_grad, 1);
  }
  if (!meta.post_accumulate_grad_hooks.empty()) {
    auto hooks = meta.post_accumulate_grad_hooks;
    for (const auto& h : hooks) h.second(variable);
  }
  return {};
}

// ---- helpers for the generated wrappers ---------------------------------------------------------

bool compute_requires_grad(std::initializer_list<const Tensor*> tensors) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : tensors)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

bool compute_requires_grad(TensorList tensors) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : tensors)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  if (!leaf.defined()) return nullptr;
  AutogradMeta* meta = leaf.impl()->autograd_meta();
  if (!meta || meta->grad_fn || !meta->requires_grad) return nullptr;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(leaf);
    meta->grad_accumulator = acc;
  }
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge{};
  AutogradMeta* meta = t.impl()->autograd_meta();
  if (!meta && !t.impl()->view_base()) return Edge{};
  // grad_fn(): views may regenerate it (and get an AutogradMeta doing so)
  if (const auto& fn = t.grad_fn()) return Edge{fn, t.impl()->autograd_meta()->output_nr};
  meta = t.impl()->autograd_meta();
  if (meta && meta->requires_grad) return Edge{grad_accumulator(t), 0};
  return Edge{};
}

std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> tensors) {
  std::vector<Edge> edges;
  edges.reserve(tensors.size());
  for (const Tensor* t : tensors) edges.push_back(t ? gradient_edge(*t) : Edge{});
  return edges;
}

std::vector<Edge> collect_next_edges(TensorList tensors) {
  std::vector<Edge> edges;
  edges.reserve(tensors.size());
  for (const Tensor& t : tensors) edges.push_back(gradient_edge(t));
  return edges;
}

namespace {

// The dtypes that carry gradients: floating and complex.
inline bool differentiable_dtype(ScalarType t) { return is_floating_type(t) || is_complex_type(t); }

void set_history_impl(const Tensor& result, const std::shared_ptr<Node>& fn, bool is_rebase) {
  if (!fn) return;
  uint32_t nr = fn->add_input_metadata(result);
  if (!result.defined() || !differentiable_dtype(result.dtype())) return;
  AutogradMeta& meta = result.impl()->ensure_autograd_meta();
  std::shared_ptr<Node> old = meta.grad_fn;
  uint32_t old_nr = meta.output_nr;
  // A fresh output that shares its storage with a base is the result of a view op, recorded in grad
  // mode (its kernel made it below autograd, with grad mode off).
  if (!is_rebase && result.impl()->view_base()) {
    meta.is_differentiable_view = true;
    result.impl()->set_made_creation_meta(CreationMeta::Default);
  }
  meta.grad_fn = fn;
  meta.output_nr = nr;
  meta.view_version = result.version();
  // retain_grad() follows the tensor to its new history (in-place ops), as in PyTorch.
  if (meta.retains_grad && meta.self_handle) {
    if (old && old != fn) old->clear_retains_grad(old_nr);
    fn->set_retains_grad(nr, meta.self_handle);
  }
}

}  // namespace

void set_history(const Tensor& result, const std::shared_ptr<Node>& fn) { set_history_impl(result, fn, false); }

namespace {

// A view whose in-place changes concern its base's history: the output of a recorded view op, or
// a view made (unrecorded, its base not requiring grad) while grad mode was on. Views made in
// no_grad/inference mode and detach() results are not.
bool is_differentiable_view(const Tensor& self, const AutogradMeta* meta) {
  if (!self.impl()->view_base()) return false;
  if (meta && meta->is_differentiable_view) return true;
  return self.impl()->view_made_in_grad_mode() && !(meta && meta->grad_fn);
}

}  // namespace

void check_inplace(const Tensor& self, const char* op) {
  (void)op;
  if (!self.defined() || !GradMode::is_enabled()) return;
  TensorImpl* impl = self.impl();
  TL_CHECK(!impl->is_inference() || InferenceMode::is_enabled(),
           "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
           "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
  AutogradMeta* meta = impl->autograd_meta();
  const auto& base = impl->view_base();
  // Views whose history autograd cannot rewrite (made in no_grad mode, outputs of split/unbind...)
  // are refused first, as PyTorch does.
  if (base) handle_view_on_rebase(self, /*indirect=*/false);
  TL_CHECK(!meta || meta->grad_fn || !meta->requires_grad,
           "a leaf Variable that requires grad is being used in an in-place operation.");
  if (base && is_differentiable_view(self, meta)) {
    const AutogradMeta* base_meta = base->autograd_meta();
    TL_CHECK(!(base_meta && base_meta->requires_grad && !base_meta->grad_fn),
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

void check_inplace_unrecorded(const Tensor& self, const char* op) {
  if (!self.defined() || !GradMode::is_enabled()) return;
  TensorImpl* impl = self.impl();
  const AutogradMeta* base_meta = impl->view_base() ? impl->view_base()->autograd_meta() : nullptr;
  if (self.requires_grad() || (base_meta && base_meta->requires_grad) || impl->is_inference()) check_inplace(self, op);
}

void check_inplace_unrecorded(TensorList tensors, const char* op) {
  for (const Tensor& t : tensors) check_inplace_unrecorded(t, op);
}

namespace {

struct Geometry {
  DimVector sizes, strides;
  int64_t offset = 0;
  uint8_t math_bits = 0;  // the lazy conj/neg bits (a conj() view of its base reads it conjugated)
  ScalarType dtype;
  explicit Geometry(const Tensor& t)
      : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()), math_bits(t.math_bits()),
        dtype(t.dtype()) {}
};

// The elements of `view` inside `base_value` (a tensor with the base's geometry, at offset 0). A real
// view of a complex base (real, imag, view_as_real) counts its geometry in parts: it is replayed on
// view_as_real of the base value, where the base's offset counts twice.
Tensor view_region(const Tensor& base_value, const Geometry& base, const Geometry& view) {
  if (view.dtype != base.dtype && is_complex_type(base.dtype))
    return tl::as_strided(tl::view_as_real(base_value), view.sizes, view.strides, view.offset - 2 * base.offset);
  return tl::as_strided(base_value, view.sizes, view.strides, view.offset - base.offset);
}

// The gradient of a view's elements from the gradient of its base's elements, or back: a view whose
// conj/neg bits differ from its base's (x.conj(), x.conj().imag) reads its base conjugated/negated,
// so its gradients are conjugated/negated (the Wirtinger gradient of conj is the conjugate).
Tensor through_math_bits(const Tensor& grad, uint8_t relative_bits) {
  Tensor g = grad;
  if ((relative_bits & TensorImpl::kConjBit) && is_complex_type(g.dtype())) g = tl::conj_physical(g);
  if (relative_bits & TensorImpl::kNegBit) g = tl::neg(g);
  return g;
}

// The new history of a base after an in-place op `fn` wrote into one of its views: the gradient
// of the base flows to the base's old history, except in the view's elements, where it goes
// through `fn` (whose other inputs get their gradients as usual).
struct CopySlices final : Node {
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
      : base_(base), view_(view), fn_(std::move(fn)) {
    add_next_edge(gradient_edge(base));
    for (size_t i = 1; i < fn_->next_edges().size(); ++i) add_next_edge(fn_->next_edges()[i]);
  }
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    const Tensor& grad = grads[0];
    if (!grad.defined()) return out;
    TL_CHECK(fn_, "Trying to backward through the graph a second time (or directly access saved tensors after "
                  "they have already been freed). Saved intermediate values of the graph are freed when you call "
                  ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                  "graph a second time or if you need to access saved tensors after calling backward.");
    // A copy of the base's gradient with the base's geometry; `slice` is the view's part of it.
    Tensor result = tl::empty_strided(base_.sizes, base_.strides, grad.dtype(), grad.device());
    tl::copy_(result, grad, false);
    Tensor slice = view_region(result, base_, view_);
    const uint8_t relative_bits = view_.math_bits ^ base_.math_bits;
    variable_list res = fn_->apply(variable_list{through_math_bits(tl::clone(slice), relative_bits)});
    TL_CHECK(res.size() == fn_->num_outputs(), "Function ", fn_->name(), " returned ", res.size(),
             " gradients, expected ", fn_->num_outputs());
    if (!res.empty() && res[0].defined()) {
      tl::copy_(slice, through_math_bits(generated::sum_to(res[0], view_.sizes), relative_bits), false);
    } else {
      tl::fill_(slice, 0);
    }
    out[0] = std::move(result);
    for (size_t i = 1; i < res.size(); ++i) out[i] = std::move(res[i]);
    return out;
  }
  // Drops `fn` rather than its saved tensors: `fn` may also be reached directly from a
  // double-backward graph (through a saved output of it), where it must still work.
  void release_variables() override { fn_.reset(); }
  size_t saved_bytes() const override { return fn_ ? fn_->saved_bytes() : 0; }

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
};

// The history of a view after an in-place op on it: the view read from the base's new value.
struct ViewOfBaseBackward final : Node {
  ViewOfBaseBackward(const Tensor& base, const Tensor& view) : base_(base), view_(view) {}
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (!should_compute_output(0) || !grads[0].defined()) return out;
    const Tensor grad = through_math_bits(grads[0], view_.math_bits ^ base_.math_bits);
    if (view_.dtype != base_.dtype) {
      // A real view of a complex base: its parts of a zero base gradient (its elements never overlap).
      Tensor result = tl::empty_strided(base_.sizes, base_.strides, base_.dtype, grad.device());
      tl::fill_(result, 0);
      tl::copy_(view_region(result, base_, view_), grad, false);
      out[0] = std::move(result);
      return out;
    }
    out[0] = generated::as_strided_backward(grad, base_.sizes, base_.strides, base_.offset, view_.sizes,
                                            view_.strides, view_.offset);
    return out;
  }

 private:
  Geometry base_, view_;
};

// The history of a tensor written by an in-place op without a gradient (eq_, lt_, ...): the
// values it replaced no longer depend on the old history, which gets a zero gradient.
struct ZeroGradBackward final : Node {
  explicit ZeroGradBackward(const char* name) : name_(name) {}
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    if (should_compute_output(0) && grads[0].defined()) out[0] = zeros_like(grads[0]);
    return out;
  }

 private:
  const char* name_;
};

}  // namespace

void rebase_history_zero_grad(const Tensor& self, const char* node) {
  if (!GradMode::is_enabled() || !self.requires_grad() || !differentiable_dtype(self.dtype())) return;
  auto fn = std::make_shared<ZeroGradBackward>(node);
  fn->add_next_edge(gradient_edge(self));
  rebase_history(self, fn);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  AutogradMeta* meta = self.defined() ? self.impl()->autograd_meta() : nullptr;
  if (fn && self.defined() && differentiable_dtype(self.dtype()) && is_differentiable_view(self, meta)) {
    // In-place on a view: the base's history is rewritten (CopySlices) and the view becomes a view
    // of the base's new value, as in PyTorch. A base without history (not requiring grad) gets
    // one here: its gradient flows to the written values only.
    Tensor base(self.impl()->view_base());
    if (!differentiable_dtype(base.dtype())) {
      set_history_impl(self, fn, true);
      return;
    }
    auto copy_slices = std::make_shared<CopySlices>(base, self, fn);
    set_history_impl(base, copy_slices, true);
    auto view_fn = std::make_shared<ViewOfBaseBackward>(base, self);
    view_fn->add_next_edge(Edge{copy_slices, 0});
    fn->add_input_metadata(self);  // fn is run by CopySlices, for the view's elements
    set_history_impl(self, view_fn, true);
    AutogradMeta& m = self.impl()->ensure_autograd_meta();
    m.is_differentiable_view = true;
    return;
  }
  // The tensor's history no longer goes through its base.
  if (meta) meta->is_differentiable_view = false;
  set_history_impl(self, fn, true);
}

void set_inplace_view_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  set_history_impl(self, fn, /*is_rebase=*/true);  // keeps whether self is a differentiable view
}

std::shared_ptr<Node> regenerate_view_grad_fn(const Tensor& view) {
  handle_view_on_rebase(view, /*indirect=*/true);  // split/unbind outputs have no history to regenerate
  AutogradMeta* meta = &view.impl()->ensure_autograd_meta();
  meta->is_differentiable_view = true;
  const auto& base_impl = view.impl()->view_base();
  Tensor base(base_impl);
  auto fn = std::make_shared<ViewOfBaseBackward>(base, view);
  fn->add_next_edge(gradient_edge(base));
  if (meta->retains_grad && meta->grad_fn) meta->grad_fn->clear_retains_grad(meta->output_nr);
  meta->grad_fn = fn;
  meta->output_nr = fn->add_input_metadata(view);
  meta->view_version = view.version();
  if (meta->retains_grad && meta->self_handle) fn->set_retains_grad(meta->output_nr, meta->self_handle);
  return fn;
}

// ---- Tensor API helpers -----------------------------------------------------------------------

Tensor detached_alias(const Tensor& t) {
  if (!t.defined()) return Tensor();
  auto impl = intrusive_ptr<TensorImpl>::make(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  impl->share_version_counter(t.impl()->version_counter());
  impl->set_wrapped_number(t.impl()->is_wrapped_number());
  impl->set_math_bits(t.impl()->math_bits());
  return Tensor(std::move(impl));
}

uint64_t register_hook(const Tensor& t, TensorHook hook) {
  TL_CHECK(t.defined() && t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = t.impl()->ensure_autograd_meta();
  if (const auto& fn = t.grad_fn()) return fn->add_tensor_pre_hook(meta.output_nr, std::move(hook));
  uint64_t id = next_hook_id();
  meta.hooks.push_back(std::move(hook));
  meta.hook_ids.resize(meta.hooks.size() - 1, 0);  // keep the id list aligned with hooks
  meta.hook_ids.push_back(id);
  return id;
}

bool remove_hook(const Tensor& t, uint64_t id, const std::shared_ptr<Node>& node) {
  if (node && node->remove_hook(id)) return true;
  if (!t.defined()) return false;
  AutogradMeta* meta = t.impl()->autograd_meta();
  if (!meta) return false;
  if (meta->grad_fn && meta->grad_fn->remove_hook(id)) return true;
  auto& post = meta->post_accumulate_grad_hooks;
  for (auto it = post.begin(); it != post.end(); ++it) {
    if (it->first == id) {
      post.erase(it);
      return true;
    }
  }
  if (meta->hook_ids.size() == meta->hooks.size()) {
    for (size_t i = 0; i < meta->hook_ids.size(); ++i) {
      if (meta->hook_ids[i] == id) {
        meta->hooks.erase(meta->hooks.begin() + static_cast<std::ptrdiff_t>(i));
        meta->hook_ids.erase(meta->hook_ids.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    }
  }
  return false;
}

uint64_t register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  TL_CHECK(leaf.defined() && leaf.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  TL_CHECK(leaf.is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  uint64_t id = next_hook_id();
  leaf.impl()->ensure_autograd_meta().post_accumulate_grad_hooks.emplace_back(id, std::move(hook));
  return id;
}

void retain_grad(const Tensor& t) {
  TL_CHECK(t.defined() && t.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& meta = t.impl()->ensure_autograd_meta();
  const auto& fn = t.grad_fn();
  if (!fn || meta.retains_grad) return;  // leaves keep their grad anyway
  meta.retains_grad = true;
  if (!meta.self_handle) meta.self_handle = std::make_shared<AutogradMeta*>(&meta);
  fn->set_retains_grad(meta.output_nr, meta.self_handle);
}

bool retains_grad(const Tensor& t) {
  if (!t.defined()) return false;
  const AutogradMeta* meta = t.impl()->autograd_meta();
  return meta && meta->retains_grad && meta->grad_fn;
}

}  // namespace tl::autograd
