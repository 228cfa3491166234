// The interpreter's non-tensor operations (`prim::` kinds that script emits): Python's int/float/bool
// and str arithmetic and comparisons, list/tuple/dict methods, len/indexing, conversions, tensor
// sizes, `raise`. Tensor ops never come here: they are the YAML's boxed ops (OpRegistry.h).
// Lists are shared boxes (as Python's): `prim::append` writes its first input, visible through every
// value holding the list. A dict is a list of alternating keys and values (small dicts, linear lookup).
#pragma once
#include <string>
#include <vector>

#include "aten/jit/IValue.h"

namespace tl::jit {

class Node;

enum PrimFlags : uint8_t {
  kPrimWritesFirst = 1,  // mutates its first input (a list or dict)
  kPrimEffect = 2,       // run for its effect (raises): never removed, folded or merged
};

constexpr int8_t kAnyCount = -1, kEvenCount = -2, kOptionalOne = -3;

struct PrimOp {
  const char* kind;  // "prim::add"
  std::vector<IValue> (*fn)(Stack& inputs, const Node& node);
  uint8_t flags;
  int8_t inputs;   // how many inputs, or kAnyCount / kEvenCount / kOptionalOne
  int8_t outputs;  // how many outputs
};

// The prim op of `kind`, or nullptr (prim::If, Loop, Constant, ... are the interpreter's own).
const PrimOp* find_prim(const std::string& kind);
// Why a node of this prim op's kind with these input and output counts cannot run ("" when it can):
// the loader refuses such nodes, the interpreter checks before running one.
std::string prim_shape_error(const PrimOp& op, size_t inputs, size_t outputs);

// prim::PythonOp (a call of an @ignore'd Python function) runs through this handler, installed by
// the Python bindings (aten knows no Python); without one the node raises.
using PythonOpHandler = std::vector<IValue> (*)(const Node& node, Stack& inputs);
void set_python_op_handler(PythonOpHandler handler);

// Every kind of the table (for the docs' test that each one is covered).
std::vector<std::string> prim_kinds();

}  // namespace tl::jit
