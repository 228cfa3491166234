#include "torchlite/csrc/layout.h"

#include <string>

#include "torchlite/csrc/errors.h"

namespace tl::python {
namespace {

struct EnumObject {
  PyObject_HEAD
  int8_t value;
  const char* name;  // "strided", "channels_last"
};

PyObject* enum_repr(PyObject* self) {
  return PyUnicode_FromString((std::string("torchlite.") + reinterpret_cast<EnumObject*>(self)->name).c_str());
}

PyObject* enum_reduce(PyObject* self, PyObject*) {
  // Pickled by name, like torch's: unpickling gives back the same singleton.
  return PyUnicode_FromString(reinterpret_cast<EnumObject*>(self)->name);
}

PyMethodDef enum_methods[] = {
    {"__reduce__", enum_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyTypeObject make_type(const char* name, const char* doc) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(EnumObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = doc;
  t.tp_repr = enum_repr;
  t.tp_methods = enum_methods;
  return t;
}

PyTypeObject LayoutType = make_type("torchlite.layout", "The memory layout of a tensor: torchlite.strided (dense).");
PyTypeObject MemoryFormatType = make_type(
    "torchlite.memory_format",
    "How a dense tensor's elements are ordered in memory: contiguous_format, preserve_format, channels_last, "
    "channels_last_3d.");

void add_object(PyObject* module, PyTypeObject* type, int8_t value, const char* name) {
  auto* obj = reinterpret_cast<EnumObject*>(type->tp_alloc(type, 0));
  if (!obj) throw python_error();
  obj->value = value;
  obj->name = name;
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(obj)) < 0) {
    Py_DECREF(obj);
    throw python_error();
  }
}

void add_type(PyObject* module, PyTypeObject* type, const char* name) {
  if (PyType_Ready(type) < 0) throw python_error();
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(type)) < 0) {
    Py_DECREF(type);
    throw python_error();
  }
}

}  // namespace

bool is_layout(PyObject* obj) { return Py_TYPE(obj) == &LayoutType; }
bool is_memory_format(PyObject* obj) { return Py_TYPE(obj) == &MemoryFormatType; }
Layout unpack_layout(PyObject* obj) { return static_cast<Layout>(reinterpret_cast<EnumObject*>(obj)->value); }
MemoryFormat unpack_memory_format(PyObject* obj) {
  return static_cast<MemoryFormat>(reinterpret_cast<EnumObject*>(obj)->value);
}

void init_layout(PyObject* module) {
  add_type(module, &LayoutType, "layout");
  add_type(module, &MemoryFormatType, "memory_format");
  add_object(module, &LayoutType, static_cast<int8_t>(Layout::Strided), "strided");
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                         MemoryFormat::ChannelsLast3d}) {
    add_object(module, &MemoryFormatType, static_cast<int8_t>(f), memory_format_name(f));
  }
}

}  // namespace tl::python
