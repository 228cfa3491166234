#include "torchlite/csrc/python_utils.h"

#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

const NumpyTypes* numpy_types() {
  static NumpyTypes types;
  static bool ready = false;
  if (ready) return &types;
  static PyObject* name = PyUnicode_InternFromString("numpy");
  if (!name) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* mod = PyImport_GetModule(name);  // does not import; null (no error) if absent
  if (!mod) {
    PyErr_Clear();
    return nullptr;
  }
  auto get = [&](const char* attr) -> PyTypeObject* {
    PyObject* t = PyObject_GetAttrString(mod, attr);
    if (!t || !PyType_Check(t)) {
      PyErr_Clear();
      Py_XDECREF(t);
      return nullptr;
    }
    return reinterpret_cast<PyTypeObject*>(t);  // kept forever
  };
  types.ndarray = get("ndarray");
  types.generic = get("generic");
  types.integer = get("integer");
  types.floating = get("floating");
  types.bool_ = get("bool_");
  types.complexfloating = get("complexfloating");
  Py_DECREF(mod);
  if (!types.ndarray || !types.generic || !types.integer || !types.floating || !types.bool_ ||
      !types.complexfloating) {
    return nullptr;
  }
  ready = true;
  return &types;
}

bool is_ndarray(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->ndarray);
}
bool is_numpy_int(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->integer);
}
bool is_numpy_float(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->floating);
}
bool is_numpy_bool(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->bool_);
}
bool is_numpy_complex(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->complexfloating);
}
bool is_numpy_scalar(PyObject* obj) {
  const NumpyTypes* np = numpy_types();
  return np && PyObject_TypeCheck(obj, np->generic);
}

int64_t unpack_int64(PyObject* obj) {
  int overflow = 0;
  long long v;
  if (PyLong_Check(obj)) {
    v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  } else {
    PyRef idx(PyNumber_Index(obj));
    if (!idx) throw python_error();
    v = PyLong_AsLongLongAndOverflow(idx.get(), &overflow);
  }
  if (overflow != 0) throw RuntimeError("Overflow when unpacking long");
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return static_cast<int64_t>(v);
}

double unpack_double(PyObject* obj) {
  if (PyFloat_CheckExact(obj)) return PyFloat_AS_DOUBLE(obj);
  double v = PyFloat_AsDouble(obj);
  if (v == -1.0 && PyErr_Occurred()) throw python_error();
  return v;
}

bool is_scalar_number(PyObject* obj) {
  return PyFloat_Check(obj) || PyLong_Check(obj) || PyComplex_Check(obj) || is_numpy_scalar(obj);
}

Scalar unpack_scalar_number(PyObject* obj) {
  if (PyFloat_Check(obj)) return Scalar(PyFloat_AS_DOUBLE(obj));
  if (PyBool_Check(obj)) return Scalar(obj == Py_True);
  if (PyLong_Check(obj)) return Scalar(unpack_int64(obj));
  if (is_numpy_bool(obj)) {
    // As in PyTorch, a NumPy bool is not a Python bool: it converts through float.
    int t = PyObject_IsTrue(obj);
    if (t < 0) throw python_error();
    return Scalar(t != 0 ? 1.0 : 0.0);
  }
  if (is_numpy_int(obj)) return Scalar(unpack_int64(obj));
  if (is_numpy_float(obj)) return Scalar(unpack_double(obj));
  if (is_numpy_complex(obj) && !PyComplex_Check(obj)) {
    // numpy.complex64 (no subclass of complex): PyTorch reads it as a float, its real part
    // (NumPy warns that the imaginary part is discarded).
    return Scalar(unpack_double(obj));
  }
  if (PyComplex_Check(obj)) {
    const Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error();
    return Scalar(std::complex<double>(c.real, c.imag));
  }
  throw TypeError(str("expected a number, got ", py_typename(obj)));
}

PyObject* wrap_scalar(const Scalar& s) {
  if (s.is_bool()) return PyBool_FromLong(s.to_bool());
  if (s.is_uint64()) return PyLong_FromUnsignedLongLong(s.to_uint64_bits());
  if (s.is_integral()) return PyLong_FromLongLong(s.to_long());
  if (s.is_complex()) return PyComplex_FromDoubles(s.to_complex().real(), s.to_complex().imag());
  return PyFloat_FromDouble(s.to_double());
}

const char* py_typename(PyObject* obj) {
  if (is_tensor(obj)) return "Tensor";
  return Py_TYPE(obj)->tp_name;
}

}  // namespace tl::python
