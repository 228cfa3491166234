#pragma once
#include <pybind11/pybind11.h>

namespace tl::python {
// torchlite._C._jit.Module (the saved/loaded module tree) and the archive reader/writer
// (aten/jit/Serialization.h), which torchlite.jit.save / load wrap.
void bind_serialization(pybind11::module_& m);
}  // namespace tl::python
