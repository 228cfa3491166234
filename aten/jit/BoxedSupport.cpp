#include "aten/jit/BoxedSupport.h"

namespace tl::jit {

void drop(Stack& s, size_t n) { s.resize(s.size() - n); }

void finish(Stack& s, size_t n, IValue result) {
  drop(s, n);
  s.push_back(std::move(result));
}

void finish_many(Stack& s, size_t n, IValue* results, size_t count) {
  drop(s, n);
  for (size_t i = 0; i < count; ++i) s.push_back(std::move(results[i]));
}

}  // namespace tl::jit
