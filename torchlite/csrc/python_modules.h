// The generated function tables, one per torchlite._C submodule ("_ops", and "_nn", "_special", ...
// for entries with `python_module:`), filled by the binding shards and made modules by init_generated.
#pragma once

#include <Python.h>

#include <map>
#include <string>
#include <vector>

namespace tl::python {

using FunctionTables = std::map<std::string, std::vector<PyMethodDef>>;

}  // namespace tl::python
