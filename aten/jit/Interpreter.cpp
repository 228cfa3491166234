#include "aten/jit/Interpreter.h"

#include <unordered_map>

#include "aten/core/Exception.h"
#include "aten/jit/FusionExecutor.h"
#include "aten/jit/PrimOps.h"

namespace tl::jit {
namespace {

// Which values run_block drops after each node of a block: those defined in the block (its inputs
// and its nodes' outputs) at their last use, uses inside a node's sub-blocks counting as uses by that
// node, block outputs never. A graph then holds its intermediates as long as eager code would, and
// the allocator recycles their memory (kept to the end, 10M-element chains ran 1.1-2.9x eager's time).
struct BlockPlan {
  std::vector<Node*> nodes;
  std::vector<const PrimOp*> prims;  // by node position: its prim op (checked for shape once), or null
  std::vector<std::vector<const Value*>> drop_after;  // by node position
};

void collect_uses(const Node* n, std::vector<const Value*>& out) {
  out.insert(out.end(), n->inputs().begin(), n->inputs().end());
  for (const Block* b : n->blocks()) {
    for (const Node* m : b->nodes()) collect_uses(m, out);
    out.insert(out.end(), b->outputs().begin(), b->outputs().end());
  }
}

BlockPlan plan_block(const Block& block, size_t value_count) {
  BlockPlan plan;
  plan.nodes = block.nodes();
  plan.drop_after.resize(plan.nodes.size());
  plan.prims.resize(plan.nodes.size(), nullptr);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node* n = plan.nodes[i];
    if (n->op() != nullptr || n->kind().rfind("prim::", 0) != 0) continue;
    if (const PrimOp* p = find_prim(n->kind())) {
      std::string bad = prim_shape_error(*p, n->inputs().size(), n->outputs().size());
      TL_CHECK(bad.empty(), "jit: malformed node: ", bad);
      plan.prims[i] = p;
    }
  }
  constexpr int64_t kNever = -1, kKeep = -2;
  std::vector<int64_t> last(value_count, kNever);  // position of the last node using each value
  std::vector<const Value*> uses;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    uses.clear();
    collect_uses(plan.nodes[i], uses);
    for (const Value* v : uses) last[v->unique()] = static_cast<int64_t>(i);
  }
  for (const Value* v : block.outputs()) last[v->unique()] = kKeep;
  auto drop = [&](const Value* v, size_t defined_at) {
    const int64_t at = last[v->unique()];
    if (at == kKeep) return;
    plan.drop_after[at == kNever ? defined_at : static_cast<size_t>(at)].push_back(v);
  };
  for (const Value* v : block.inputs())
    if (last[v->unique()] >= 0) drop(v, 0);
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    for (const Value* v : plan.nodes[i]->outputs()) drop(v, i);
  return plan;
}

// Values by Value::unique(): a slot each, undefined (None with `set` false) until computed.
struct Env {
  std::vector<IValue> values;
  std::vector<bool> set;
  std::unordered_map<const Block*, BlockPlan> plans;  // made on a block's first run in this call
  explicit Env(size_t n) : values(n), set(n, false) {}
  IValue& operator[](const Value* v) {
    set[v->unique()] = true;
    return values[v->unique()];
  }
  const BlockPlan& plan(const Block& block) {
    auto it = plans.find(&block);
    if (it == plans.end()) it = plans.emplace(&block, plan_block(block, values.size())).first;
    return it->second;
  }
};

std::vector<IValue> run_block(const Block& block, Env& env);

const IValue& lookup(Env& env, const Value* v) {
  TL_CHECK(v->unique() < env.set.size() && env.set[v->unique()], "jit: %", v->debugName(),
           " has no value (used before its definition)");
  return env.values[v->unique()];
}

// Executes one node given its inputs' values.
std::vector<IValue> execute(const Node& n, Stack& stack, Env* env) {
  const std::string& k = n.kind();
  if (const Operator* op = n.op()) {
    run_op(*op, stack);
    TL_CHECK(stack.size() == n.outputs().size(), "jit: ", k, " produced ", stack.size(), " values for ",
             n.outputs().size(), " outputs");
    return std::move(stack);
  }
  if (k == "prim::Constant") return {n.hasAttribute("value") ? n.attr("value") : IValue()};
  if (k == "prim::ListConstruct") return {IValue::list(std::move(stack))};
  if (k == "prim::TupleConstruct") return {IValue::tuple(std::move(stack))};
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
  if (k == "prim::If") {
    TL_CHECK(env != nullptr && n.blocks().size() == 2, "jit: prim::If needs two blocks");
    const Block* taken = n.blocks()[stack.at(0).toBool() ? 0 : 1];
    return run_block(*taken, *env);
  }
  if (k == "prim::Loop") {
    // prim::Loop(%max_trip_count, %initial_condition, %carried...): block0(%i, %carried...) -> (%cond, %carried...)
    TL_CHECK(env != nullptr && n.blocks().size() == 1 && stack.size() >= 2, "jit: malformed prim::Loop");
    const Block& body = *n.blocks()[0];
    int64_t trips = stack[0].toInt();
    bool cond = stack[1].toBool();
    std::vector<IValue> carried(stack.begin() + 2, stack.end());
    for (int64_t i = 0; i < trips && cond; ++i) {
      (*env)[body.inputs()[0]] = IValue(i);
      for (size_t j = 0; j < carried.size(); ++j) (*env)[body.inputs()[j + 1]] = carried[j];
      std::vector<IValue> outs = run_block(body, *env);
      cond = outs[0].toBool();
      carried.assign(outs.begin() + 1, outs.end());
    }
    return carried;
  }
  if (const PrimOp* prim = find_prim(k)) {
    std::string bad = prim_shape_error(*prim, stack.size(), n.outputs().size());
    TL_CHECK(bad.empty(), "jit: malformed node: ", bad);
    return prim->fn(stack, n);
  }
  throw NotImplementedError(str("jit: the interpreter cannot run a ", k, " node"));
}

std::vector<IValue> run_block(const Block& block, Env& env) {
  Stack stack;
  const BlockPlan& plan = env.plan(block);
  for (size_t pos = 0; pos < plan.nodes.size(); ++pos) {
    const Node* n = plan.nodes[pos];
    stack.clear();
    for (const Value* v : n->inputs()) stack.push_back(lookup(env, v));
    if (const Operator* op = n->op()) {  // the common case, without moving the stack out
      run_op(*op, stack);
      TL_CHECK(stack.size() == n->outputs().size(), "jit: ", n->kind(), " produced ", stack.size(),
               " values for ", n->outputs().size(), " outputs");
      for (size_t i = 0; i < stack.size(); ++i) env[n->outputs()[i]] = std::move(stack[i]);
    } else if (const PrimOp* prim = plan.prims[pos]) {  // script's int/list/... ops, resolved once per plan
      std::vector<IValue> outs = prim->fn(stack, *n);
      for (size_t i = 0; i < outs.size(); ++i) env[n->outputs()[i]] = std::move(outs[i]);
    } else {
      std::vector<IValue> outs = execute(*n, stack, &env);
      TL_CHECK(outs.size() == n->outputs().size(), "jit: ", n->kind(), " gave ", outs.size(), " values for ",
               n->outputs().size(), " outputs");
      for (size_t i = 0; i < outs.size(); ++i) env[n->outputs()[i]] = std::move(outs[i]);
    }
    stack.clear();  // the inputs' references, before the last ones are dropped
    for (const Value* v : plan.drop_after[pos]) env.values[v->unique()] = IValue();
  }
  std::vector<IValue> results;
  for (const Value* v : block.outputs()) results.push_back(lookup(env, v));
  return results;
}

}  // namespace

std::vector<IValue> run_graph(const Graph& graph, std::vector<IValue> inputs) {
  TL_CHECK_TYPE(inputs.size() == graph.inputs().size(), "forward() expected ", graph.inputs().size(),
                " arguments but got ", inputs.size());
  Env env(graph.valueCount());
  for (size_t i = 0; i < inputs.size(); ++i) env[graph.inputs()[i]] = std::move(inputs[i]);
  return run_block(*graph.block(), env);
}

std::vector<IValue> run_node(const Node& node, std::vector<IValue> inputs) {
  TL_CHECK(node.blocks().empty(), "jit: run_node cannot run ", node.kind(), " (it has blocks)");
  TL_CHECK(inputs.size() == node.inputs().size(), "jit: ", node.kind(), " takes ", node.inputs().size(),
           " inputs, got ", inputs.size());
  return execute(node, inputs, nullptr);
}

}  // namespace tl::jit
