#include "aten/jit/Interpreter.h"

#include "aten/core/Exception.h"
#include "aten/jit/FusionExecutor.h"

namespace tl::jit {
namespace {

// Values by Value::unique(): a slot each, undefined (None with `set` false) until computed.
struct Env {
  std::vector<IValue> values;
  std::vector<bool> set;
  explicit Env(size_t n) : values(n), set(n, false) {}
  IValue& operator[](const Value* v) {
    set[v->unique()] = true;
    return values[v->unique()];
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
  throw NotImplementedError(str("jit: the interpreter cannot run a ", k, " node"));
}

std::vector<IValue> run_block(const Block& block, Env& env) {
  Stack stack;
  for (const Node* n : block.nodes()) {
    stack.clear();
    for (const Value* v : n->inputs()) stack.push_back(lookup(env, v));
    if (const Operator* op = n->op()) {  // the common case, without moving the stack out
      run_op(*op, stack);
      TL_CHECK(stack.size() == n->outputs().size(), "jit: ", n->kind(), " produced ", stack.size(),
               " values for ", n->outputs().size(), " outputs");
      for (size_t i = 0; i < stack.size(); ++i) env[n->outputs()[i]] = std::move(stack[i]);
      continue;
    }
    std::vector<IValue> outs = execute(*n, stack, &env);
    TL_CHECK(outs.size() == n->outputs().size(), "jit: ", n->kind(), " gave ", outs.size(), " values for ",
             n->outputs().size(), " outputs");
    for (size_t i = 0; i < outs.size(); ++i) env[n->outputs()[i]] = std::move(outs[i]);
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
