// The extension module torchlite._C: dtype/device/TensorBase types, the generated operator
// bindings (torchlite._C._ops), autograd (torchlite._C._autograd) and a few module functions.
#include <Python.h>

#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Generator.h"
#include "aten/core/Parallel.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Warning.h"
#include "aten/native/TypePromotion.h"
#include "torchlite/csrc/autograd/python_engine.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/dlpack.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/generator.h"
#include "torchlite/csrc/jit/init.h"
#include "torchlite/csrc/layout.h"
#include "torchlite/csrc/generated_api.h"
#include "torchlite/csrc/python_arg_parser.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/storage.h"
#include "torchlite/csrc/tensor.h"
#include "torchlite/csrc/tensor_new.h"

namespace tl::python {
namespace {

PyObject* py_promote_types(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"promote_types(ScalarType type1, ScalarType type2)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  return dtype_object(promote_types(r.scalartype(0), r.scalartype(1)));
  TL_PY_CATCH
}

PyObject* py_can_cast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"can_cast(ScalarType from_, ScalarType to)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  return PyBool_FromLong(can_cast(r.scalartype(0), r.scalartype(1)));
  TL_PY_CATCH
}

PyObject* py_result_type(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({
      "result_type(Tensor tensor, Tensor other)",
      "result_type(Tensor tensor, Scalar other)",
      "result_type(Scalar scalar, Tensor tensor)",
      "result_type(Scalar scalar1, Scalar scalar2)",
  }, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  ScalarType t = ScalarType::Undefined;
  switch (r.idx) {
    case 0: t = native::result_type(r.tensor(0), r.tensor(1)); break;
    case 1: t = native::result_type(r.tensor(0), r.scalar(1)); break;
    case 2: t = native::result_type(r.scalar(0), r.tensor(1)); break;
    default: t = native::result_type(r.scalar(0), r.scalar(1)); break;
  }
  return dtype_object(t);
  TL_PY_CATCH
}

PyObject* py_get_default_dtype(PyObject*, PyObject*) {
  TL_PY_TRY
  return dtype_object(default_dtype());
  TL_PY_CATCH
}

PyObject* py_set_default_dtype(PyObject*, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_dtype(arg), "set_default_dtype(): argument 'd' must be torchlite.dtype, not ", py_typename(arg));
  ScalarType t = dtype_from_object(arg);
  TL_CHECK_TYPE(is_floating_type(t), "only floating-point types are supported as the default type");
  set_default_dtype(t);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* py_get_num_threads(PyObject*, PyObject*) {
  TL_PY_TRY
  return PyLong_FromLong(get_num_threads());
  TL_PY_CATCH
}

PyObject* py_set_num_threads(PyObject*, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_py_int(arg), "set_num_threads expected an int, got ", py_typename(arg));
  int64_t n = unpack_int64(arg);
  TL_CHECK(n > 0 && n <= 1 << 16, "set_num_threads: the number of threads must be between 1 and ", 1 << 16, ", got ", n);
  set_num_threads(static_cast<int>(n));
  Py_RETURN_NONE;
  TL_PY_CATCH
}

#define TL_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))

PyMethodDef module_methods[] = {
    {"_set_tensor_class", set_tensor_class, METH_O, "Registers the Python Tensor class results are created as."},
    {"_set_size_class", set_size_class, METH_O, "Registers the tuple subclass used for tensor shapes."},
    {"promote_types", TL_FASTCALL(py_promote_types), METH_FASTCALL | METH_KEYWORDS,
     "promote_types(type1, type2) -> dtype: the smallest dtype both convert to."},
    {"can_cast", TL_FASTCALL(py_can_cast), METH_FASTCALL | METH_KEYWORDS,
     "can_cast(from_, to) -> bool: whether an op computing in `from_` may write into `to`."},
    {"result_type", TL_FASTCALL(py_result_type), METH_FASTCALL | METH_KEYWORDS,
     "result_type(tensor1, tensor2) -> dtype: the dtype of an arithmetic op on the two (tensors or numbers)."},
    {"get_default_dtype", py_get_default_dtype, METH_NOARGS, "The default floating-point dtype."},
    {"set_default_dtype", py_set_default_dtype, METH_O, "Sets the default floating-point dtype."},
    {"tensor", TL_FASTCALL(py_tensor), METH_FASTCALL | METH_KEYWORDS,
     "tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor: a new tensor copied from data "
     "(nested lists/tuples of numbers, NumPy arrays and scalars, tensors)."},
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray) -> Tensor: a tensor sharing the array's memory (writes show on both sides)."},
    {"_to_dlpack", TL_FASTCALL(py_to_dlpack), METH_FASTCALL,
     "_to_dlpack(tensor, versioned) -> PyCapsule: a DLPack capsule viewing the tensor's memory."},
    {"_from_dlpack", py_from_dlpack, METH_O, "_from_dlpack(capsule) -> Tensor: a tensor over a DLPack capsule's memory."},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, "Threads used by parallel kernels."},
    {"set_num_threads", py_set_num_threads, METH_O, "Sets the number of threads used by parallel kernels."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "torchlite._C", "torchlite's C++ core.", -1, module_methods};

// Makes `import torchlite._C.<name>` / `from torchlite._C.<name> import *` work.
void register_submodule(PyObject* module, const char* name) {
  PyRef sub(PyObject_GetAttrString(module, name));
  if (!sub) throw python_error();
  PyObject* modules = PyImport_GetModuleDict();  // borrowed
  std::string full = std::string("torchlite._C.") + name;
  if (PyDict_SetItemString(modules, full.c_str(), sub.get()) < 0) throw python_error();
}

}  // namespace
}  // namespace tl::python

namespace tl::python {
PyObject* linalg_error_type();  // errors.cpp: torchlite._C._LinAlgError (tl::LinAlgError in Python)

// C++ warnings (tl::warn) as Python UserWarnings; a filter that turns them into errors makes the op
// raise (python_error carries the pending exception out through the op).
static void warn_in_python(const std::string& message) {
  if (!Py_IsInitialized()) return;
  const PyGILState_STATE gil = PyGILState_Ensure();  // ops may run on threads without the GIL
  const int failed = PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1);
  PyGILState_Release(gil);
  if (failed < 0) throw python_error();
}
}  // namespace tl::python

PyMODINIT_FUNC PyInit__C() {
  using namespace tl::python;
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  try {
    tl::set_warning_handler(&warn_in_python);
    init_dtype(m);
    init_device(m);
    init_generator(m);
    init_layout(m);
    std::vector<PyMethodDef> tensor_methods;
    init_generated(m, tensor_methods);
    throw_if_error();
    init_storage(m, tensor_methods);
    init_tensor_type(m, std::move(tensor_methods));
    register_submodule(m, "_ops");
    if (PyModule_AddObjectRef(m, "_LinAlgError", linalg_error_type()) < 0) throw python_error();
    if (!init_autograd(m)) throw python_error();
    init_jit(m);
    register_submodule(m, "_jit");
  } catch (...) {
    translate_exception();
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
