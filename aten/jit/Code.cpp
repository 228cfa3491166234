#include "aten/jit/Code.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "aten/core/Exception.h"

namespace tl::jit {
namespace {

constexpr uint32_t kNone = ~0u;  // a value not visible at this point (not defined yet, or out of scope)

// Every value a node reads: its inputs, and what the nodes and outputs of its blocks read (a use
// inside a prim::If / prim::Loop counts as a use by the node that owns the block).
void collect_uses(const Node* n, std::vector<const Value*>& out) {
  out.insert(out.end(), n->inputs().begin(), n->inputs().end());
  for (const Block* b : n->blocks()) {
    for (const Node* m : b->nodes()) collect_uses(m, out);
    out.insert(out.end(), b->outputs().begin(), b->outputs().end());
  }
}

InstrKind kind_of(const Node& n, const PrimOp** prim) {
  if (n.op() != nullptr) return InstrKind::Op;
  const std::string& k = n.kind();
  if (k == "prim::GetAttr" && n.inputs().size() == 1 && n.hasAttribute("name") && n.attr("name").tag() == IValue::Tag::String)
    return InstrKind::GetAttr;
  if (k == "prim::ListConstruct") return InstrKind::ListConstruct;
  if (k == "prim::TupleConstruct") return InstrKind::TupleConstruct;
  if ((k == "prim::ListUnpack" || k == "prim::TupleUnpack") && n.inputs().size() == 1) return InstrKind::Unpack;
  if (k == "prim::If" && n.blocks().size() == 2 && n.inputs().size() == 1) return InstrKind::If;
  if (k == "prim::Loop" && n.blocks().size() == 1 && n.inputs().size() >= 2 &&
      n.blocks()[0]->inputs().size() == n.inputs().size() - 1 && n.blocks()[0]->outputs().size() == n.inputs().size() - 1 &&
      n.outputs().size() == n.inputs().size() - 2)
    return InstrKind::Loop;
  if (k == "prim::FusionGroup") return InstrKind::Fusion;
  if (k == "prim::Enter" && n.inputs().size() == 1 && n.outputs().empty() && n.blocks().size() == 1 &&
      n.blocks()[0]->inputs().size() == 1 && n.blocks()[0]->outputs().empty())
    return InstrKind::Enter;
  if (k == "prim::Exit" && n.inputs().empty() && n.outputs().empty() && n.blocks().empty()) return InstrKind::Exit;
  if (const PrimOp* p = find_prim(k); p && prim_shape_error(*p, n.inputs().size(), n.outputs().size()).empty()) {
    *prim = p;
    return InstrKind::Prim;
  }
  return InstrKind::Generic;  // raises at run time what it raised before (unknown kind, malformed node)
}

FastPrim fast_prim_of(const std::string& k) {
  static const std::unordered_map<std::string, FastPrim> table = {
      {"prim::dim", FastPrim::Dim}, {"prim::size_dim", FastPrim::SizeDim}, {"prim::len", FastPrim::Len},
      {"prim::eq", FastPrim::Eq}, {"prim::ne", FastPrim::Ne}, {"prim::lt", FastPrim::Lt}, {"prim::le", FastPrim::Le},
      {"prim::gt", FastPrim::Gt}, {"prim::ge", FastPrim::Ge}, {"prim::is", FastPrim::Is},
      {"prim::isnot", FastPrim::IsNot}, {"prim::not", FastPrim::Not}, {"prim::unchecked_cast", FastPrim::Cast},
      {"prim::getitem", FastPrim::GetItem}, {"prim::add", FastPrim::Add}, {"prim::sub", FastPrim::Sub},
      {"prim::mul", FastPrim::Mul}, {"prim::floordiv", FastPrim::FloorDiv}, {"prim::mod", FastPrim::Mod}};
  auto it = table.find(k);
  return it == table.end() ? FastPrim::None : it->second;
}

struct Compiler {
  Code code;
  std::vector<uint32_t> operand_of;  // by Value::unique(): its operand while visible, else kNone

  explicit Compiler(const Graph& g) : operand_of(g.valueCount(), kNone) {}

  uint32_t define(const Value* v) {
    const uint32_t r = code.n_regs++;
    operand_of[v->unique()] = r;
    return r;
  }

  uint32_t undefined_error(const Value* v) {
    code.errors.push_back(str("jit: %", v->debugName(), " has no value (used before its definition)"));
    return static_cast<uint32_t>(code.errors.size() - 1);
  }

  uint32_t compile_block(const Block& block) {
    const uint32_t id = static_cast<uint32_t>(code.blocks.size());
    code.blocks.emplace_back();
    CodeBlock cb;
    std::vector<const Value*> defined;           // hidden again when the block ends
    std::unordered_set<const Value*> mine;       // defined in this block (registers it may drop or move)
    cb.in = static_cast<uint32_t>(code.regs.size());
    for (const Value* v : block.inputs()) {
      code.regs.push_back(define(v));
      defined.push_back(v);
      mine.insert(v);
    }
    cb.n_in = static_cast<uint32_t>(block.inputs().size());

    const std::vector<Node*> nodes = block.nodes();
    constexpr int64_t kKeep = -2;
    std::unordered_map<const Value*, int64_t> last;  // node position of each value's last use
    std::vector<const Value*> uses;
    for (size_t i = 0; i < nodes.size(); ++i) {
      uses.clear();
      collect_uses(nodes[i], uses);
      for (const Value* v : uses) last[v] = static_cast<int64_t>(i);
    }
    for (const Value* v : block.outputs()) last[v] = kKeep;

    std::vector<Instr> local;
    std::vector<int64_t> instr_at(nodes.size(), -1);  // node position -> index in `local`
    std::unordered_set<const Value*> moved;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node* n = nodes[i];
      if (n->kind() == "prim::Constant" && n->inputs().empty() && n->outputs().size() == 1 && n->blocks().empty()) {
        operand_of[n->output()->unique()] = kConstBit | static_cast<uint32_t>(code.constants.size());
        code.constants.push_back(n->hasAttribute("value") ? n->attr("value") : IValue());
        defined.push_back(n->output());
        continue;
      }
      Instr ins{};
      ins.node = n;
      ins.kind = kind_of(*n, &ins.prim);
      ins.op = n->op();
      if (ins.kind == InstrKind::GetAttr) ins.name = &n->attr("name").toStringRef();
      if (ins.kind == InstrKind::TupleConstruct && n->outputs().size() == 1) {
        const TypePtr& t = n->output()->type();
        if (t && t->kind == Type::Kind::Tuple && !t->fields.empty() && !t->name.empty()) {
          ins.cls = static_cast<int32_t>(code.classes.size());  // a named tuple: its values carry the class
          code.classes.push_back(t->name);
        }
      }
      if (ins.kind == InstrKind::Prim) ins.fast = fast_prim_of(n->kind());
      const bool may_move = n->blocks().empty();
      ins.in = static_cast<uint32_t>(code.operands.size());
      for (const Value* v : n->inputs()) {
        uint32_t op = operand_of[v->unique()];
        if (op == kNone) {
          if (ins.kind != InstrKind::Undefined) ins.error = undefined_error(v);
          ins.kind = InstrKind::Undefined;
          op = 0 | kConstBit;  // never read
          if (code.constants.empty()) code.constants.emplace_back();
        } else if (!(op & kConstBit) && may_move && mine.count(v) && last[v] == static_cast<int64_t>(i) &&
                   std::count(n->inputs().begin(), n->inputs().end(), v) == 1) {
          op |= kMoveBit;  // its last use: moved onto the stack, nothing left to drop
          moved.insert(v);
        }
        code.operands.push_back(op);
      }
      ins.n_in = static_cast<uint32_t>(n->inputs().size());
      std::vector<uint32_t> sub;
      for (const Block* b : n->blocks()) sub.push_back(compile_block(*b));
      ins.blocks = static_cast<uint32_t>(code.block_ids.size());
      code.block_ids.insert(code.block_ids.end(), sub.begin(), sub.end());
      ins.n_blocks = static_cast<uint32_t>(sub.size());
      ins.out = static_cast<uint32_t>(code.regs.size());
      for (const Value* v : n->outputs()) {
        code.regs.push_back(define(v));
        defined.push_back(v);
        mine.insert(v);
      }
      ins.n_out = static_cast<uint32_t>(n->outputs().size());
      instr_at[i] = static_cast<int64_t>(local.size());
      local.push_back(ins);
    }

    // Registers to clear after each instruction: values of this block at their last use (not
    // moved there), unused outputs right after their node; block outputs are kept.
    std::vector<std::vector<uint32_t>> drops(local.size());
    auto drop = [&](const Value* v, size_t defined_at) {
      const uint32_t op = operand_of[v->unique()];
      if (op == kNone || (op & kConstBit) || moved.count(v)) return;
      auto it = last.find(v);
      if (it != last.end() && it->second == kKeep) return;
      const size_t at = it == last.end() ? defined_at : static_cast<size_t>(it->second);
      if (instr_at[at] >= 0) drops[instr_at[at]].push_back(op);
    };
    for (const Value* v : block.inputs())
      if (last.count(v) && last[v] >= 0) drop(v, 0);
    for (size_t i = 0; i < nodes.size(); ++i)
      if (instr_at[i] >= 0)
        for (const Value* v : nodes[i]->outputs()) drop(v, i);
    for (size_t k = 0; k < local.size(); ++k) {
      local[k].drop = static_cast<uint32_t>(code.regs.size());
      code.regs.insert(code.regs.end(), drops[k].begin(), drops[k].end());
      local[k].n_drop = static_cast<uint32_t>(drops[k].size());
    }

    cb.out = static_cast<uint32_t>(code.operands.size());
    for (const Value* v : block.outputs()) {
      uint32_t op = operand_of[v->unique()];
      if (op == kNone) {
        if (cb.error < 0) cb.error = static_cast<int32_t>(undefined_error(v));
        op = 0;
      } else if (!(op & kConstBit) && mine.count(v) &&
                 std::count(block.outputs().begin(), block.outputs().end(), v) == 1) {
        op |= kMoveBit;  // nothing reads it after the block ends
      }
      code.operands.push_back(op);
    }
    cb.n_out = static_cast<uint32_t>(block.outputs().size());

    for (const Value* v : defined) operand_of[v->unique()] = kNone;  // out of scope after the block
    cb.begin = static_cast<uint32_t>(code.instrs.size());
    code.instrs.insert(code.instrs.end(), local.begin(), local.end());
    cb.end = static_cast<uint32_t>(code.instrs.size());
    code.blocks[id] = cb;
    return id;
  }
};

}  // namespace

std::shared_ptr<const Code> compiled_code(const Graph& graph) {
  Graph::ExecCache& cache = graph.execCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.code && cache.version == graph.version()) return std::static_pointer_cast<const Code>(cache.code);
  Compiler c(graph);
  c.compile_block(*graph.block());
  c.code.n_inputs = graph.inputs().size();
  auto code = std::make_shared<const Code>(std::move(c.code));
  cache.code = code;
  cache.version = graph.version();
  return code;
}

}  // namespace tl::jit
