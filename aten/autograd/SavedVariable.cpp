#include "aten/autograd/SavedVariable.h"

#include <sstream>

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"

namespace tl::autograd {

namespace {

constexpr const char* kReleasedMessage =
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.";

}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  TL_CHECK(!t.impl()->is_inference(),
           "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
           "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and "
           "use it in autograd, or use `torchlite.no_grad()` instead of `torchlite.inference_mode()`.");
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = t.version();
  output_nr_ = t.output_nr();
  requires_grad_ = t.requires_grad();
  is_leaf_ = t.is_leaf();
  const std::shared_ptr<Node>& fn = t.grad_fn();
  if (std::unique_ptr<SavedVariableHooks> hooks = make_saved_variable_hooks()) {
    // The hooks keep the tensor (or whatever stands for it); only its history stays here.
    if (const AutogradMeta* meta = t.impl()->autograd_meta()) grad_accumulator_ = meta->grad_accumulator;
    saved_original_ = !fn;
    if (fn && is_output) {
      weak_grad_fn_ = fn;
    } else if (fn) {
      grad_fn_ = fn;
    }
    hooks_ = std::move(hooks);
    PackHookGuard packing;
    hooks_->call_pack_hook(t);
    return;
  }
  if (!fn) {
    // No history to keep: the tensor itself (a leaf comes back as the same tensor).
    data_ = t;
    saved_original_ = true;
    if (const AutogradMeta* meta = t.impl()->autograd_meta()) grad_accumulator_ = meta->grad_accumulator;
    return;
  }
  data_ = detached_alias(t);
  data_.impl()->set_view_base(t.impl()->view_base());
  if (is_output) {
    weak_grad_fn_ = fn;  // the node saving its own output: a strong reference would be a cycle
  } else {
    grad_fn_ = fn;
  }
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return Tensor();
  TL_CHECK(!released_, kReleasedMessage);
  std::shared_ptr<Node> fn;
  if (!saved_original_) {
    if (is_output_) {
      // Normally the node saving its output is `saved_for`; after an in-place op on a view the
      // tensor's history is the view's new grad_fn, kept weakly.
      fn = weak_grad_fn_.lock();
      if (!fn) fn = saved_for;
    } else {
      fn = grad_fn_;
    }
  }
  if (hooks_) return unpack_from_hooks(std::move(fn));
  if (data_.version() != saved_version_) {
    std::ostringstream os;
    os << "one of the variables needed for gradient computation has been modified by an inplace operation: "
       << "[torchlite." << legacy_type_name(data_.dtype()) << "Tensor " << data_.sizes() << "]";
    if (fn) os << ", which is output " << output_nr_ << " of " << fn->name() << ",";
    os << " is at version " << data_.version() << "; expected version " << saved_version_ << " instead.";
    os << " Hint: the tensor was saved";
    if (saved_for) os << " by " << saved_for->name();
    os << " for the backward pass and then modified in place; modify a clone() instead, or do the in-place "
          "operation after backward.";
    throw RuntimeError(os.str());
  }
  if (saved_original_ || !fn) return data_;
  // Rebuild a tensor sharing the saved data, with its history re-attached.
  const TensorImpl& src = *data_.impl();
  auto impl = intrusive_ptr<TensorImpl>::make(src.storage(), src.dtype(), src.sizes(), src.strides(),
                                              src.storage_offset());
  impl->share_version_counter(data_.impl()->version_counter());
  impl->set_wrapped_number(src.is_wrapped_number());
  impl->set_math_bits(src.math_bits());
  impl->set_view_base(src.view_base());
  AutogradMeta& meta = impl->ensure_autograd_meta();
  meta.grad_fn = std::move(fn);
  meta.output_nr = output_nr_;
  return Tensor(std::move(impl));
}

Tensor SavedVariable::unpack_from_hooks(std::shared_ptr<Node> fn) const {
  Tensor data = hooks_->call_unpack_hook();
  TL_CHECK(data.defined(), "unpack_hook returned an undefined tensor");
  // Without history: the tensor as the hook gives it, unless it lost the requires_grad of the
  // leaf it stands for (then an alias that reaches the leaf's AccumulateGrad).
  if (!fn && (!requires_grad_ || data.requires_grad())) return data;
  const TensorImpl& src = *data.impl();
  auto impl = intrusive_ptr<TensorImpl>::make(src.storage(), src.dtype(), src.sizes(), src.strides(),
                                              src.storage_offset());
  impl->share_version_counter(data.impl()->version_counter());
  impl->set_wrapped_number(src.is_wrapped_number());
  impl->set_math_bits(src.math_bits());
  AutogradMeta& meta = impl->ensure_autograd_meta();
  if (fn) {
    meta.grad_fn = std::move(fn);
    meta.output_nr = output_nr_;
  } else {
    meta.requires_grad = true;
    meta.grad_accumulator = grad_accumulator_;
  }
  return Tensor(std::move(impl));
}

void SavedVariable::reset_data() {
  hooks_.reset();
  data_.reset();
  grad_fn_.reset();
  weak_grad_fn_.reset();
  grad_accumulator_.reset();
  released_ = true;
}

size_t SavedVariable::nbytes() const { return data_.defined() ? data_.nbytes() : 0; }

std::vector<SavedVariable> save_list(TensorList tensors, bool is_output) {
  std::vector<SavedVariable> saved;
  saved.reserve(tensors.size());
  for (const Tensor& t : tensors) saved.emplace_back(t, is_output);
  return saved;
}

std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& saved_for) {
  std::vector<Tensor> tensors;
  tensors.reserve(saved.size());
  for (const SavedVariable& v : saved) tensors.push_back(v.unpack(saved_for));
  return tensors;
}

std::optional<Tensor> unpack_optional(const SavedVariable& saved, const std::shared_ptr<Node>& saved_for) {
  if (!saved.defined()) return std::nullopt;
  return saved.unpack(saved_for);
}

}  // namespace tl::autograd
