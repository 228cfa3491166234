// Helpers for the generated boxed wrappers (generated/jit/ops_<k>.cpp).
#pragma once
#include <iterator>

#include "aten/jit/OpRegistry.h"

namespace tl::jit {

// The first of the n arguments on top of the stack.
inline IValue* args(Stack& s, size_t n) { return s.data() + (s.size() - n); }
// Out of line (BoxedSupport.cpp), as the vector's members: less code in each of the 64 shards.
void drop(Stack& s, size_t n);

// Replaces the n arguments by the result(s). The results are boxed (copied) before the arguments
// go: an in-place op's `const Tensor&` result refers to one of them.
void finish(Stack& s, size_t n, IValue result);
void finish_many(Stack& s, size_t n, IValue* results, size_t count);
template <typename... Ts>
void finish(Stack& s, size_t n, const std::tuple<Ts...>& result) {
  IValue boxed[sizeof...(Ts)];
  size_t i = 0;
  std::apply([&](const auto&... v) { ((boxed[i++] = IValue(v)), ...); }, result);
  finish_many(s, n, boxed, sizeof...(Ts));
}

}  // namespace tl::jit
