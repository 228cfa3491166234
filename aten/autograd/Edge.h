#pragma once
#include <cstdint>
#include <memory>

namespace tl::autograd {
struct Node;

// Where a gradient goes: input number `input_nr` of `function`. An Edge with no function
// marks an input that needs no gradient.
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

}  // namespace tl::autograd
