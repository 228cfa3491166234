// The Python storage type. `torchlite._C.StorageBase` holds a tl::Storage (the StorageImpl every
// view of a tensor shares); the Python class torchlite.UntypedStorage derives from it
// (torchlite/storage.py adds element access, printing, pickling and TypedStorage on top). One
// StorageImpl maps to at most one live Python object (a table in storage.cpp), as in PyTorch, so
// `x.untyped_storage() is x[1:].untyped_storage()`. The object owns a reference to the
// StorageImpl, so the memory outlives every tensor that used it for as long as Python holds it.
#pragma once
#include <Python.h>

#include <vector>

#include "aten/core/Storage.h"

namespace tl::python {

struct StorageObject {
  PyObject_HEAD
  Storage cdata;  // always defined
};

bool is_storage(PyObject* obj);
// The Python object of `s` (creating it on first use, as the registered UntypedStorage class).
PyObject* wrap_storage(const Storage& s);

// Adds StorageBase and _set_storage_class to `module`, and the storage methods of tensors
// (untyped_storage) to `tensor_methods`, before the tensor type is made from them.
void init_storage(PyObject* module, std::vector<PyMethodDef>& tensor_methods);

}  // namespace tl::python
