// TracerWarning from the tensor conversions that bake a value into a trace (bool(t), int(t),
// t.item(), t.tolist()...), as torch.jit.trace warns. No pybind11 here: tensor.cpp includes it.
#pragma once
#include <Python.h>

namespace tl::python::jit {

// Issues torchlite.jit.TracerWarning "<reason> might cause the trace to be incorrect..." when this
// thread traces. Returns false when the warning raised (a warnings filter set to "error").
bool warn_conversion(const char* reason);
// Registers the warning class (torchlite.jit.TracerWarning), at torchlite.jit's import.
void set_tracer_warning_class(PyObject* cls);

}  // namespace tl::python::jit
