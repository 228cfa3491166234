// C++ hooks that call Python callables (tensor.register_hook, node.register_hook, ...).
// They take the GIL themselves; a Python exception raised by the callable leaves the Python
// error set and throws tl::python::python_error, which the binding that started backward
// reports (TL_PY_CATCH).
#pragma once
#include <Python.h>

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/Node.h"

namespace tl::python {

// fn(grad) -> Tensor or None.
autograd::TensorHook make_tensor_hook(PyObject* fn);
// fn(grad_outputs: tuple) -> tuple or None.
autograd::NodePreHook make_node_pre_hook(PyObject* fn);
// fn(grad_inputs: tuple, grad_outputs: tuple) -> tuple or None.
autograd::NodePostHook make_node_post_hook(PyObject* fn);
// fn(tensor) -> None.
autograd::PostAccumulateGradHook make_post_accumulate_grad_hook(PyObject* fn);

}  // namespace tl::python
