// torchlite.device: an immutable (type, index) pair. device("cpu"), device("cpu", 0),
// device("cpu:0"), device("meta"); compared by value, hashable, str() gives "cpu" / "cpu:0".
#pragma once
#include <Python.h>

#include "aten/core/Device.h"

namespace tl::python {

struct DeviceObject {
  PyObject_HEAD
  Device device;
};

extern PyTypeObject DeviceType;

// New reference to a torchlite.device for `d` (cached: equal devices share one object).
PyObject* device_object(Device d);
inline bool is_device(PyObject* obj) { return Py_TYPE(obj) == &DeviceType; }
// A torchlite.device, a string ("cpu", "meta", "cpu:0") or an int (a CPU device index).
// TypeError for other types, RuntimeError for an invalid string.
Device device_from_object(PyObject* obj);
// Whether device_from_object accepts the type of `obj` (not whether the value is valid).
bool is_device_like(PyObject* obj);

void init_device(PyObject* module);

}  // namespace tl::python
