// torchlite.dtype: one immutable singleton Python object per ScalarType
// (torchlite.float32 is torchlite.float), compared by identity and pickled by name.
#pragma once
#include <Python.h>

#include "aten/core/ScalarType.h"

namespace tl::python {

struct DTypeObject {
  PyObject_HEAD
  ScalarType scalar_type;
};

extern PyTypeObject DTypeType;

// New reference to the singleton for `t` (t must not be Undefined).
PyObject* dtype_object(ScalarType t);
inline bool is_dtype(PyObject* obj) { return Py_TYPE(obj) == &DTypeType; }
// The ScalarType of a torchlite.dtype; TypeError for anything else.
ScalarType dtype_from_object(PyObject* obj);
// Like PyTorch, the Python types float, int and bool also name dtypes (float64, int64, bool).
bool is_dtype_like(PyObject* obj);
ScalarType dtype_from_dtype_like(PyObject* obj);

// Readies the type and adds it as `dtype` plus one attribute per dtype name ("float32", ...).
void init_dtype(PyObject* module);

}  // namespace tl::python
