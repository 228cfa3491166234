// Named tuples for ops with several named returns (`max.dim -> (Tensor values, Tensor indices)`):
// one struct-sequence type per op, torchlite.return_types.<name>, like torch.return_types.
// The generated bindings create them at import and wrap their results in them.
#pragma once
#include <Python.h>

#include <initializer_list>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::python {

// The type torchlite.return_types.<name> with these fields, created on first use and added to
// the module torchlite._C._return_types. Throws python_error on failure.
PyTypeObject* return_type(const char* name, std::initializer_list<const char*> fields);
// The module holding the types (a new reference), for init_generated.
PyObject* return_types_module();

// Converts a tuple (a new reference, stolen; nullptr passes through) into an instance of `type`.
PyObject* wrap_named(PyTypeObject* type, PyObject* tuple);

// The tensors of an `out=` tuple of an op with several outputs: TypeError unless it has `n`.
void check_out_tuple(const std::vector<Tensor>& out, size_t n);

}  // namespace tl::python
