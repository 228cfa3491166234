// Helpers for the generated boxed wrappers (generated/jit/ops_<k>.cpp).
#pragma once
#include <iterator>

#include "aten/jit/OpRegistry.h"

namespace tl::jit {

// The first of the n arguments on top of the stack.
inline IValue* args(Stack& s, size_t n) { return s.data() + (s.size() - n); }
inline void drop(Stack& s, size_t n) { s.resize(s.size() - n); }

// Replaces the n arguments by the result. The result is boxed (copied) before the arguments go:
// an in-place op's `const Tensor&` result refers to one of them.
inline void finish(Stack& s, size_t n, IValue result) {
  drop(s, n);
  s.push_back(std::move(result));
}
template <typename... Ts>
void finish(Stack& s, size_t n, const std::tuple<Ts...>& result) {
  IValue boxed[sizeof...(Ts)];
  size_t i = 0;
  std::apply([&](const auto&... v) { ((boxed[i++] = IValue(v)), ...); }, result);
  drop(s, n);
  for (IValue& v : boxed) s.push_back(std::move(v));
}

}  // namespace tl::jit
