#include "aten/jit/IR.h"
#include "aten/jit/PrimOps.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "aten/core/Exception.h"

namespace tl::jit {

// ---- Value -------------------------------------------------------------------------------

std::string Value::debugName() const { return debug_name_.empty() ? std::to_string(unique_) : debug_name_; }

Value* Value::setDebugName(const std::string& name) {
  // Names are unique in a graph (torch.jit appends .1, .2 to repeated names); names that are
  // plain numbers would collide with unnamed values, so they are not kept.
  auto& taken = owningGraph()->names_;
  if (!debug_name_.empty()) taken.erase(debug_name_);
  if (name.empty() || std::all_of(name.begin(), name.end(), ::isdigit)) {
    debug_name_.clear();
    return this;
  }
  std::string candidate = name;
  for (int i = 1; taken.count(candidate); ++i) candidate = name + "." + std::to_string(i);
  debug_name_ = candidate;
  taken.insert(candidate);
  return this;
}

Graph* Value::owningGraph() const { return node_->owningGraph(); }

void Value::replaceAllUsesWith(Value* v) {
  if (v == this) return;
  std::vector<Use> uses = uses_;
  for (const Use& u : uses) u.user->replaceInput(u.offset, v);
}

std::optional<IValue> Value::toIValue() const {
  if (node_->kind() != "prim::Constant") return std::nullopt;
  return node_->hasAttribute("value") ? node_->attr("value") : IValue();
}

// ---- Node --------------------------------------------------------------------------------

Value* Node::input(size_t i) const {
  TL_CHECK_INDEX(i < inputs_.size(), "jit: node ", kind_, " has ", inputs_.size(), " inputs, no input ", i);
  return inputs_[i];
}

Value* Node::output(size_t i) const {
  TL_CHECK_INDEX(i < outputs_.size(), "jit: node ", kind_, " has ", outputs_.size(), " outputs, no output ", i);
  return outputs_[i];
}

const FunctionSchema& Node::schema() const {
  TL_CHECK(op_ != nullptr, "jit: node ", kind_, " has no schema (only aten:: op nodes do)");
  return op_->schema;
}

void Node::setOp(const Operator* op) {
  graph_->touch();
  op_ = op;
  kind_ = "aten::" + op->schema.name;
}

Value* Node::addInput(Value* v) { return insertInput(inputs_.size(), v); }

Value* Node::insertInput(size_t i, Value* v) {
  TL_CHECK(v->owningGraph() == graph_, "jit: a value of another graph cannot be an input of ", kind_);
  graph_->touch();
  inputs_.insert(inputs_.begin() + i, v);
  // Uses of later inputs shift by one.
  for (size_t j = i + 1; j < inputs_.size(); ++j)
    for (Use& u : inputs_[j]->uses_)
      if (u.user == this && u.offset == j - 1) {
        u.offset = j;
        break;
      }
  v->uses_.push_back(Use{this, i});
  return v;
}

void Node::removeUse(size_t i) {
  graph_->touch();
  auto& uses = inputs_[i]->uses_;
  for (auto it = uses.begin(); it != uses.end(); ++it)
    if (it->user == this && it->offset == i) {
      uses.erase(it);
      return;
    }
}

void Node::replaceInput(size_t i, Value* v) {
  TL_CHECK_INDEX(i < inputs_.size(), "jit: node ", kind_, " has no input ", i);
  TL_CHECK(v->owningGraph() == graph_, "jit: a value of another graph cannot be an input of ", kind_);
  removeUse(i);
  inputs_[i] = v;
  v->uses_.push_back(Use{this, i});
}

void Node::replaceInputWith(Value* from, Value* to) {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i] == from) replaceInput(i, to);
}

void Node::removeInput(size_t i) {
  TL_CHECK_INDEX(i < inputs_.size(), "jit: node ", kind_, " has no input ", i);
  removeUse(i);
  for (size_t j = i + 1; j < inputs_.size(); ++j)
    for (Use& u : inputs_[j]->uses_)
      if (u.user == this && u.offset == j) {
        u.offset = j - 1;
        break;
      }
  inputs_.erase(inputs_.begin() + i);
}

void Node::removeAllInputs() {
  while (!inputs_.empty()) removeInput(inputs_.size() - 1);
}

Value* Node::addOutput() {
  Value* v = graph_->newValue(this, outputs_.size());
  outputs_.push_back(v);
  return v;
}

void Node::eraseOutput(size_t i) {
  TL_CHECK_INDEX(i < outputs_.size(), "jit: node ", kind_, " has no output ", i);
  Value* v = outputs_[i];
  TL_CHECK(!v->hasUses(), "jit: cannot erase output %", v->debugName(), " of ", kind_, ": it still has uses");
  graph_->touch();
  outputs_.erase(outputs_.begin() + i);
  for (size_t j = i; j < outputs_.size(); ++j) outputs_[j]->offset_ = j;
  graph_->values_.erase(v);
  if (!v->debug_name_.empty()) graph_->names_.erase(v->debug_name_);
  delete v;
}

Block* Node::addBlock() {
  blocks_.push_back(graph_->newBlock(this));
  return blocks_.back();
}

Node* Node::setAttr(const std::string& name, IValue v) {
  graph_->touch();
  attrs_[name] = std::move(v);
  return this;
}

const IValue& Node::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  TL_CHECK_VALUE(it != attrs_.end(), "jit: node ", kind_, " has no attribute '", name, "'");
  return it->second;
}

std::vector<std::string> Node::attributeNames() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : attrs_) names.push_back(k);
  for (const auto& [k, v] : graph_attrs_) names.push_back(k);
  std::sort(names.begin(), names.end());
  return names;
}

const std::shared_ptr<Graph>& Node::g(const std::string& name) const {
  auto it = graph_attrs_.find(name);
  TL_CHECK_VALUE(it != graph_attrs_.end(), "jit: node ", kind_, " has no graph attribute '", name, "'");
  return it->second;
}

Node* Node::g_(const std::string& name, std::shared_ptr<Graph> graph) {
  TL_CHECK_VALUE(graph != nullptr, "jit: the graph attribute '", name, "' of ", kind_, " cannot be None");
  TL_CHECK_VALUE(graph.get() != graph_, "jit: a graph cannot be an attribute of its own node");
  graph_->touch();
  graph_attrs_[name] = std::move(graph);
  return this;
}

Node* Node::insertBefore(Node* n) {
  TL_CHECK(!inBlockList(), "jit: node ", kind_, " is already in a block");
  TL_CHECK(n->inBlockList() || n->kind_ == "prim::Return", "jit: cannot insert before a node not in a block");
  graph_->touch();
  owning_block_ = n->owning_block_;
  prev_ = n->prev_;
  next_ = n;
  n->prev_->next_ = this;
  n->prev_ = this;
  return this;
}

Node* Node::insertAfter(Node* n) {
  TL_CHECK(n->kind_ != "prim::Return", "jit: cannot insert after a block's return");
  return insertBefore(n->next_);
}

void Node::unlink() {
  if (!next_) return;
  graph_->touch();
  prev_->next_ = next_;
  next_->prev_ = prev_;
  next_ = prev_ = nullptr;
  owning_block_ = nullptr;
}

void Node::moveBefore(Node* n) {
  unlink();
  insertBefore(n);
}

void Node::moveAfter(Node* n) {
  unlink();
  insertAfter(n);
}

bool Node::isBefore(const Node* n) const {
  for (const Node* p = next_; p && p->kind_ != "prim::Return"; p = p->next_)
    if (p == n) return true;
  return false;
}

void Node::destroy() {
  for (Value* v : outputs_)
    TL_CHECK(!v->hasUses(), "jit: cannot destroy ", kind_, ": its output %", v->debugName(), " still has uses");
  for (Block* b : blocks_) {
    // The block's outputs first: they are values of the nodes destroyed below.
    b->return_->removeAllInputs();
    std::vector<Node*> ns = b->nodes();
    for (auto it = ns.rbegin(); it != ns.rend(); ++it) {
      for (Value* v : (*it)->outputs_) v->uses_.clear();
      (*it)->destroy();
    }
  }
  removeAllInputs();
  unlink();
  if (graph_->insert_point_ == this) graph_->insert_point_ = graph_->block_->return_;
  graph_->freeNode(this);
}

bool Node::hasSideEffects() const {
  if (!op_) {
    const PrimOp* prim = find_prim(kind_);
    return prim != nullptr && prim->flags != 0;
  }
  return op_->schema.is_mutable() || op_->schema.returns.empty();
}

bool Node::isNondeterministic() const { return op_ && op_->schema.is_nondeterministic(); }

// ---- Block -------------------------------------------------------------------------------

Block::Block(Graph* g, Node* owner) : graph_(g), owning_node_(owner) {
  param_ = g->newNode("prim::Param");
  return_ = g->newNode("prim::Return");
  param_->owning_block_ = return_->owning_block_ = this;
  return_->next_ = return_->prev_ = return_;  // an empty circular list
}

std::vector<Node*> Block::nodes() const {
  std::vector<Node*> out;
  for (Node* n = return_->next_; n != return_; n = n->next_) out.push_back(n);
  return out;
}

Value* Block::addInput(const std::string& name) {
  Value* v = param_->addOutput();
  v->setType(Type::tensor());
  if (!name.empty()) v->setDebugName(name);
  return v;
}

size_t Block::registerOutput(Value* v) {
  return_->addInput(v);
  return return_->inputs().size() - 1;
}

void Block::eraseOutput(size_t i) { return_->removeInput(i); }

Node* Block::appendNode(Node* n) { return n->insertBefore(return_); }
Node* Block::prependNode(Node* n) { return n->insertBefore(return_->next_); }

// ---- Graph -------------------------------------------------------------------------------

Graph::Graph() {
  block_ = newBlock(nullptr);
  insert_point_ = block_->return_;
}

Graph::~Graph() {
  for (Node* n : nodes_) delete n;
  for (Value* v : values_) delete v;
}

Node* Graph::newNode(const std::string& kind) {
  Node* n = new Node(this, kind);
  nodes_.insert(n);
  return n;
}

Value* Graph::newValue(Node* n, size_t offset) {
  touch();
  Value* v = new Value();
  v->node_ = n;
  v->offset_ = offset;
  v->unique_ = next_unique_++;
  v->type_ = Type::get(Type::Kind::Any);
  values_.insert(v);
  return v;
}

void Graph::freeNode(Node* n) {
  touch();
  for (Value* v : n->outputs_) {
    values_.erase(v);
    if (!v->debug_name_.empty()) names_.erase(v->debug_name_);
    delete v;
  }
  nodes_.erase(n);
  delete n;
}

Block* Graph::newBlock(Node* owner) {
  touch();
  blocks_.push_back(std::unique_ptr<Block>(new Block(this, owner)));
  return blocks_.back().get();
}

Node* Graph::createOp(const Operator* op, const std::vector<Value*>& inputs) {
  Node* n = newNode("aten::" + op->schema.name);
  n->op_ = op;
  for (Value* v : inputs) n->addInput(v);
  for (const SchemaArgument& r : op->schema.returns) n->addOutput()->setType(Type::from_schema(r.type));
  return n;
}

namespace {

bool fits(const Operator& op, const std::vector<Value*>& inputs) {
  const auto& args = op.schema.arguments;
  if (args.size() != inputs.size()) return false;
  for (size_t i = 0; i < args.size(); ++i)
    if (!is_subtype(*inputs[i]->type(), *Type::from_schema(args[i].type))) return false;
  return true;
}

}  // namespace

Node* Graph::create(const std::string& kind, const std::vector<Value*>& inputs, size_t num_outputs) {
  if (kind.rfind("aten::", 0) == 0) {
    std::string name = kind.substr(6);
    if (const Operator* op = name.find('.') != std::string::npos ? find_op(name) : nullptr) {
      TL_CHECK(op->schema.arguments.size() == inputs.size(), "jit: ", kind, " takes ",
               op->schema.arguments.size(), " inputs (", op->schema.text, "), got ", inputs.size());
      return createOp(op, inputs);
    }
    const auto& candidates = overloads_of(name.substr(0, name.find('.')));
    TL_CHECK(!candidates.empty(), "jit: unknown operator ", kind);
    for (const Operator* op : candidates)
      if (fits(*op, inputs)) return createOp(op, inputs);
    std::string types;
    for (Value* v : inputs) types += (types.empty() ? "" : ", ") + v->type()->str();
    std::string schemas;
    for (const Operator* op : candidates) schemas += "\n  aten::" + op->schema.text;
    throw RuntimeError(tl::str("jit: no overload of ", kind, " takes inputs of types (", types, "); candidates:", schemas));
  }
  Node* n = newNode(kind);
  for (Value* v : inputs) n->addInput(v);
  for (size_t i = 0; i < num_outputs; ++i) n->addOutput();
  return n;
}

Node* Graph::createConstant(const IValue& v) {
  Node* n = newNode("prim::Constant");
  if (!v.isNone()) n->setAttr("value", v);
  n->addOutput()->setType(Type::of(v, false));
  return n;
}

Node* Graph::insertNode(Node* n) { return n->insertBefore(insert_point_); }

Value* Graph::insertConstant(const IValue& v) { return insertNode(createConstant(v))->output(); }

std::vector<Node*> Graph::allNodes() const {
  std::vector<Node*> out;
  std::function<void(const Block*)> walk = [&](const Block* b) {
    for (Node* n : b->nodes()) {
      out.push_back(n);
      for (Block* sub : n->blocks()) walk(sub);
    }
  };
  walk(block_);
  return out;
}

Node* Graph::findNode(const std::string& kind, bool recurse) const {
  for (Node* n : recurse ? allNodes() : nodes())
    if (n->kind() == kind) return n;
  return nullptr;
}

namespace {

void print_values(std::ostringstream& os, const std::vector<Value*>& vs) {
  for (size_t i = 0; i < vs.size(); ++i) os << (i ? ", " : "") << "%" << vs[i]->debugName();
}

// Nodes holding a `Subgraph` (fusion groups), collected while printing: torch.jit prints such a node
// as `prim::FusionGroup_<i>` and its subgraph after the graph, as `with prim::FusionGroup_<i> = graph(...)`.
using Groups = std::vector<const Node*>;

void print_block(std::ostringstream& os, const Block* b, int indent, Groups& groups);

void print_node(std::ostringstream& os, const Node* n, int indent, Groups& groups) {
  os << std::string(indent, ' ');
  const auto& outs = n->outputs();
  for (size_t i = 0; i < outs.size(); ++i)
    os << (i ? ", " : "") << "%" << outs[i]->debugName() << " : " << outs[i]->type()->str();
  if (!outs.empty()) os << " = ";
  os << n->kind();
  if (n->hasGraphAttribute("Subgraph")) {
    os << "_" << groups.size();
    groups.push_back(n);
  }
  std::vector<std::string> names;
  for (const std::string& name : n->attributeNames())
    if (!n->hasGraphAttribute(name)) names.push_back(name);
  if (!names.empty()) {
    os << "[";
    for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i] << "=" << n->attr(names[i]).repr();
    os << "]";
  }
  os << "(";
  print_values(os, n->inputs());
  os << ")\n";
  for (size_t i = 0; i < n->blocks().size(); ++i) {
    const Block* b = n->blocks()[i];
    os << std::string(indent + 2, ' ') << "block" << i << "(";
    const auto& ins = b->inputs();
    for (size_t j = 0; j < ins.size(); ++j)
      os << (j ? ", " : "") << "%" << ins[j]->debugName() << " : " << ins[j]->type()->str();
    os << "):\n";
    print_block(os, b, indent + 4, groups);
    os << std::string(indent + 4, ' ') << "-> (";
    print_values(os, b->outputs());
    os << ")\n";
  }
}

void print_block(std::ostringstream& os, const Block* b, int indent, Groups& groups) {
  for (const Node* n : b->nodes()) print_node(os, n, indent, groups);
}

}  // namespace

std::string Graph::str(bool) const {
  std::ostringstream os;
  os << "graph(";
  const auto& ins = inputs();
  for (size_t i = 0; i < ins.size(); ++i)
    os << (i ? ",\n      " : "") << "%" << ins[i]->debugName() << " : " << ins[i]->type()->str();
  os << "):\n";
  Groups groups;
  print_block(os, block_, 2, groups);
  os << "  return (";
  print_values(os, outputs());
  os << ")\n";
  for (size_t i = 0; i < groups.size(); ++i)
    os << "with " << groups[i]->kind() << "_" << i << " = " << groups[i]->g("Subgraph")->str();
  return os.str();
}

Node* Graph::cloneShell(const Node* n) {
  Node* c = newNode(n->kind());
  c->op_ = n->op_;
  c->attrs_ = n->attrs_;
  for (const auto& [name, sub] : n->graph_attrs_) c->graph_attrs_[name] = sub->copy();
  return c;
}

namespace {

// Copies the nodes of `from` into `to` (appended) or, for a graph inserted into another, before `at`;
// values map through `map` (each of `from`'s inputs must be in it already).
struct BlockCloner {
  Graph* g;
  std::unordered_map<const Value*, Value*> map;
  std::function<Node*(const Node*)> new_node;  // a node of `g` with the kind, overload and attributes of one

  Value* lookup(const Value* v) {
    auto it = map.find(v);
    TL_CHECK(it != map.end(), "jit: graph copy found %", v->debugName(), " used before its definition");
    return it->second;
  }
  static std::string base_name(const std::string& name) {  // "x.3" -> "x": setDebugName numbers it again
    auto dot = name.rfind('.');
    if (dot == std::string::npos || dot + 1 == name.size()) return name;
    for (size_t i = dot + 1; i < name.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
    return name.substr(0, dot);
  }
  void name(const Value* from, Value* to, bool renumber) {
    if (from->hasDebugName()) to->setDebugName(renumber ? base_name(from->debugName()) : from->debugName());
  }
  Node* clone_node(const Node* n, bool renumber) {
    Node* c = new_node(n);
    for (const Value* v : n->inputs()) c->addInput(lookup(v));
    for (const Value* v : n->outputs()) {
      Value* nv = c->addOutput();
      nv->setType(v->type());
      name(v, nv, renumber);
      map[v] = nv;
    }
    return c;
  }
  void clone_blocks(const Node* n, Node* c, bool renumber) {
    for (const Block* b : n->blocks()) {
      Block* to = c->addBlock();
      for (const Value* v : b->inputs()) {
        Value* nv = to->addInput();
        nv->setType(v->type());
        name(v, nv, renumber);
        map[v] = nv;
      }
      for (const Node* inner : b->nodes()) {
        Node* ic = clone_node(inner, renumber);
        to->appendNode(ic);
        clone_blocks(inner, ic, renumber);
      }
      for (const Value* v : b->outputs()) to->registerOutput(lookup(v));
    }
  }
};

}  // namespace

std::shared_ptr<Graph> Graph::copy() const {
  auto g = std::make_shared<Graph>();
  BlockCloner c{g.get(), {}, [&](const Node* n) { return g->cloneShell(n); }};
  for (const Value* v : block_->inputs()) {
    Value* nv = g->block_->addInput();
    nv->setType(v->type());
    c.name(v, nv, false);
    c.map[v] = nv;
  }
  for (const Node* n : block_->nodes()) {
    Node* nn = c.clone_node(n, false);
    g->block_->appendNode(nn);
    c.clone_blocks(n, nn, false);
  }
  for (const Value* v : block_->outputs()) g->block_->registerOutput(c.lookup(v));
  return g;
}

std::vector<Value*> Graph::insertGraph(const Graph& callee, const std::vector<Value*>& inputs, Node* constants_at) {
  TL_CHECK_VALUE(&callee != this, "jit: insertGraph: a graph cannot be inserted into itself");
  TL_CHECK_VALUE(inputs.size() == callee.inputs().size(), "jit: insertGraph: the graph takes ",
                 callee.inputs().size(), " inputs, got ", inputs.size());
  BlockCloner c{this, {}, [&](const Node* n) { return cloneShell(n); }};
  for (size_t i = 0; i < inputs.size(); ++i) {
    TL_CHECK_VALUE(inputs[i] != nullptr && inputs[i]->owningGraph() == this, "jit: insertGraph: input ", i,
                   " is not a value of this graph");
    c.map[callee.inputs()[i]] = inputs[i];
  }
  for (const Node* n : callee.block()->nodes()) {
    Node* nn = c.clone_node(n, true);
    if (constants_at != nullptr && n->kind() == "prim::Constant" && n->inputs().empty())
      nn->insertBefore(constants_at);
    else
      insertNode(nn);
    c.clone_blocks(n, nn, true);
  }
  std::vector<Value*> outs;
  for (const Value* v : callee.outputs()) outs.push_back(c.lookup(v));
  return outs;
}

void Graph::lint() const {
  std::unordered_set<const Value*> defined;
  std::function<void(const Block*)> check = [&](const Block* b) {
    for (const Value* v : b->inputs()) defined.insert(v);
    auto check_inputs = [&](const Node* n) {
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        const Value* v = n->inputs()[i];
        TL_CHECK(defined.count(v), "jit: lint: %", v->debugName(), " is used by ", n->kind(), " before its definition");
        bool recorded = false;
        for (const Use& u : v->uses()) recorded |= (u.user == n && u.offset == i);
        TL_CHECK(recorded, "jit: lint: the use of %", v->debugName(), " by ", n->kind(), " is not recorded");
      }
    };
    for (const Node* n : b->nodes()) {
      check_inputs(n);
      for (const Block* sub : n->blocks()) check(sub);
      for (const Value* v : n->outputs()) defined.insert(v);
    }
    check_inputs(b->returnNode());
  };
  check(block_);
}

}  // namespace tl::jit
