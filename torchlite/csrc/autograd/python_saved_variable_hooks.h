// Python side of saved-tensor hooks (torchlite.autograd.graph.saved_tensors_hooks).
#pragma once
#include <Python.h>

namespace tl::python {

// _push_saved_tensors_default_hooks(pack_hook, unpack_hook): pack_hook(tensor) -> any object,
// unpack_hook(that object) -> Tensor, for the tensors saved on this thread until the matching pop.
PyObject* py_push_saved_tensors_default_hooks(PyObject* self, PyObject* args);
PyObject* py_pop_saved_tensors_default_hooks(PyObject* self, PyObject* noargs);

}  // namespace tl::python
