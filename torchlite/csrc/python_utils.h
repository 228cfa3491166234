// Small helpers shared by the CPython glue: number checks and conversions, NumPy type
// detection without linking against NumPy (its types are looked up once numpy is imported).
#pragma once
#include <Python.h>

#include <cstdint>

#include "aten/core/Scalar.h"

namespace tl::python {

struct NumpyTypes {
  PyTypeObject* ndarray = nullptr;
  PyTypeObject* generic = nullptr;
  PyTypeObject* integer = nullptr;
  PyTypeObject* floating = nullptr;
  PyTypeObject* bool_ = nullptr;
  PyTypeObject* complexfloating = nullptr;
};
// NumPy's types, or nullptr while numpy has not been imported (then no NumPy object can exist).
const NumpyTypes* numpy_types();

bool is_ndarray(PyObject* obj);
bool is_numpy_int(PyObject* obj);
bool is_numpy_float(PyObject* obj);
bool is_numpy_bool(PyObject* obj);
bool is_numpy_complex(PyObject* obj);
// A Python complex, or a NumPy complex scalar (numpy.complex64 is no subclass of complex).
inline bool is_complex_number(PyObject* obj) { return PyComplex_Check(obj) || is_numpy_complex(obj); }
bool is_numpy_scalar(PyObject* obj);  // any numpy.generic

// A Python int that is not a bool.
inline bool is_py_int(PyObject* obj) { return PyLong_CheckExact(obj) || (PyLong_Check(obj) && !PyBool_Check(obj)); }

// Python int (or __index__ object) -> int64; RuntimeError "Overflow when unpacking long" when out of range.
int64_t unpack_int64(PyObject* obj);
// float(obj) as double (Python float, int, numpy scalar...).
double unpack_double(PyObject* obj);
// Python bool/int/float, NumPy bool/integer/floating scalars -> Scalar of the matching kind.
// 0-d tensors are handled by the caller (the argument parser). Throws TypeError otherwise.
Scalar unpack_scalar_number(PyObject* obj);
// True when unpack_scalar_number accepts `obj`.
bool is_scalar_number(PyObject* obj);

PyObject* wrap_scalar(const Scalar& s);

// Python type name for messages: "int", "Tensor", "numpy.float32", "NoneType".
const char* py_typename(PyObject* obj);

}  // namespace tl::python
