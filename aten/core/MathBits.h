// The dispatcher's side of the lazy conjugate/negative bits (TensorImpl::math_bits; docs/complex.md),
// as PyTorch's Conjugate and Negative fallbacks: an op whose YAML entry does not handle the bits reads
// its inputs resolved (their logical values, materialized), and writes a tensor with a bit through a
// resolved copy that is copied back afterwards. Included by the generated dispatch shards.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl {
namespace math_bits {

inline uint8_t of(const Tensor& t) { return t.math_bits(); }
inline uint8_t of(const std::optional<Tensor>& t) { return t ? t->math_bits() : 0; }
inline uint8_t of(TensorList ts) {
  uint8_t bits = 0;
  for (const Tensor& t : ts) bits |= t.math_bits();
  return bits;
}
inline uint8_t of(const std::vector<std::optional<Tensor>>& ts) {
  uint8_t bits = 0;
  for (const auto& t : ts) bits |= of(t);
  return bits;
}

// The same storage and geometry without the bits (what the memory holds).
Tensor physical(const Tensor& t);
// The logical value without bits: `t` itself when it has none, otherwise a new tensor.
Tensor resolved(const Tensor& t);
std::optional<Tensor> resolved(const std::optional<Tensor>& t);
std::vector<Tensor> resolved(TensorList ts);
std::vector<std::optional<Tensor>> resolved(const std::vector<std::optional<Tensor>>& ts);
// The same through the public resolve_conj/resolve_neg: recorded by autograd (for composite ops, which
// run above it).
Tensor resolved_differentiable(const Tensor& t);
std::optional<Tensor> resolved_differentiable(const std::optional<Tensor>& t);
std::vector<Tensor> resolved_differentiable(TensorList ts);
std::vector<std::optional<Tensor>> resolved_differentiable(const std::vector<std::optional<Tensor>>& ts);

// Written arguments of a fallback call: arg()/list() give what the kernel writes (the tensor itself,
// or a resolved copy of one with a bit); finish() copies the copies back into their tensors.
class WriteBack {
 public:
  Tensor arg(const Tensor& t);
  std::vector<Tensor> list(TensorList ts);
  void finish();

 private:
  std::vector<std::pair<Tensor, Tensor>> pending_;
};

}  // namespace math_bits
}  // namespace tl
