// torchlite.layout (torchlite.strided) and torchlite.memory_format (contiguous_format,
// preserve_format, channels_last, channels_last_3d): singleton objects like torch's.
#pragma once
#include <Python.h>

#include "aten/core/Layout.h"

namespace tl::python {

bool is_layout(PyObject* obj);
bool is_memory_format(PyObject* obj);
Layout unpack_layout(PyObject* obj);              // obj must satisfy is_layout
MemoryFormat unpack_memory_format(PyObject* obj);  // obj must satisfy is_memory_format

// Adds the types and their objects to `module`.
void init_layout(PyObject* module);

}  // namespace tl::python
