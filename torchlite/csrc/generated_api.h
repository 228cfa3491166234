// Entry point of the generated Python bindings (generated/python/init.cpp).
#pragma once
#include <Python.h>

#include <vector>

namespace tl::python {

// Creates the submodule `_ops` of `module` (the generated functions) and appends the generated
// Tensor methods (including operator dunders) to `tensor_methods`, for init_tensor_type.
void init_generated(PyObject* module, std::vector<PyMethodDef>& tensor_methods);

}  // namespace tl::python
