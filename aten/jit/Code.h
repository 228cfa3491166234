// A graph compiled for the interpreter (Interpreter.cpp runs it): a flat list of instructions per
// block, each with its op resolved (the boxed Operator, the prim op, the fusion group's node), its
// inputs as register numbers or indices into a table of constants loaded once at compile time,
// its outputs' registers, and the registers to clear after it (values at their last use, as eager
// code drops a temporary). A value's last use moves it out of its register instead of copying it.
// Compiled once per graph version (Graph::version) and shared by every call and thread.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aten/jit/IR.h"
#include "aten/jit/PrimOps.h"

namespace tl::jit {

// An operand: a register, or (kConstBit) an index into Code::constants; kMoveBit on a register
// marks the value's last use (it is moved out, leaving None).
constexpr uint32_t kConstBit = 1u << 31;
constexpr uint32_t kMoveBit = 1u << 30;
constexpr uint32_t kIndexMask = kMoveBit - 1;

enum class InstrKind : uint8_t {
  Op,              // an aten:: node: its boxed op
  Prim,            // a prim op of PrimOps.h (script's int/list/str ops)
  GetAttr,         // prim::GetAttr[name]
  ListConstruct,
  TupleConstruct,
  Unpack,          // prim::ListUnpack / prim::TupleUnpack
  If,              // blocks: then, else
  Loop,            // block: the body
  Fusion,          // prim::FusionGroup (FusionExecutor.h)
  Enter,           // prim::Enter(ctx): notes the `with` block entered and its exit block (run if an error leaves it)
  Exit,            // prim::Exit: forgets the innermost entered block
  Generic,         // anything else: the node-at-a-time path, which raises what cannot run
  Undefined,       // reads a value not defined before it: raises when reached
};

// Prim ops the interpreter runs inline on their registers, for the operand types they are written
// for (ints, bools, tensors, lists): no stack, no result vector. Other types take the prim op's own
// function, which gives the same results and raises the same errors (PrimOps.cpp).
enum class FastPrim : uint8_t { None, Dim, SizeDim, Len, Eq, Ne, Lt, Le, Gt, Ge, Is, IsNot, Not, Cast, GetItem,
                                Add, Sub, Mul, FloorDiv, Mod };

struct Instr {
  InstrKind kind;
  FastPrim fast = FastPrim::None;  // Prim: its inline form, if any
  const Node* node;
  const Operator* op = nullptr;
  const PrimOp* prim = nullptr;
  const std::string* name = nullptr;  // GetAttr: the attribute
  uint32_t in = 0, n_in = 0;          // Code::operands
  uint32_t out = 0, n_out = 0;        // Code::regs: output registers
  uint32_t drop = 0, n_drop = 0;      // Code::regs: cleared after the instruction
  uint32_t blocks = 0, n_blocks = 0;  // Code::block_ids
  uint32_t error = 0;                 // Undefined: index into Code::errors
  int32_t cls = -1;                   // TupleConstruct of a named tuple: its class, index into Code::classes
};

struct CodeBlock {
  uint32_t begin = 0, end = 0;  // Code::instrs
  uint32_t in = 0, n_in = 0;    // Code::regs: the block's inputs
  uint32_t out = 0, n_out = 0;  // Code::operands: the block's outputs
  int32_t error = -1;           // an output not defined in scope: Code::errors
};

struct Code {
  std::vector<Instr> instrs;
  std::vector<CodeBlock> blocks;  // blocks[0] is the graph's
  std::vector<uint32_t> block_ids;
  std::vector<uint32_t> operands;
  std::vector<uint32_t> regs;
  std::vector<IValue> constants;
  std::vector<std::string> errors;
  std::vector<std::string> classes;  // named tuples' classes (the tags of the tuples they make)
  uint32_t n_regs = 0;
  size_t n_inputs = 0;
};

// The compiled form of `graph` (compiled on first use and after each edit of the graph).
std::shared_ptr<const Code> compiled_code(const Graph& graph);

}  // namespace tl::jit
