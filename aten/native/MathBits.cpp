// Resolving the lazy conjugate/negative bits for the dispatcher's fallback (aten/core/MathBits.h).
#include "aten/core/MathBits.h"

#include "generated/ops/conj_physical.h"
#include "generated/ops/copy.h"
#include "generated/ops/neg.h"
#include "generated/ops/resize.h"
#include "generated/ops/resolve_conj.h"
#include "generated/ops/resolve_neg.h"

namespace tl {
namespace math_bits {

Tensor physical(const Tensor& t) {
  if (!t.defined() || t.math_bits() == 0) return t;
  Tensor p(intrusive_ptr<TensorImpl>::make(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset()));
  p.impl()->set_wrapped_number(t.impl()->is_wrapped_number());
  return p;
}

Tensor resolved(const Tensor& t) {
  const uint8_t bits = t.math_bits();
  if (bits == 0) return t;
  Tensor r = physical(t);
  const bool conj = (bits & TensorImpl::kConjBit) != 0;
  if (conj) r = conj_physical(r);
  if (bits & TensorImpl::kNegBit) r = conj ? neg_(r) : neg(r);  // conj_physical made a new tensor
  return r;
}

std::optional<Tensor> resolved(const std::optional<Tensor>& t) {
  if (!t) return t;
  return resolved(*t);
}

std::vector<Tensor> resolved(TensorList ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(resolved(t));
  return out;
}

std::vector<std::optional<Tensor>> resolved(const std::vector<std::optional<Tensor>>& ts) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(resolved(t));
  return out;
}

Tensor resolved_differentiable(const Tensor& t) {
  if (t.math_bits() == 0) return t;
  return resolve_conj(resolve_neg(t));
}

std::optional<Tensor> resolved_differentiable(const std::optional<Tensor>& t) {
  if (!t) return t;
  return resolved_differentiable(*t);
}

std::vector<Tensor> resolved_differentiable(TensorList ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(resolved_differentiable(t));
  return out;
}

std::vector<std::optional<Tensor>> resolved_differentiable(const std::vector<std::optional<Tensor>>& ts) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(resolved_differentiable(t));
  return out;
}

Tensor WriteBack::arg(const Tensor& t) {
  if (t.math_bits() == 0) return t;
  Tensor r = resolved(t);
  pending_.emplace_back(t, r);
  return r;
}

std::vector<Tensor> WriteBack::list(TensorList ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(arg(t));
  return out;
}

void WriteBack::finish() {
  for (auto& [t, r] : pending_) {
    if (!t.sizes().equals(r.sizes())) resize_(t, r.sizes());  // an out= tensor the kernel resized
    copy_(t, r);
  }
  pending_.clear();
}

}  // namespace math_bits
}  // namespace tl
