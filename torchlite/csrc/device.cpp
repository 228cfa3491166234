#include "torchlite/csrc/device.h"

#include <string>

#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/python_utils.h"

namespace tl::python {
namespace {

constexpr int kCachedIndices = 17;  // index -1 .. 15
DeviceObject* g_cache[kNumDeviceTypes][kCachedIndices] = {};

Device device_from_index(long long index) {
  TL_CHECK(index == 0, "device: cpu has only device index 0, got ", index);
  return Device(DeviceType::CPU, 0);
}

PyObject* device_repr(PyObject* self) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  if (d.index < 0) return PyUnicode_FromFormat("device(type='%s')", device_type_name(d.type));
  return PyUnicode_FromFormat("device(type='%s', index=%d)", device_type_name(d.type), static_cast<int>(d.index));
}

PyObject* device_str(PyObject* self) {
  return PyUnicode_FromString(reinterpret_cast<DeviceObject*>(self)->device.str().c_str());
}

Py_hash_t device_hash(PyObject* self) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  Py_hash_t h = static_cast<Py_hash_t>(static_cast<int>(d.type) * 1000003 + d.index + 2);
  return h == -1 ? -2 : h;
}

PyObject* device_richcompare(PyObject* self, PyObject* other, int op) {
  if ((op != Py_EQ && op != Py_NE) || !is_device(other)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<DeviceObject*>(self)->device == reinterpret_cast<DeviceObject*>(other)->device;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

PyObject* device_type_get(PyObject* self, void*) {
  return PyUnicode_FromString(device_type_name(reinterpret_cast<DeviceObject*>(self)->device.type));
}

PyObject* device_index_get(PyObject* self, void*) {
  int8_t index = reinterpret_cast<DeviceObject*>(self)->device.index;
  if (index < 0) Py_RETURN_NONE;
  return PyLong_FromLong(index);
}

PyObject* device_reduce(PyObject* self, PyObject*) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  if (d.index < 0) {
    return Py_BuildValue("(O(s))", reinterpret_cast<PyObject*>(&DeviceType), device_type_name(d.type));
  }
  return Py_BuildValue("(O(si))", reinterpret_cast<PyObject*>(&DeviceType), device_type_name(d.type),
                       static_cast<int>(d.index));
}

// device(type_or_string_or_device, index=None)
PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_TRY
  static const char* kwlist[] = {"type", "index", nullptr};
  PyObject* spec = nullptr;
  PyObject* index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", const_cast<char**>(kwlist), &spec, &index)) {
    return nullptr;
  }
  if (is_device(spec) && index == Py_None) {
    Py_INCREF(spec);
    return spec;
  }
  if (PyLong_Check(spec) && !PyBool_Check(spec) && index == Py_None) {
    long long i = unpack_int64(spec);
    return device_object(device_from_index(i));
  }
  if (!PyUnicode_Check(spec)) {
    throw TypeError(str("device() received an invalid combination of arguments - got (",
                        Py_TYPE(spec)->tp_name, "), but expected one of:\n * (torchlite.device device)\n"
                        " * (str type, int index = None)\n"));
  }
  const char* s = PyUnicode_AsUTF8(spec);
  if (!s) throw python_error();
  Device d = Device::parse(s);
  if (index != Py_None) {
    TL_CHECK_TYPE(PyLong_Check(index) && !PyBool_Check(index), "device(): argument 'index' must be int, not ",
                  Py_TYPE(index)->tp_name);
    TL_CHECK(d.index < 0, "type (string) must not include an index because index was passed explicitly: ", s);
    long long i = unpack_int64(index);
    TL_CHECK(i >= 0, "Device index must not be negative");
    TL_CHECK(i <= 127, "Device index must be at most 127, got ", i);
    d = Device::parse(std::string(s) + ":" + std::to_string(i));
  }
  return device_object(d);
  TL_PY_CATCH
}

PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef device_getset[] = {
    {"type", device_type_get, nullptr, "The device type: 'cpu' or 'meta'.", nullptr},
    {"index", device_index_get, nullptr, "The device index, or None.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

PyTypeObject DeviceType = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* device_object(Device d) {
  int t = static_cast<int>(d.type);
  int slot = d.index + 1;
  bool cacheable = t >= 0 && t < kNumDeviceTypes && slot >= 0 && slot < kCachedIndices;
  if (cacheable && g_cache[t][slot]) {
    Py_INCREF(g_cache[t][slot]);
    return reinterpret_cast<PyObject*>(g_cache[t][slot]);
  }
  auto* obj = PyObject_New(DeviceObject, &DeviceType);
  if (!obj) throw python_error();
  obj->device = d;
  if (cacheable) {
    Py_INCREF(obj);
    g_cache[t][slot] = obj;
  }
  return reinterpret_cast<PyObject*>(obj);
}

bool is_device_like(PyObject* obj) {
  return is_device(obj) || PyUnicode_Check(obj) || (PyLong_Check(obj) && !PyBool_Check(obj));
}

Device device_from_object(PyObject* obj) {
  if (is_device(obj)) return reinterpret_cast<DeviceObject*>(obj)->device;
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8(obj);
    if (!s) throw python_error();
    return Device::parse(s);
  }
  if (PyLong_Check(obj) && !PyBool_Check(obj)) {
    long long i = unpack_int64(obj);
    return device_from_index(i);
  }
  throw TypeError(str("expected torchlite.device, str or int, got ", Py_TYPE(obj)->tp_name));
}

void init_device(PyObject* module) {
  DeviceType.tp_name = "torchlite.device";
  DeviceType.tp_basicsize = sizeof(DeviceObject);
  DeviceType.tp_flags = Py_TPFLAGS_DEFAULT;
  DeviceType.tp_doc = "device(type, index=None): where a tensor's data lives ('cpu' or 'meta').";
  DeviceType.tp_repr = device_repr;
  DeviceType.tp_str = device_str;
  DeviceType.tp_hash = device_hash;
  DeviceType.tp_richcompare = device_richcompare;
  DeviceType.tp_methods = device_methods;
  DeviceType.tp_getset = device_getset;
  DeviceType.tp_new = device_new;
  if (PyType_Ready(&DeviceType) < 0) throw python_error();
  Py_INCREF(&DeviceType);
  if (PyModule_AddObject(module, "device", reinterpret_cast<PyObject*>(&DeviceType)) < 0) throw python_error();
}

}  // namespace tl::python
