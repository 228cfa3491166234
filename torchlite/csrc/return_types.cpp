#include "torchlite/csrc/return_types.h"

#include <structmember.h>

#include <string>

#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"

namespace tl::python {
namespace {

PyObject* g_module = nullptr;

// torch's layout: the type name, then one `field=value` per line.
PyObject* named_tuple_repr(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  std::string text = std::string(type->tp_name) + "(";
  Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    const char* s = PyUnicode_AsUTF8(r);
    if (!s) {
      Py_DECREF(r);
      return nullptr;
    }
    text += std::string("\n") + type->tp_members[i].name + "=" + s + (i + 1 < n ? "," : "");
    Py_DECREF(r);
  }
  text += ")";
  return PyUnicode_FromString(text.c_str());
}

}  // namespace

PyObject* return_types_module() {
  if (!g_module) {
    static PyModuleDef def = {PyModuleDef_HEAD_INIT, "torchlite._C._return_types",
                              "Named tuples returned by ops with several named outputs.", -1, nullptr};
    g_module = PyModule_Create(&def);
    if (!g_module) throw python_error();
  }
  Py_INCREF(g_module);
  return g_module;
}

PyTypeObject* return_type(const char* name, std::initializer_list<const char*> fields) {
  PyRef module(return_types_module());
  if (PyObject* existing = PyObject_GetAttrString(module.get(), name)) {
    Py_DECREF(existing);  // the module keeps it alive
    return reinterpret_cast<PyTypeObject*>(existing);
  }
  PyErr_Clear();
  // The descriptors must outlive the type: they are kept for the life of the process.
  auto* members = new PyStructSequence_Field[fields.size() + 1];
  size_t i = 0;
  for (const char* f : fields) members[i++] = {f, nullptr};
  members[i] = {nullptr, nullptr};
  auto* full_name = new std::string(std::string("torchlite.return_types.") + name);
  auto* desc = new PyStructSequence_Desc{full_name->c_str(), nullptr, members, static_cast<int>(fields.size())};
  PyTypeObject* type = PyStructSequence_NewType(desc);
  if (!type) throw python_error();
  type->tp_repr = named_tuple_repr;
  if (PyModule_AddObject(module.get(), name, reinterpret_cast<PyObject*>(type)) < 0) {
    Py_DECREF(type);
    throw python_error();
  }
  return type;
}

PyObject* wrap_named(PyTypeObject* type, PyObject* tuple) {
  if (!tuple) return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  PyObject* result = PyStructSequence_New(type);
  if (!result) {
    Py_DECREF(tuple);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(tuple, i);
    Py_INCREF(item);
    PyStructSequence_SET_ITEM(result, i, item);
  }
  Py_DECREF(tuple);
  return result;
}

void check_out_tuple(const std::vector<Tensor>& out, size_t n) {
  TL_CHECK_TYPE(out.size() == n, "expected tuple of ", n, " elements but got ", out.size());
}

}  // namespace tl::python
