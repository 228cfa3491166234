// Python objects for backward-graph nodes: what `tensor.grad_fn` and `next_functions` return.
// Each node class shows up as its own Python type named after it (MulBackward0, ...), all
// subclasses of torchlite._C._autograd.Node. One node maps to at most one live Python object,
// so `y.grad_fn is y.grad_fn` holds.
#pragma once
#include <Python.h>

#include <memory>

#include "aten/autograd/Node.h"

namespace tl::python {

struct NodeObject {
  PyObject_HEAD
  std::shared_ptr<autograd::Node> cdata;
  PyObject* weakreflist;
};

extern PyTypeObject NodeBaseType;

// The Python object for `node` (new reference); None for a null node; nullptr with a Python
// error set on failure.
PyObject* wrap_node(const std::shared_ptr<autograd::Node>& node);
bool is_node(PyObject* obj);
// `obj` must satisfy is_node.
const std::shared_ptr<autograd::Node>& unpack_node(PyObject* obj);

// A handle whose remove() takes hook `id` off `node` (holds the node weakly).
PyObject* make_node_hook_handle(const std::shared_ptr<autograd::Node>& node, uint64_t id);

// Readies the Node type and adds it (and the hook-handle type) to `module`. Returns false with a
// Python error set on failure.
bool init_node_types(PyObject* module);

}  // namespace tl::python
