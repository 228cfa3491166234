// Runs a Graph: every aten:: node calls its boxed op (the same dispatcher as eager code, so
// autograd, the Meta device and every YAML op work), prim:: nodes are handled here. No Python.
#pragma once
#include "aten/jit/IR.h"

namespace tl::jit {

// Runs `graph` on `inputs` (one per graph input) and returns its outputs.
std::vector<IValue> run_graph(const Graph& graph, std::vector<IValue> inputs);
// Runs one node on the values of its inputs, giving its outputs' values (constant folding).
std::vector<IValue> run_node(const Node& node, std::vector<IValue> inputs);

}  // namespace tl::jit
