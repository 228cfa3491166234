// The autograd accessors of tl::Tensor (declared in aten/core/Tensor.h).
#include <memory>

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/CreationMeta.h"
#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"

namespace tl {

using autograd::AutogradMeta;

namespace {
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
const std::shared_ptr<autograd::Node>& null_node() {
  static const std::shared_ptr<autograd::Node> n;
  return n;
}
}  // namespace

bool Tensor::requires_grad() const {
  if (!defined()) return false;
  const AutogradMeta* meta = impl_->autograd_meta();
  if (meta && (meta->requires_grad || meta->grad_fn != nullptr)) return true;
  // A view (even one made in no_grad mode) requires grad when its base does, as in PyTorch.
  const auto& base = impl_->view_base();
  if (!base) return false;
  const AutogradMeta* base_meta = base->autograd_meta();
  return base_meta && (base_meta->requires_grad || base_meta->grad_fn != nullptr);
}

void Tensor::set_requires_grad(bool value) const {
  TL_CHECK(defined(), "requires_grad_: the tensor is undefined");
  AutogradMeta* meta = impl_->autograd_meta();
  if (meta && meta->grad_fn) {
    // A non-leaf requires grad through its history; asking for that again is harmless.
    TL_CHECK(value,
             "you can only change requires_grad flags of leaf variables. If you want to use a computed "
             "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return;
  }
  if (value) {
    TL_CHECK(is_floating_type(dtype()) || is_complex_type(dtype()),
             "only Tensors of floating point and complex dtype can require gradients");
    TL_CHECK(!impl_->is_inference() || autograd::InferenceMode::is_enabled(),
             "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    impl_->ensure_autograd_meta().requires_grad = true;
  } else if (meta) {
    meta->requires_grad = false;
  }
}

bool Tensor::is_leaf() const {
  if (!defined()) return true;
  return !grad_fn();  // grad_fn(): a view of a base that got history since may get one now
}

const Tensor& Tensor::grad() const {
  if (!defined()) return undefined_tensor();
  const AutogradMeta* meta = impl_->autograd_meta();
  return meta ? meta->grad : undefined_tensor();
}

Tensor& Tensor::mutable_grad() const {
  TL_CHECK(defined(), "grad: the tensor is undefined");
  return impl_->ensure_autograd_meta().grad;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  if (!defined()) return null_node();
  AutogradMeta* meta = impl_->autograd_meta();
  if (!meta || (!meta->grad_fn && !meta->requires_grad)) {
    // A view made (unrecorded) in grad mode of a base that did not require grad then, and has
    // history now (an in-place op through another view): it reads the base's new value.
    const auto& base = impl_->view_base();
    if (!base || !impl_->view_made_in_grad_mode()) return meta ? meta->grad_fn : null_node();
    const AutogradMeta* base_meta = base->autograd_meta();
    if (!base_meta || !base_meta->grad_fn) return meta ? meta->grad_fn : null_node();
    autograd::regenerate_view_grad_fn(*this);
    return impl_->autograd_meta()->grad_fn;
  }
  if (meta->is_differentiable_view && meta->grad_fn && meta->view_version != version()) {
    // The base or another view of it changed in place after this view's history was recorded.
    const auto& base = impl_->view_base();
    const AutogradMeta* base_meta = base ? base->autograd_meta() : nullptr;
    if (base_meta && base_meta->grad_fn) {
      autograd::regenerate_view_grad_fn(*this);
    } else {
      autograd::handle_view_on_rebase(*this, /*indirect=*/true);  // a split/unbind output of a leaf
      meta->view_version = version();
    }
  }
  return meta->grad_fn;
}

uint32_t Tensor::output_nr() const {
  if (!defined()) return 0;
  const AutogradMeta* meta = impl_->autograd_meta();
  if (!meta) return 0;
  grad_fn();  // a view's history may be regenerated first
  return meta->output_nr;
}

}  // namespace tl
