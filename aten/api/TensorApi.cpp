// The C++ frontend's helpers around tensors (aten/api/torchlite.h): making a tensor from values,
// reading values back, autograd entry points, printing.
#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "aten/api/torchlite.h"

namespace tl {

Tensor tensor_from(const std::vector<double>& values, std::vector<int64_t> sizes, ScalarType dtype) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(values.size())};
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw RuntimeError(str("tensor_from: negative dimension ", s, " in the shape"));
    n *= s;
  }
  if (n != static_cast<int64_t>(values.size()))
    throw RuntimeError(str("tensor_from: shape ", IntArrayRef(sizes), " holds ", n, " elements but ",
                           values.size(), " values were given"));
  Tensor t = empty_tensor(sizes, ScalarType::Float64);
  if (n) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(double));
  return dtype == ScalarType::Float64 ? t : to(t, dtype);
}

std::vector<double> values_of(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  Tensor d = contiguous(to(t, ScalarType::Float64));
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

void backward(const Tensor& root, const Tensor& gradient, bool retain_graph, bool create_graph) {
  autograd::backward({root}, {gradient}, retain_graph, create_graph);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph, bool create_graph,
                         bool allow_unused) {
  std::vector<Tensor> gos = grad_outputs;
  gos.resize(outputs.size());  // undefined: ones for a one-element output, as torch.autograd.grad
  return autograd::grad(outputs, inputs, gos, retain_graph || create_graph, create_graph, allow_unused);
}

namespace {

void print_values(std::ostream& os, const std::vector<double>& v, IntArrayRef sizes, size_t dim,
                  size_t& at, ScalarType dtype) {
  if (dim == sizes.size()) {
    double x = v[at++];
    if (dtype == ScalarType::Bool) os << (x != 0 ? "True" : "False");
    else if (is_floating_type(dtype)) os << std::fixed << std::setprecision(4) << x;
    else os << static_cast<long long>(x);
    return;
  }
  os << '[';
  for (int64_t i = 0; i < sizes[dim]; ++i) {
    if (i) os << (dim + 1 == sizes.size() ? ", " : ",\n" + std::string(dim + 8, ' '));
    print_values(os, v, sizes, dim + 1, at, dtype);
  }
  os << ']';
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ undefined tensor ]";
  std::ostringstream s;
  s << "tensor(";
  if (t.is_meta()) {
    s << "...";
  } else {
    size_t at = 0;
    print_values(s, values_of(t), t.sizes(), 0, at, t.dtype());
  }
  s << ", sizes=" << t.sizes() << ", dtype=" << scalar_type_name(t.dtype()) << ')';
  return os << s.str();
}

}  // namespace tl
