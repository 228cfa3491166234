// The torchlite._C._autograd module: the engine entry points and grad-mode switches used by
// torchlite/autograd/, the grad_fn Node type, and tensor-level autograd helpers
// (hooks, retain_grad) for the Tensor bindings.
#pragma once
#include <Python.h>

namespace tl::python {

// Creates torchlite._C._autograd, adds it to `module` as `_autograd` and to sys.modules.
// Returns false with a Python error set on failure.
bool init_autograd(PyObject* module);

}  // namespace tl::python
