#include "aten/jit/Tracer.h"

#include <algorithm>

#include "aten/core/Exception.h"

namespace tl::jit::tracer {

std::atomic<int> g_tracing_threads{0};

namespace {
thread_local std::unique_ptr<TracingState> tls_state;
}  // namespace

TracingState* state() { return tls_state.get(); }

void enter(std::shared_ptr<Graph> graph) {
  TL_CHECK(!tls_state, "jit.trace: this thread is already tracing (nested tracing is not supported)");
  tls_state = std::make_unique<TracingState>();
  tls_state->graph = std::move(graph);
  g_tracing_threads.fetch_add(1);
}

void exit() {
  if (!tls_state) return;
  tls_state.reset();
  g_tracing_threads.fetch_sub(1);
}

void set_value(const Tensor& t, Value* v) {
  TL_CHECK(tls_state, "jit: not tracing");
  tls_state->env[t.impl()] = {t, v};
}

Value* get_value(const Tensor& t) {
  TL_CHECK(tls_state, "jit: not tracing");
  auto it = tls_state->env.find(t.impl());
  if (it != tls_state->env.end()) return it->second.second;
  // A tensor the trace did not produce (made outside it, or by code the tracer does not see)
  // is baked in as a constant, as torch.jit.trace does; one that requires grad cannot be (its
  // gradient would be lost), and is refused as there.
  TL_CHECK(!t.requires_grad(), "Cannot insert a Tensor that requires grad as a constant. Consider making it a "
           "parameter or input, or detaching the gradient");
  Value* v = tls_state->graph->insertConstant(IValue(t));
  v->setType(Type::of(IValue(t)));
  set_value(t, v);
  return v;
}

Value* value_for(const IValue& v) {
  Graph& g = *tls_state->graph;
  if (v.isTensor()) return get_value(v.toTensor());
  if (v.isList()) {
    const auto& elems = v.toListRef();
    auto is_tensor = [](const IValue& e) { return e.isTensor(); };
    if (std::any_of(elems.begin(), elems.end(), is_tensor)) {
      std::vector<Value*> ins;
      for (const IValue& e : elems) ins.push_back(value_for(e));
      Node* n = g.insertNode(g.create("prim::ListConstruct", ins, 1));
      bool all = std::all_of(elems.begin(), elems.end(), is_tensor);
      n->output()->setType(Type::list(all ? Type::tensor() : Type::optional(Type::tensor())));
      return n->output();
    }
  }
  return g.insertConstant(v);
}

// ---- boxing the bindings' arguments ------------------------------------------------------

Boxes::Boxes() : values_(std::make_unique<std::vector<IValue>>()) {}
Boxes::~Boxes() = default;
std::vector<IValue>& Boxes::values() { return *values_; }
void Boxes::add(const Tensor& v) { values_->emplace_back(v); }
void Boxes::add(const std::optional<Tensor>& v) { values_->emplace_back(v); }
void Boxes::add(TensorList v) { values_->emplace_back(v); }
void Boxes::add(const std::vector<Tensor>& v) { values_->emplace_back(v); }
void Boxes::add(const std::vector<std::optional<Tensor>>& v) { values_->emplace_back(v); }
void Boxes::add(const Scalar& v) { values_->emplace_back(v); }
void Boxes::add(const std::optional<Scalar>& v) { values_->emplace_back(v); }
void Boxes::add(int64_t v) { values_->emplace_back(v); }
void Boxes::add(std::optional<int64_t> v) { values_->emplace_back(v); }
void Boxes::add(double v) { values_->emplace_back(v); }
void Boxes::add(std::optional<double> v) { values_->emplace_back(v); }
void Boxes::add(bool v) { values_->emplace_back(v); }
void Boxes::add(std::optional<bool> v) { values_->emplace_back(v); }
void Boxes::add(const std::string& v) { values_->emplace_back(v); }
void Boxes::add(std::string_view v) { values_->emplace_back(v); }
void Boxes::add(std::optional<std::string_view> v) { values_->emplace_back(v); }
void Boxes::add(IntArrayRef v) { values_->emplace_back(v); }
void Boxes::add(OptionalIntArrayRef v) { values_->emplace_back(v); }
void Boxes::add(ArrayRef<double> v) { values_->emplace_back(v); }
void Boxes::add(std::optional<ArrayRef<double>> v) { values_->emplace_back(v); }
void Boxes::add(ScalarType v) { values_->emplace_back(v); }
void Boxes::add(std::optional<ScalarType> v) { values_->emplace_back(v); }
void Boxes::add(Device v) { values_->emplace_back(v); }
void Boxes::add(std::optional<Device> v) { values_->emplace_back(v); }
void Boxes::add(const std::optional<Generator>& v) { values_->emplace_back(v); }
void Boxes::add(std::optional<Layout> v) { values_->emplace_back(v); }
void Boxes::add(MemoryFormat v) { values_->emplace_back(v); }
void Boxes::add(std::optional<MemoryFormat> v) { values_->emplace_back(v); }
void Boxes::add_bools(const bool* v, size_t n) {
  values_->push_back(IValue::list(std::vector<IValue>(v, v + n)));
}

bool is_tracing_thread() { return tls_state != nullptr; }

// ---- recording ---------------------------------------------------------------------------

Node* begin_op(const char* op_name, Boxes& args) {
  const Operator* op = find_op(op_name);
  TL_CHECK(op != nullptr, "jit.trace: the op ", op_name, " has no boxed form (", op_name,
           " is listed by torchlite._C._jit._skipped_ops())");
  std::vector<Value*> inputs;
  for (const IValue& a : args.values()) inputs.push_back(value_for(a));
  Graph& g = *tls_state->graph;
  return g.insertNode(g.createOp(op, inputs));
}

void finish_op(Node* node, Boxes& boxes) {
  if (!tls_state) return;
  Graph& g = *tls_state->graph;
  const std::vector<IValue>& results = boxes.values();
  TL_CHECK(results.size() == node->outputs().size(), "jit.trace: ", node->kind(), " returned ", results.size(),
           " values for ", node->outputs().size(), " outputs");
  for (size_t i = 0; i < results.size(); ++i) {
    Value* out = node->output(i);
    const IValue& r = results[i];
    out->setType(Type::of(r));
    if (r.isTensor()) {
      set_value(r.toTensor(), out);
    } else if (r.isList()) {
      // Tensor[] results: their elements become values through a prim::ListUnpack.
      const auto& elems = r.toListRef();
      Node* unpack = g.create("prim::ListUnpack", {out}, elems.size());
      unpack->insertAfter(node);
      for (size_t j = 0; j < elems.size(); ++j) {
        unpack->output(j)->setType(Type::of(elems[j]));
        if (elems[j].isTensor()) set_value(elems[j].toTensor(), unpack->output(j));
      }
    }
  }
}

void abandon_op(Node* node) {
  if (!tls_state) return;
  for (Value* v : node->outputs())
    if (v->hasUses()) return;
  node->destroy();
}

}  // namespace tl::jit::tracer
