// Custom autograd functions written in Python (torchlite.autograd.Function).
//
// Function.apply (torchlite/autograd/function.py) runs forward under no_grad, then calls
// _C._autograd._create_py_node, which records a PyNode: a Node whose apply() takes the GIL and
// calls ctx._run_backward(grads) in Python. The ctx object is a Python subclass of
// _C._autograd._FunctionCtx; the node holds it strongly, it holds the node weakly. The tensors
// passed to ctx.save_for_backward are kept by the node as SavedVariables (version-checked, and
// outputs of the node kept without a reference back to it, so no cycle), and come back through
// ctx.saved_tensors.
//
// Anomaly mode's Python side is here too: the hooks that record the forward stack in each node's
// metadata and warn with it when the node's backward fails.
#pragma once
#include <Python.h>

#include "aten/autograd/Node.h"

namespace tl::python {

// The ctx object of a node made by a custom Function (borrowed), or nullptr for other nodes.
PyObject* py_node_ctx(const autograd::Node& node);

// Adds _FunctionCtx, _create_py_node and the anomaly/inference/graph helpers to `module`
// (torchlite._C._autograd), and _cpu_allocated_bytes to `parent` (torchlite._C).
bool init_python_function(PyObject* module, PyObject* parent);

}  // namespace tl::python
