// The tracer: while a thread traces (torchlite.jit.trace), every op called through the Python
// bindings records a Node in the tracing state's graph, with the tensors it reads mapped to the
// Values that produced them. The generated bindings wrap each op call in a TraceScope
// (aten/jit/TraceScope.h); when no thread traces it costs one relaxed atomic load.
#pragma once
#include <atomic>
#include <memory>
#include <unordered_map>

#include "aten/jit/IR.h"
#include "aten/jit/TraceScope.h"

namespace tl::jit::tracer {

struct TracingState {
  std::shared_ptr<Graph> graph;
  // Tensor -> the Value it is in the graph; the Tensor is kept so its impl address is not reused.
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Value*>> env;
};

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

}  // namespace tl::jit::tracer
