#include "torchlite/csrc/dtype.h"

#include <string>

#include "torchlite/csrc/errors.h"

namespace tl::python {
namespace {

DTypeObject* g_dtypes[kNumScalarTypes] = {};

PyObject* dtype_repr(PyObject* self) {
  auto* d = reinterpret_cast<DTypeObject*>(self);
  return PyUnicode_FromFormat("torchlite.%s", scalar_type_name(d->scalar_type));
}

PyObject* dtype_reduce(PyObject* self, PyObject*) {
  // A string from __reduce__ makes pickle store a reference to the global torchlite.<name>.
  return PyUnicode_FromString(scalar_type_name(reinterpret_cast<DTypeObject*>(self)->scalar_type));
}

PyObject* dtype_is_floating_point(PyObject* self, void*) {
  return PyBool_FromLong(is_floating_type(reinterpret_cast<DTypeObject*>(self)->scalar_type));
}
PyObject* dtype_is_signed(PyObject* self, void*) {
  return PyBool_FromLong(is_signed_type(reinterpret_cast<DTypeObject*>(self)->scalar_type));
}
PyObject* dtype_is_complex(PyObject* self, void*) {
  return PyBool_FromLong(is_complex_type(reinterpret_cast<DTypeObject*>(self)->scalar_type));
}
// PyTorch's dtype.to_real(): complex64 -> float32, complex128 -> float64, others unchanged.
PyObject* dtype_to_real(PyObject* self, PyObject*) {
  TL_PY_TRY
  return dtype_object(to_real_type(reinterpret_cast<DTypeObject*>(self)->scalar_type));
  TL_PY_CATCH
}
// PyTorch's dtype.to_complex(): float32 -> complex64, float64 -> complex128, complex unchanged;
// other dtypes raise (float16 would give complex32, which torchlite lacks).
PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  TL_PY_TRY
  return dtype_object(to_complex_type(reinterpret_cast<DTypeObject*>(self)->scalar_type));
  TL_PY_CATCH
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(element_size(reinterpret_cast<DTypeObject*>(self)->scalar_type));
}

PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"to_real", dtype_to_real, METH_NOARGS, "The real dtype of a complex dtype (complex64 -> float32); others unchanged."},
    {"to_complex", dtype_to_complex, METH_NOARGS, "The complex dtype of a floating dtype (float32 -> complex64)."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, nullptr, "True for float16, bfloat16, float32, float64.", nullptr},
    {"is_signed", dtype_is_signed, nullptr, "False for bool and the unsigned types (uint8, uint16, uint32, uint64).",
     nullptr},
    {"is_complex", dtype_is_complex, nullptr, "True for complex64 and complex128.", nullptr},
    {"itemsize", dtype_itemsize, nullptr, "Size of one element in bytes.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyObject* dtype_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "cannot create torchlite.dtype instances; use torchlite.float32 etc.");
  return nullptr;
}

}  // namespace

PyTypeObject DTypeType = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* dtype_object(ScalarType t) {
  int i = static_cast<int>(t);
  if (i < 0 || i >= kNumScalarTypes || !g_dtypes[i]) throw RuntimeError("dtype_object: undefined dtype");
  PyObject* o = reinterpret_cast<PyObject*>(g_dtypes[i]);
  Py_INCREF(o);
  return o;
}

ScalarType dtype_from_object(PyObject* obj) {
  if (!is_dtype(obj)) throw TypeError(str("expected torchlite.dtype, got ", Py_TYPE(obj)->tp_name));
  return reinterpret_cast<DTypeObject*>(obj)->scalar_type;
}

bool is_dtype_like(PyObject* obj) {
  return is_dtype(obj) || obj == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
         obj == reinterpret_cast<PyObject*>(&PyLong_Type) || obj == reinterpret_cast<PyObject*>(&PyBool_Type);
}

ScalarType dtype_from_dtype_like(PyObject* obj) {
  if (obj == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Float64;
  if (obj == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Int64;
  if (obj == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  return dtype_from_object(obj);
}

void init_dtype(PyObject* module) {
  DTypeType.tp_name = "torchlite.dtype";
  DTypeType.tp_basicsize = sizeof(DTypeObject);
  DTypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  DTypeType.tp_doc = "The element type of a tensor (torchlite.float32, torchlite.int64, ...).";
  DTypeType.tp_repr = dtype_repr;
  DTypeType.tp_str = dtype_repr;
  DTypeType.tp_methods = dtype_methods;
  DTypeType.tp_getset = dtype_getset;
  DTypeType.tp_new = dtype_new;
  if (PyType_Ready(&DTypeType) < 0) throw python_error();
  Py_INCREF(&DTypeType);
  if (PyModule_AddObject(module, "dtype", reinterpret_cast<PyObject*>(&DTypeType)) < 0) throw python_error();
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto* d = PyObject_New(DTypeObject, &DTypeType);
    if (!d) throw python_error();
    d->scalar_type = static_cast<ScalarType>(i);
    g_dtypes[i] = d;  // the table keeps this reference forever
    Py_INCREF(d);
    if (PyModule_AddObject(module, scalar_type_name(d->scalar_type), reinterpret_cast<PyObject*>(d)) < 0) {
      throw python_error();
    }
  }
}

}  // namespace tl::python
