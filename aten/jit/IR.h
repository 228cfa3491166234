// The JIT's IR, as torch.jit's: a Graph owns Nodes and Values in SSA form; a Block is an ordered
// list of nodes with its inputs (outputs of a prim::Param node) and outputs (inputs of its
// prim::Return node); control-flow nodes (prim::If, prim::Loop) own sub-blocks.
// A node's kind is its op's schema name with the `aten::` prefix (`aten::add`); an op node also
// knows its registered overload (`node.op()`: schema + boxed function, aten/jit/OpRegistry.h).
// Nodes of other kinds are `prim::` (Constant, ListConstruct, TupleConstruct, TupleUnpack,
// ListUnpack, GetAttr, If, Loop, Param, Return).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "aten/jit/IValue.h"
#include "aten/jit/OpRegistry.h"
#include "aten/jit/Type.h"

namespace tl::jit {

class Graph;
class Block;
class Node;

struct Use {
  Node* user;
  size_t offset;  // which input of `user`
};

class Value {
 public:
  Node* node() const { return node_; }
  size_t offset() const { return offset_; }
  size_t unique() const { return unique_; }
  const TypePtr& type() const { return type_; }
  Value* setType(TypePtr t) { type_ = std::move(t); return this; }
  const std::vector<Use>& uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }
  // The printed name: the debug name, else the unique number.
  std::string debugName() const;
  bool hasDebugName() const { return !debug_name_.empty(); }
  Value* setDebugName(const std::string& name);
  Graph* owningGraph() const;
  // Every use of this value now uses `v`.
  void replaceAllUsesWith(Value* v);
  // The constant's value when this is the output of a prim::Constant.
  std::optional<IValue> toIValue() const;

 private:
  friend class Node;
  friend class Graph;
  Node* node_ = nullptr;
  size_t offset_ = 0;
  size_t unique_ = 0;
  std::string debug_name_;
  TypePtr type_;
  std::vector<Use> uses_;
};

class Node {
 public:
  const std::string& kind() const { return kind_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* input(size_t i = 0) const;
  Value* output(size_t i = 0) const;
  const std::vector<Block*>& blocks() const { return blocks_; }
  Block* owningBlock() const { return owning_block_; }
  Graph* owningGraph() const { return graph_; }
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  // The registered overload of an `aten::` node (null for prim:: nodes).
  const Operator* op() const { return op_; }
  const FunctionSchema* maybeSchema() const { return op_ ? &op_->schema : nullptr; }
  const FunctionSchema& schema() const;
  // The overload was chosen when the node was made; setOp changes it (kind follows).
  void setOp(const Operator* op);

  Value* addInput(Value* v);
  Value* insertInput(size_t i, Value* v);
  void replaceInput(size_t i, Value* v);
  void replaceInputWith(Value* from, Value* to);
  void removeInput(size_t i);
  void removeAllInputs();
  Value* addOutput();
  void eraseOutput(size_t i);
  Block* addBlock();

  // Attributes (the value of a prim::Constant, the name of a prim::GetAttr).
  bool hasAttribute(const std::string& name) const { return attrs_.count(name) > 0 || graph_attrs_.count(name) > 0; }
  const IValue& attr(const std::string& name) const;
  Node* setAttr(const std::string& name, IValue v);
  // Every attribute name, value and graph attributes together (sorted).
  std::vector<std::string> attributeNames() const;
  // Graph attributes (torch.jit's kind `g`): the `Subgraph` of a prim::FusionGroup.
  bool hasGraphAttribute(const std::string& name) const { return graph_attrs_.count(name) > 0; }
  const std::shared_ptr<Graph>& g(const std::string& name) const;
  Node* g_(const std::string& name, std::shared_ptr<Graph> graph);

  // List placement; a node not in a list (just created) is inserted with these.
  Node* insertBefore(Node* n);
  Node* insertAfter(Node* n);
  void moveBefore(Node* n);
  void moveAfter(Node* n);
  bool inBlockList() const { return next_ != nullptr; }
  // Whether this node comes before `n` in the same block.
  bool isBefore(const Node* n) const;
  // Unlinks and deletes the node; its outputs must have no uses.
  void destroy();

  // Whether the op writes an argument (a!), or is random: such nodes are never folded, merged or moved.
  bool hasSideEffects() const;
  bool isNondeterministic() const;

 private:
  friend class Graph;
  friend class Block;
  Node(Graph* g, std::string kind) : graph_(g), kind_(std::move(kind)) {}
  void removeUse(size_t i);
  void unlink();

  Graph* graph_;
  std::string kind_;
  const Operator* op_ = nullptr;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Block*> blocks_;
  std::map<std::string, IValue> attrs_;
  std::map<std::string, std::shared_ptr<Graph>> graph_attrs_;
  Block* owning_block_ = nullptr;
  Node* next_ = nullptr;
  Node* prev_ = nullptr;
};

class Block {
 public:
  // Nodes in order (not the Param/Return nodes).
  std::vector<Node*> nodes() const;
  const std::vector<Value*>& inputs() const { return param_->outputs(); }
  const std::vector<Value*>& outputs() const { return return_->inputs(); }
  Node* paramNode() const { return param_; }
  Node* returnNode() const { return return_; }
  Node* owningNode() const { return owning_node_; }
  Graph* owningGraph() const { return graph_; }
  Value* addInput(const std::string& name = "");
  size_t registerOutput(Value* v);
  void eraseOutput(size_t i);
  Node* appendNode(Node* n);
  Node* prependNode(Node* n);

 private:
  friend class Graph;
  friend class Node;
  Block(Graph* g, Node* owner);
  Graph* graph_;
  Node* owning_node_;
  Node* param_;
  Node* return_;  // sentinel of the circular node list
};

class Graph : public std::enable_shared_from_this<Graph> {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Block* block() const { return block_; }
  const std::vector<Value*>& inputs() const { return block_->inputs(); }
  const std::vector<Value*>& outputs() const { return block_->outputs(); }
  std::vector<Node*> nodes() const { return block_->nodes(); }
  Value* addInput(const std::string& name = "") { return block_->addInput(name); }
  size_t registerOutput(Value* v) { return block_->registerOutput(v); }
  void eraseOutput(size_t i) { block_->eraseOutput(i); }

  // A new node, not yet in any block. `kind` "aten::add.Tensor" names an overload; "aten::add"
  // picks the first overload whose arguments the inputs' types fit; prim:: kinds are taken as
  // they are. The outputs of an op node are typed from its schema's returns.
  Node* create(const std::string& kind, const std::vector<Value*>& inputs, size_t num_outputs = 1);
  Node* createOp(const Operator* op, const std::vector<Value*>& inputs);
  Node* createConstant(const IValue& v);
  // Nodes are inserted at the insert point: before `insertPoint()` (the end of the top block at first).
  Node* insertNode(Node* n);
  Value* insertConstant(const IValue& v);
  void setInsertPoint(Node* n) { insert_point_ = n; }
  void setInsertPoint(Block* b) { insert_point_ = b->return_; }
  Node* insertPoint() const { return insert_point_; }

  // One more than the largest Value::unique() handed out (the interpreter's value-table size).
  size_t valueCount() const { return next_unique_; }
  // Every node in every block, depth first (for passes).
  std::vector<Node*> allNodes() const;
  // The first node of `kind` (recursing into blocks), or null.
  Node* findNode(const std::string& kind, bool recurse = true) const;
  std::string str(bool print_source_locations = false) const;
  std::shared_ptr<Graph> copy() const;
  // Copies `callee`'s nodes to the insert point (its inputs replaced by `inputs`) and returns the copies
  // of its outputs (script's inlining of a body compiled once). Its top block's input-less prim::Constant
  // nodes go before `constants_at` instead, when given (the compiler keeps constants at the graph's top).
  std::vector<Value*> insertGraph(const Graph& callee, const std::vector<Value*>& inputs, Node* constants_at = nullptr);
  // Checks the SSA invariants (uses recorded, values defined before use); throws RuntimeError.
  void lint() const;

  // Counts edits (nodes, inputs, outputs, attributes, order): what a runner derives from the graph
  // is valid while this is unchanged.
  uint64_t version() const { return version_; }
  void touch() { ++version_; }
  // What runners derive from this graph, each with the version it was made at: the interpreter's
  // compiled form (Code.h) and, for a fusion group's subgraph, its plans by input types
  // (FusionExecutor.cpp). The mutex makes the lookups safe when threads run one graph at once.
  struct ExecCache {
    std::mutex mutex;
    uint64_t version = ~uint64_t{0};
    std::shared_ptr<const void> code;
    uint64_t fusion_version = ~uint64_t{0};
    std::shared_ptr<void> fusion;
  };
  ExecCache& execCache() const { return exec_cache_; }

 private:
  friend class Node;
  friend class Block;
  friend class Value;
  Node* newNode(const std::string& kind);
  Node* cloneShell(const Node* n);  // a new node with n's kind, overload and attributes (no inputs or outputs)
  Value* newValue(Node* n, size_t offset);
  void freeNode(Node* n);
  Block* newBlock(Node* owner);

  std::unordered_set<Node*> nodes_;
  std::unordered_set<Value*> values_;
  std::unordered_set<std::string> names_;  // the debug names in use (setDebugName keeps them unique in O(1))
  std::vector<std::unique_ptr<Block>> blocks_;
  Block* block_;
  Node* insert_point_;
  size_t next_unique_ = 0;
  uint64_t version_ = 0;
  mutable ExecCache exec_cache_;
};

}  // namespace tl::jit
