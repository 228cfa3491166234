// The C++ frontend: one include for programs written against libtorchlite.so (docs/cpp.md).
//
//   #include <aten/api/torchlite.h>
//   tl::Tensor x = tl::randn({4, 3});
//   x.set_requires_grad(true);
//   tl::Tensor loss = tl::sum(tl::relu(x) * 2);
//   tl::backward(loss);                // x.grad() now holds d loss / d x
//
// Every op of native_functions.yaml is a free function in namespace tl with its YAML name and
// defaults (generated/Functions.h); in-place forms end in `_`, out= forms are `name_out(out, ...)`.
// Errors are the C++ exceptions of aten/core/Exception.h (tl::RuntimeError, tl::TypeError...).
#pragma once
#include <initializer_list>
#include <iosfwd>
#include <vector>

#include "aten/autograd/Engine.h"
#include "aten/autograd/GradMode.h"
#include "aten/core/Tensor.h"
#include "generated/Functions.h"

namespace tl {

// Arithmetic operators, as Python's: each is the YAML op of the same meaning.
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator-(const Tensor& a) { return neg(a); }

// A tensor holding a copy of `values` with the given shape (one dimension of values.size() when
// `sizes` is empty), float32 unless `dtype` says otherwise. Raises RuntimeError when the shape's
// element count is not values.size().
Tensor tensor_from(const std::vector<double>& values, std::vector<int64_t> sizes = {},
                   ScalarType dtype = ScalarType::Float32);
// The elements of any real tensor, in row-major order, as doubles.
std::vector<double> values_of(const Tensor& t);

// Reverse-mode autograd, as Tensor.backward() and torch.autograd.grad.
void backward(const Tensor& root, const Tensor& gradient = Tensor(), bool retain_graph = false,
              bool create_graph = false);
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool create_graph = false, bool allow_unused = false);

// Prints as Python prints a tensor's values (nested brackets, 4 decimals for floating types), then
// its shape and dtype: `tensor([[1.0000, 2.0000]], sizes=[1, 2], dtype=float32)`.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tl
