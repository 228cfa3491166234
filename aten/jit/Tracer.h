// The tracer: while a thread traces (torchlite.jit.trace), every op called through the Python
// bindings records a Node in the tracing state's graph, with the tensors it reads mapped to the
// Values that produced them. The generated bindings wrap each op call in a TraceScope; when no
// thread traces it costs one relaxed atomic load (the bindings' arguments are boxed only when
// tracing).
#pragma once
#include <atomic>
#include <memory>
#include <unordered_map>

#include "aten/jit/IR.h"

namespace tl::jit::tracer {

struct TracingState {
  std::shared_ptr<Graph> graph;
  // Tensor -> the Value it is in the graph; the Tensor is kept so its impl address is not reused.
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Value*>> env;
};

// Threads currently tracing: the fast check of TraceScope.
extern std::atomic<int> g_tracing_threads;
// This thread's state (null when it is not tracing).
TracingState* state();
// Starts tracing into `graph` on this thread; RuntimeError if it already traces.
void enter(std::shared_ptr<Graph> graph);
// Stops tracing on this thread (no-op if it does not trace).
void exit();
inline bool active() { return g_tracing_threads.load(std::memory_order_relaxed) != 0 && state() != nullptr; }

void set_value(const Tensor& t, Value* v);
// The Value of a tensor: recorded, or else a new prim::Constant holding it.
Value* get_value(const Tensor& t);
// The Value for any boxed argument (lists of tensors become prim::ListConstruct, the rest constants).
Value* value_for(const IValue& v);

// Records a call of `op` ("add.Tensor") with its arguments in schema order: a node at the end of the
// graph; `finish` binds its outputs to the result. A node whose op threw is removed.
Node* begin_op(const char* op, std::vector<IValue> args);
void finish_op(Node* node, const IValue& result, bool is_tuple);
void abandon_op(Node* node);

class TraceScope {
 public:
  template <typename... Args>
  explicit TraceScope(const char* op, const Args&... args) {
    if (__builtin_expect(g_tracing_threads.load(std::memory_order_relaxed) != 0, 0) && state())
      node_ = begin_op(op, std::vector<IValue>{IValue(args)...});
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() {
    if (node_) abandon_op(node_);
  }
  template <typename R>
  void done(const R& result) {
    if (node_) {
      finish(result);
      node_ = nullptr;
    }
  }
  void done() {
    if (node_) {
      finish_op(node_, IValue(), false);
      node_ = nullptr;
    }
  }

 private:
  template <typename... Ts>
  void finish(const std::tuple<Ts...>& r) {
    std::vector<IValue> elems;
    std::apply([&](const auto&... v) { (elems.emplace_back(v), ...); }, r);
    finish_op(node_, IValue::tuple(std::move(elems)), true);
  }
  template <typename R>
  void finish(const R& r) {
    finish_op(node_, IValue(r), false);
  }
  Node* node_ = nullptr;
};

}  // namespace tl::jit::tracer
