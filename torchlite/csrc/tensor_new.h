// Conversions between Python data and tensors: torchlite.tensor(), from_numpy(), tolist(),
// and the __array_interface__ that makes np.asarray(tensor) a zero-copy view.
#pragma once
#include <Python.h>

#include <optional>

#include "aten/core/Tensor.h"

namespace tl::python {

// Nested lists/tuples of Python numbers, NumPy arrays and scalars, tensors. Always copies.
// dtype inference: promote over the elements (Python float -> default dtype, int -> int64,
// bool -> bool, NumPy values and tensors -> their dtype); an empty list gives the default dtype.
Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device);

// Zero-copy view of a NumPy array (the tensor keeps the array alive).
Tensor tensor_from_numpy(PyObject* array);

// Nested Python lists (a Python number for a 0-d tensor).
PyObject* tensor_to_list(const Tensor& t);

// The NumPy array interface (version 3) dict of a CPU tensor.
PyObject* tensor_array_interface(const Tensor& t);
// An object exposing that interface that holds the tensor's storage: np.asarray of it is a
// zero-copy array whose base keeps the memory alive. Marks the storage non-resizable, as PyTorch does.
PyObject* tensor_numpy_holder(const Tensor& t);

// Bindings (METH_FASTCALL | METH_KEYWORDS / METH_O) for the _C module.
// tensor(data, *, dtype=None, device=None, requires_grad=False)
PyObject* py_tensor(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* py_from_numpy(PyObject* module, PyObject* array);

}  // namespace tl::python
