#pragma once
#include <Python.h>

namespace tl::python {
// Adds torchlite._C._jit (the IR, the interpreter, the tracer's hooks), made with pybind11.
void init_jit(PyObject* module);
}  // namespace tl::python
