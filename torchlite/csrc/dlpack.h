// DLPack export and import (torchlite/csrc/dlpack.cpp).
#pragma once
#include <Python.h>

namespace tl::python {

// _to_dlpack(tensor, versioned): a "dltensor" (or, versioned, "dltensor_versioned") capsule viewing the tensor.
PyObject* py_to_dlpack(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _from_dlpack(capsule): a tensor over the capsule's memory (the capsule is consumed).
PyObject* py_from_dlpack(PyObject* module, PyObject* capsule);

}  // namespace tl::python
