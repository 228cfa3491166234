#include "aten/autograd/NotImplementedOut.h"

#include <memory>
#include <string>
#include <string_view>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"

namespace tl::autograd {
namespace {

// PyTorch's torch::autograd::NotImplemented: the node of an op without a derivative formula.
struct NotImplemented final : Node {
  explicit NotImplemented(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "torch::autograd::NotImplemented"; }
  variable_list apply(variable_list&&) override {
    throw RuntimeError(str("derivative for aten::", op_, " is not implemented"));
  }
  std::string op_;  // without its overload name, as PyTorch's message
};

std::string base_name(const char* op) {
  const std::string_view name(op);
  return std::string(name.substr(0, name.find('.')));
}

}  // namespace

bool out_records_not_implemented(const char* op, std::initializer_list<const Tensor*> inputs,
                                 std::initializer_list<const Tensor*> outputs, std::initializer_list<TensorList> lists) {
  check_out_no_grad(op, {}, outputs);
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (t && t->defined() && t->requires_grad()) return true;
  }
  for (TensorList list : lists) {
    for (const Tensor& t : list) {
      if (t.defined() && t.requires_grad()) return true;
    }
  }
  return false;
}

void record_not_implemented_out(const char* op, std::initializer_list<const Tensor*> inputs,
                                std::initializer_list<const Tensor*> outputs, std::initializer_list<TensorList> lists) {
  auto node = std::make_shared<NotImplemented>(base_name(op));
  std::vector<Edge> edges = collect_next_edges(inputs);
  for (TensorList list : lists) {
    for (const Tensor& t : list) edges.push_back(gradient_edge(t));
  }
  node->set_next_edges(std::move(edges));
  for (const Tensor* out : outputs) rebase_history(*out, node);
}

}  // namespace tl::autograd
