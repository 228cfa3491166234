// Resolving the lazy conjugate/negative bits for the dispatcher's fallback (aten/core/MathBits.h).
#include "aten/core/MathBits.h"

#include <type_traits>

#include "generated/ops/conj_physical.h"
#include "generated/ops/copy.h"
#include "generated/ops/neg.h"
#include "generated/ops/resize.h"
#include "generated/ops/resolve_conj.h"
#include "generated/ops/resolve_neg.h"

namespace tl {
namespace math_bits {

namespace {

// One resolution applied to an optional tensor, a list, or a list of optionals (the argument kinds of the schema).
template <Tensor (*Resolve)(const Tensor&)>
std::optional<Tensor> each(const std::optional<Tensor>& t) {
  if (!t) return t;
  return Resolve(*t);
}

template <Tensor (*Resolve)(const Tensor&), typename List, typename Item>
std::vector<Item> each_of(const List& ts) {
  std::vector<Item> out;
  out.reserve(ts.size());
  for (const auto& t : ts) {
    if constexpr (std::is_same_v<Item, Tensor>) out.push_back(Resolve(t));
    else out.push_back(each<Resolve>(t));
  }
  return out;
}

}  // namespace

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

std::optional<Tensor> resolved(const std::optional<Tensor>& t) { return each<resolved>(t); }
std::vector<Tensor> resolved(TensorList ts) { return each_of<resolved, TensorList, Tensor>(ts); }
std::vector<std::optional<Tensor>> resolved(const std::vector<std::optional<Tensor>>& ts) {
  return each_of<resolved, std::vector<std::optional<Tensor>>, std::optional<Tensor>>(ts);
}

Tensor resolved_differentiable(const Tensor& t) {
  if (t.math_bits() == 0) return t;
  return resolve_conj(resolve_neg(t));
}

std::optional<Tensor> resolved_differentiable(const std::optional<Tensor>& t) {
  return each<resolved_differentiable>(t);
}
std::vector<Tensor> resolved_differentiable(TensorList ts) {
  return each_of<resolved_differentiable, TensorList, Tensor>(ts);
}
std::vector<std::optional<Tensor>> resolved_differentiable(const std::vector<std::optional<Tensor>>& ts) {
  return each_of<resolved_differentiable, std::vector<std::optional<Tensor>>, std::optional<Tensor>>(ts);
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
