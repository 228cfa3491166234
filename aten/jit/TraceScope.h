// What the generated Python bindings use to report an op call to the JIT tracer (aten/jit/Tracer.h).
// Kept light on purpose: every binding shard includes it, so it needs neither the IR nor IValue;
// the arguments are boxed by out-of-line `Boxes::add` overloads, one per C++ API argument type,
// and only when this thread traces. When no thread traces, a TraceScope costs one relaxed atomic
// load and a branch.
#pragma once
#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Device.h"
#include "aten/core/Generator.h"
#include "aten/core/Layout.h"
#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::jit {
class Node;
class IValue;
}  // namespace tl::jit

namespace tl::jit::tracer {

// Threads currently tracing (the fast check).
extern std::atomic<int> g_tracing_threads;
bool is_tracing_thread();

// A call's arguments or results, boxed in order.
class Boxes {
 public:
  Boxes();
  ~Boxes();
  Boxes(const Boxes&) = delete;
  Boxes& operator=(const Boxes&) = delete;
  void add(const Tensor& v);
  void add(const std::optional<Tensor>& v);
  void add(TensorList v);
  void add(const std::vector<Tensor>& v);
  void add(const std::vector<std::optional<Tensor>>& v);
  void add(const Scalar& v);
  void add(const std::optional<Scalar>& v);
  void add(int64_t v);
  void add(std::optional<int64_t> v);
  void add(double v);
  void add(std::optional<double> v);
  void add(bool v);
  void add(std::optional<bool> v);
  void add(const std::string& v);
  void add(std::string_view v);
  void add(std::optional<std::string_view> v);
  void add(IntArrayRef v);
  void add(OptionalIntArrayRef v);
  void add(ArrayRef<double> v);
  void add(std::optional<ArrayRef<double>> v);
  void add(ScalarType v);
  void add(std::optional<ScalarType> v);
  void add(Device v);
  void add(std::optional<Device> v);
  void add(const std::optional<Generator>& v);
  void add(std::optional<Layout> v);
  void add(MemoryFormat v);
  void add(std::optional<MemoryFormat> v);
  template <size_t N>
  void add(const std::array<bool, N>& v) {
    add_bools(v.data(), N);
  }
  template <typename... Ts>
  void add(const std::tuple<Ts...>& t) {  // several results: one box each
    std::apply([this](const auto&... v) { (add(v), ...); }, t);
  }
  std::vector<IValue>& values();

 private:
  void add_bools(const bool* v, size_t n);
  std::unique_ptr<std::vector<IValue>> values_;
};

// Records a call of `op` ("add.Tensor") on `args` (schema order) as a node; `finish_op` binds its
// outputs to the results; a node whose op threw is removed by `abandon_op`.
Node* begin_op(const char* op, Boxes& args);
void finish_op(Node* node, Boxes& results);
void abandon_op(Node* node);

class TraceScope {
 public:
  template <typename... Args>
  explicit TraceScope(const char* op, const Args&... args) {
    if (__builtin_expect(g_tracing_threads.load(std::memory_order_relaxed) != 0, 0) && is_tracing_thread()) {
      Boxes boxes;
      (boxes.add(args), ...);
      node_ = begin_op(op, boxes);
    }
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() {
    if (node_) abandon_op(node_);
  }
  template <typename R>
  void done(const R& result) {
    if (node_) {
      Boxes boxes;
      boxes.add(result);
      finish_op(node_, boxes);
      node_ = nullptr;
    }
  }
  void done() {
    if (node_) {
      Boxes boxes;
      finish_op(node_, boxes);
      node_ = nullptr;
    }
  }

 private:
  Node* node_ = nullptr;
};

}  // namespace tl::jit::tracer
