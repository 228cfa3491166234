#include "aten/jit/Interpreter.h"

#include <chrono>

#include "aten/core/Exception.h"
#include "aten/jit/Code.h"
#include "aten/jit/FusionExecutor.h"
#include "aten/jit/InstrProfile.h"
#include "aten/jit/PrimOps.h"

namespace tl::jit {
namespace {

// Runs one node given its inputs' values, outside a compiled graph (run_node, and the instructions
// the compiler left generic: they raise what cannot run).
std::vector<IValue> execute(const Node& n, Stack& stack) {
  const std::string& k = n.kind();
  if (const Operator* op = n.op()) {
    run_op(*op, stack);
    TL_CHECK(stack.size() == n.outputs().size(), "jit: ", k, " produced ", stack.size(), " values for ",
             n.outputs().size(), " outputs");
    return std::move(stack);
  }
  if (k == "prim::Constant") return {n.hasAttribute("value") ? n.attr("value") : IValue()};
  if (k == "prim::ListConstruct") return {IValue::list(std::move(stack))};
  if (k == "prim::TupleConstruct") {
    const TypePtr& t = n.outputs().size() == 1 ? n.output()->type() : nullptr;
    if (t && t->kind == Type::Kind::Tuple && !t->fields.empty() && !t->name.empty())
      return {IValue::named_tuple(t->name, std::move(stack))};
    return {IValue::tuple(std::move(stack))};
  }
  if (k == "prim::TupleUnpack" || k == "prim::ListUnpack") {
    TL_CHECK(stack.size() == 1, "jit: ", k, " takes one input");
    std::vector<IValue> elems = stack[0].toListRef();
    TL_CHECK(elems.size() == n.outputs().size(), "jit: ", k, ": expected ", n.outputs().size(),
             " elements, got ", elems.size());
    return elems;
  }
  if (k == "prim::GetAttr") {
    TL_CHECK(stack.size() == 1, "jit: prim::GetAttr takes one input");
    const std::string& name = n.attr("name").toStringRef();
    const auto& obj = stack[0].toObject();
    auto it = obj->attrs.find(name);
    TL_CHECK(it != obj->attrs.end(), "jit: module ", obj->type_name, " has no attribute '", name, "'");
    return {it->second};
  }
  if (k == "prim::FusionGroup") return run_fusion_group(n, std::move(stack));
  if (k == "prim::If") TL_CHECK(false, "jit: prim::If needs two blocks and one input");
  if (k == "prim::Loop") TL_CHECK(false, "jit: malformed prim::Loop");
  if (const PrimOp* prim = find_prim(k)) {
    std::string bad = prim_shape_error(*prim, stack.size(), n.outputs().size());
    TL_CHECK(bad.empty(), "jit: malformed node: ", bad);
    return prim->fn(stack, n);
  }
  throw NotImplementedError(str("jit: the interpreter cannot run a ", k, " node"));
}

// One call's registers and operand stack, and the `with` blocks entered and not exited: each one's exit
// block (compiled id) and the value prim::Enter gave it (the context object, or the grad mode to restore).
struct Frame {
  std::vector<IValue> regs;
  Stack stack;
  std::vector<std::pair<uint32_t, IValue>> entered;
};

inline void push(const Code& c, Frame& f, uint32_t operand) {
  if (operand & kConstBit) {
    f.stack.push_back(c.constants[operand & kIndexMask]);
  } else if (operand & kMoveBit) {
    f.stack.push_back(std::move(f.regs[operand & kIndexMask]));
  } else {
    f.stack.push_back(f.regs[operand & kIndexMask]);
  }
}

inline IValue take(const Code& c, Frame& f, uint32_t operand) {
  if (operand & kConstBit) return c.constants[operand & kIndexMask];
  if (operand & kMoveBit) return std::move(f.regs[operand & kIndexMask]);
  return f.regs[operand & kIndexMask];
}

void set_outputs(const Code& c, Frame& f, const Instr& ins, std::vector<IValue>& values) {
  TL_CHECK(values.size() == ins.n_out, "jit: ", ins.node->kind(), " gave ", values.size(), " values for ",
           ins.n_out, " outputs");
  for (uint32_t k = 0; k < ins.n_out; ++k) f.regs[c.regs[ins.out + k]] = std::move(values[k]);
}

// Runs block `id`: its outputs are appended to `results`, or (with `dest`) moved into those registers.
template <bool kProfile>
void run_block(const Code& c, uint32_t id, Frame& f, std::vector<IValue>* results, const uint32_t* dest = nullptr);

inline const IValue& operand_ref(const Code& c, const Frame& f, uint32_t operand) {
  return (operand & kConstBit) ? c.constants[operand & kIndexMask] : f.regs[operand & kIndexMask];
}

// An inline prim op (FastPrim): the result for the operand types it is written for, or false (nothing
// read or changed) for the prim op's own function to run. Same results as PrimOps.cpp's functions.
inline bool run_fast(const Code& c, const Instr& ins, Frame& f) {
  using Tag = IValue::Tag;
  const uint32_t* ops = &c.operands[ins.in];
  const IValue& a = operand_ref(c, f, ops[0]);
  const IValue* b = ins.n_in > 1 ? &operand_ref(c, f, ops[1]) : nullptr;
  const Tag ta = a.tag();
  const bool ints = b != nullptr && ta == Tag::Int && b->tag() == Tag::Int;
  IValue r;
  switch (ins.fast) {
    case FastPrim::Dim:
      if (ta != Tag::Tensor) return false;
      r = IValue(a.toTensor().dim());
      break;
    case FastPrim::SizeDim: {
      if (ta != Tag::Tensor || b->tag() != Tag::Int) return false;
      const Tensor& t = a.toTensor();
      const int64_t nd = t.dim(), d = b->toInt();
      if (d < -nd || d >= nd) return false;  // the prim op raises its IndexError
      r = IValue(t.sizes()[d < 0 ? d + nd : d]);
      break;
    }
    case FastPrim::Len:
      if (ta != Tag::List && ta != Tag::Tuple) return false;
      r = IValue(static_cast<int64_t>(a.toListRef().size()));
      break;
    case FastPrim::Eq:
    case FastPrim::Ne: {
      bool eq;
      if (ints) eq = a.toInt() == b->toInt();
      else if (ta == Tag::Bool && b->tag() == Tag::Bool) eq = a.toBool() == b->toBool();
      else if (ta == Tag::None || b->tag() == Tag::None) eq = ta == b->tag();  // equal() on None: same()
      else return false;
      r = IValue(ins.fast == FastPrim::Eq ? eq : !eq);
      break;
    }
    case FastPrim::Lt: if (!ints) return false; r = IValue(a.toInt() < b->toInt()); break;
    case FastPrim::Le: if (!ints) return false; r = IValue(a.toInt() <= b->toInt()); break;
    case FastPrim::Gt: if (!ints) return false; r = IValue(a.toInt() > b->toInt()); break;
    case FastPrim::Ge: if (!ints) return false; r = IValue(a.toInt() >= b->toInt()); break;
    case FastPrim::Is: r = IValue(a.same(*b)); break;
    case FastPrim::IsNot: r = IValue(!a.same(*b)); break;
    case FastPrim::Not:
      if (ta != Tag::Bool) return false;
      r = IValue(!a.toBool());
      break;
    case FastPrim::Cast: r = a; break;
    case FastPrim::GetItem: {
      if ((ta != Tag::List && ta != Tag::Tuple) || b->tag() != Tag::Int) return false;
      const auto& xs = a.toListRef();
      const int64_t n = static_cast<int64_t>(xs.size()), i = b->toInt();
      if (i < -n || i >= n) return false;  // the prim op raises its IndexError
      r = xs[static_cast<size_t>(i < 0 ? i + n : i)];
      break;
    }
    // int64 arithmetic wraps around, as the prim ops' (done unsigned: no undefined behaviour)
    case FastPrim::Add:
      if (!ints) return false;
      r = IValue(static_cast<int64_t>(static_cast<uint64_t>(a.toInt()) + static_cast<uint64_t>(b->toInt())));
      break;
    case FastPrim::Sub:
      if (!ints) return false;
      r = IValue(static_cast<int64_t>(static_cast<uint64_t>(a.toInt()) - static_cast<uint64_t>(b->toInt())));
      break;
    case FastPrim::Mul:
      if (!ints) return false;
      r = IValue(static_cast<int64_t>(static_cast<uint64_t>(a.toInt()) * static_cast<uint64_t>(b->toInt())));
      break;
    // Python's floor division and modulo, for a positive divisor (the result takes the divisor's
    // sign; nothing overflows); zero or negative divisors take the prim op (its errors, INT64_MIN / -1)
    case FastPrim::FloorDiv: {
      if (!ints || b->toInt() <= 0) return false;
      const int64_t x = a.toInt(), y = b->toInt();
      r = IValue(x / y - ((x % y != 0 && x < 0) ? 1 : 0));
      break;
    }
    case FastPrim::Mod: {
      if (!ints || b->toInt() <= 0) return false;
      const int64_t x = a.toInt(), y = b->toInt(), m = x % y;
      r = IValue(m < 0 ? m + y : m);
      break;
    }
    case FastPrim::None:
      return false;
  }
  for (uint32_t k = 0; k < ins.n_in; ++k)  // a last use: the register is emptied, as a move would
    if ((ops[k] & kMoveBit) && !(ops[k] & kConstBit)) f.regs[ops[k] & kIndexMask] = IValue();
  f.regs[c.regs[ins.out]] = std::move(r);
  return true;
}

inline void drop_dead(const Code& c, const Instr& ins, Frame& f) {
  for (uint32_t k = 0; k < ins.n_drop; ++k) f.regs[c.regs[ins.drop + k]] = IValue();
}

// Runs one instruction (its inputs are read here; its outputs go to their registers).
template <bool kProfile>
inline void run_instr(const Code& c, const Instr& ins, Frame& f) {
  if (ins.fast != FastPrim::None && ins.kind == InstrKind::Prim && run_fast(c, ins, f)) {
    drop_dead(c, ins, f);
    return;
  }
  if (ins.kind == InstrKind::If) {  // the condition read in place; the taken block's outputs go to the If's registers
    const uint32_t op = c.operands[ins.in];
    const bool cond = operand_ref(c, f, op).toBool();
    if ((op & kMoveBit) && !(op & kConstBit)) f.regs[op & kIndexMask] = IValue();
    const uint32_t id = c.block_ids[ins.blocks + (cond ? 0 : 1)];
    TL_CHECK(c.blocks[id].n_out == ins.n_out, "jit: prim::If gave ", c.blocks[id].n_out, " values for ", ins.n_out,
             " outputs");
    run_block<kProfile>(c, id, f, nullptr, &c.regs[ins.out]);
    drop_dead(c, ins, f);
    return;
  }
  Stack& stack = f.stack;
  stack.clear();
  for (uint32_t k = 0; k < ins.n_in; ++k) push(c, f, c.operands[ins.in + k]);
  switch (ins.kind) {
    case InstrKind::Op:
      run_op(*ins.op, stack);
      TL_CHECK(stack.size() == ins.n_out, "jit: ", ins.node->kind(), " produced ", stack.size(), " values for ",
               ins.n_out, " outputs");
      for (uint32_t k = 0; k < ins.n_out; ++k) f.regs[c.regs[ins.out + k]] = std::move(stack[k]);
      break;
    case InstrKind::Prim: {
      std::vector<IValue> outs = ins.prim->fn(stack, *ins.node);
      set_outputs(c, f, ins, outs);
      break;
    }
    case InstrKind::GetAttr: {
      const auto& obj = stack[0].toObject();
      auto it = obj->attrs.find(*ins.name);
      TL_CHECK(it != obj->attrs.end(), "jit: module ", obj->type_name, " has no attribute '", *ins.name, "'");
      f.regs[c.regs[ins.out]] = it->second;
      break;
    }
    case InstrKind::ListConstruct:
      f.regs[c.regs[ins.out]] = IValue::list(std::vector<IValue>(std::make_move_iterator(stack.begin()),
                                                                 std::make_move_iterator(stack.end())));
      break;
    case InstrKind::TupleConstruct: {
      std::vector<IValue> elems(std::make_move_iterator(stack.begin()), std::make_move_iterator(stack.end()));
      f.regs[c.regs[ins.out]] = ins.cls < 0 ? IValue::tuple(std::move(elems))
                                            : IValue::named_tuple(c.classes[ins.cls], std::move(elems));
      break;
    }
    case InstrKind::Unpack: {
      std::vector<IValue> elems = stack[0].toListRef();
      TL_CHECK(elems.size() == ins.n_out, "jit: ", ins.node->kind(), ": expected ", ins.n_out,
               " elements, got ", elems.size());
      set_outputs(c, f, ins, elems);
      break;
    }
    case InstrKind::If:
      break;  // (above)
    case InstrKind::Loop: {
      // prim::Loop(%max_trip_count, %initial_condition, %carried...): block0(%i, %carried...) -> (%cond, %carried...)
      const uint32_t body_id = c.block_ids[ins.blocks];
      const CodeBlock& body = c.blocks[body_id];
      const int64_t trips = stack[0].toInt();
      bool cond = stack[1].toBool();
      std::vector<IValue> carried(std::make_move_iterator(stack.begin() + 2), std::make_move_iterator(stack.end()));
      stack.clear();
      std::vector<IValue> outs;
      for (int64_t i = 0; i < trips && cond; ++i) {
        f.regs[c.regs[body.in]] = IValue(i);
        for (size_t j = 0; j < carried.size(); ++j) f.regs[c.regs[body.in + 1 + j]] = std::move(carried[j]);
        outs.clear();
        run_block<kProfile>(c, body_id, f, &outs);
        cond = outs[0].toBool();
        carried.assign(std::make_move_iterator(outs.begin() + 1), std::make_move_iterator(outs.end()));
      }
      set_outputs(c, f, ins, carried);
      break;
    }
    case InstrKind::Enter:
      f.entered.emplace_back(c.block_ids[ins.blocks], std::move(stack[0]));
      break;
    case InstrKind::Exit:
      TL_CHECK(!f.entered.empty(), "jit: prim::Exit without a prim::Enter");
      f.entered.pop_back();
      break;
    case InstrKind::Fusion: {
      std::vector<IValue> outs = run_fusion_group(*ins.node, std::move(stack));
      stack = Stack();
      set_outputs(c, f, ins, outs);
      break;
    }
    case InstrKind::Generic: {
      std::vector<IValue> outs = execute(*ins.node, stack);
      set_outputs(c, f, ins, outs);
      break;
    }
    case InstrKind::Undefined:
      TL_CHECK(false, c.errors[ins.error]);
  }
  stack.clear();  // the inputs' references, before the last ones are dropped
  drop_dead(c, ins, f);
}

// The profiled step: the instruction's own time (what nested blocks ran is theirs) is recorded under its kind.
thread_local double t_nested = 0;

void run_instr_profiled(const Code& c, const Instr& ins, Frame& f) {
  const double outer = t_nested;
  t_nested = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto record = [&] {
    const double e = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    record_instruction(ins.node->kind(), e - t_nested);
    // the parent's own time excludes this instruction's and the bookkeeping's
    t_nested = outer + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  try {
    run_instr<true>(c, ins, f);
  } catch (...) {
    record();
    throw;
  }
  record();
}

template <bool kProfile>
void run_block(const Code& c, uint32_t id, Frame& f, std::vector<IValue>* results, const uint32_t* dest) {
  const CodeBlock& b = c.blocks[id];
  for (uint32_t pc = b.begin; pc < b.end; ++pc) {
    if constexpr (kProfile) {
      run_instr_profiled(c, c.instrs[pc], f);
    } else {
      run_instr<false>(c, c.instrs[pc], f);
    }
  }
  TL_CHECK(b.error < 0, c.errors[b.error < 0 ? 0 : b.error]);
  if (dest != nullptr) {
    for (uint32_t k = 0; k < b.n_out; ++k) f.regs[dest[k]] = take(c, f, c.operands[b.out + k]);
  } else {
    for (uint32_t k = 0; k < b.n_out; ++k) results->push_back(take(c, f, c.operands[b.out + k]));
  }
}

// An error leaves the graph: as torch's interpreter, the exit of every `with` block entered and not exited
// runs, innermost first, before the error goes on; an error of an exit is ignored (torch ignores it too).
void run_exits(const Code& c, Frame& f) {
  while (!f.entered.empty()) {
    auto [id, ctx] = std::move(f.entered.back());
    f.entered.pop_back();
    f.regs[c.regs[c.blocks[id].in]] = std::move(ctx);
    std::vector<IValue> none;
    try {
      run_block<false>(c, id, f, &none);
    } catch (...) {
    }
  }
}

}  // namespace

std::vector<IValue> run_graph(const Graph& graph, std::vector<IValue> inputs) {
  TL_CHECK_TYPE(inputs.size() == graph.inputs().size(), "forward() expected ", graph.inputs().size(),
                " arguments but got ", inputs.size());
  const std::shared_ptr<const Code> code = compiled_code(graph);
  const Code& c = *code;
  Frame f;
  f.regs.resize(c.n_regs);
  f.stack.reserve(8);
  const CodeBlock& top = c.blocks[0];
  for (uint32_t k = 0; k < top.n_in; ++k) f.regs[c.regs[top.in + k]] = std::move(inputs[k]);
  std::vector<IValue> results;
  results.reserve(top.n_out);
  try {
    if (instruction_profiling()) {
      run_block<true>(c, 0, f, &results);
    } else {
      run_block<false>(c, 0, f, &results);
    }
  } catch (...) {
    if (!f.entered.empty()) run_exits(c, f);
    throw;
  }
  return results;
}

std::vector<IValue> run_node(const Node& node, std::vector<IValue> inputs) {
  TL_CHECK(node.blocks().empty(), "jit: run_node cannot run ", node.kind(), " (it has blocks)");
  TL_CHECK(inputs.size() == node.inputs().size(), "jit: ", node.kind(), " takes ", node.inputs().size(),
           " inputs, got ", inputs.size());
  return execute(node, inputs);
}

}  // namespace tl::jit
