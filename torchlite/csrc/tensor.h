// The Python tensor type. `torchlite._C.TensorBase` holds a tl::Tensor; the Python class
// torchlite.Tensor derives from it and is registered with _C._set_tensor_class, so every
// tensor handed to Python is a torchlite.Tensor. One TensorImpl maps to at most one live
// Python object (TensorImpl::pyobj), so `x.grad is x.grad` and `t.add_(1) is t` hold.
#pragma once
#include <Python.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::python {

struct TensorObject {
  PyObject_HEAD
  Tensor cdata;  // always defined
};

extern PyTypeObject TensorBaseType;
// The class new Python tensors are created as: torchlite.Tensor once registered, else TensorBase.
extern PyTypeObject* g_tensor_class;

inline bool is_tensor(PyObject* obj) {
  PyTypeObject* tp = Py_TYPE(obj);
  return tp == g_tensor_class || tp == &TensorBaseType || PyType_IsSubtype(tp, &TensorBaseType);
}
// The tl::Tensor inside a Python tensor. `obj` must satisfy is_tensor (not checked).
inline const Tensor& unpack_tensor(PyObject* obj) { return reinterpret_cast<TensorObject*>(obj)->cdata; }

// --- C++ -> Python (all return new references; nullptr with a Python error set on failure) ---
// The Python object of `t` (creating it on first use); None for an undefined Tensor.
PyObject* wrap(const Tensor& t);
PyObject* wrap(Tensor&& t);
PyObject* wrap(const std::vector<Tensor>& ts);  // a tuple of tensors
PyObject* wrap(bool v);
PyObject* wrap(int64_t v);
PyObject* wrap(double v);
PyObject* wrap(const Scalar& s);  // bool, int or float
PyObject* wrap(ScalarType t);     // torchlite.dtype
PyObject* wrap(Device d);         // torchlite.device
template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                           !std::is_same_v<T, int64_t>, int> = 0>
PyObject* wrap(T v) {
  return wrap(static_cast<int64_t>(v));
}
// For ops returning void (and `() ->` schemas): None.
inline PyObject* wrap_none() { Py_RETURN_NONE; }

template <typename... Ts>
PyObject* wrap(const std::tuple<Ts...>& values) {
  PyObject* tuple = PyTuple_New(sizeof...(Ts));
  if (!tuple) return nullptr;
  bool ok = true;
  size_t i = 0;
  std::apply(
      [&](const auto&... v) {
        ((ok = ok && [&] {
            PyObject* item = wrap(v);
            if (!item) return false;
            PyTuple_SET_ITEM(tuple, i++, item);
            return true;
          }()),
         ...);
      },
      values);
  if (!ok) {
    Py_DECREF(tuple);
    return nullptr;
  }
  return tuple;
}

// A torchlite.Size (tuple subclass registered by _C._set_size_class; a plain tuple before).
PyObject* make_size(IntArrayRef sizes);

// Creates TensorBase: the handwritten methods/attributes plus `extra_methods` (the generated
// op methods; METH_FASTCALL|METH_KEYWORDS functions taking the tensor as `self`). Operator
// dunders among them (__add__, __radd__, __iadd__, __neg__, __eq__, ... see tensor.cpp) are
// installed as C number/richcompare slots rather than methods, so `a + b` calls them directly.
// Adds `TensorBase` to `module`. Calling it again is a no-op.
void init_tensor_type(PyObject* module, std::vector<PyMethodDef> extra_methods);

// _C._set_tensor_class(cls) / _C._set_size_class(cls) (METH_O).
PyObject* set_tensor_class(PyObject* module, PyObject* cls);
PyObject* set_size_class(PyObject* module, PyObject* cls);

}  // namespace tl::python
