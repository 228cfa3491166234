#include "torchlite/csrc/autograd/python_engine.h"

#include <vector>

#include "aten/autograd/Engine.h"
#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"
#include "torchlite/csrc/autograd/python_function.h"
#include "torchlite/csrc/autograd/python_hooks.h"
#include "torchlite/csrc/autograd/python_node.h"
#include "torchlite/csrc/autograd/python_saved_variable_hooks.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

namespace {

using autograd::variable_list;

// A Tensor, or a tuple/list of Tensors (None entries allowed when `allow_none`).
variable_list tensors_from(PyObject* obj, const char* what, bool allow_none) {
  variable_list out;
  if (obj == nullptr || obj == Py_None) return out;
  if (is_tensor(obj)) {
    out.push_back(unpack_tensor(obj));
    return out;
  }
  TL_CHECK_TYPE(PyTuple_Check(obj) || PyList_Check(obj), what, " must be a Tensor or a sequence of Tensors, got ",
                Py_TYPE(obj)->tp_name);
  PyRef seq(check(PySequence_Fast(obj, "expected a sequence")));
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq.get(), i);
    if (item == Py_None && allow_none) {
      out.emplace_back();
      continue;
    }
    TL_CHECK_TYPE(is_tensor(item), what, "[", i, "] must be a Tensor", allow_none ? " or None" : "", ", got ",
                  Py_TYPE(item)->tp_name);
    out.push_back(unpack_tensor(item));
  }
  return out;
}

// A Python bool (or None -> `fallback`).
bool flag(PyObject* obj, bool fallback) {
  if (obj == nullptr || obj == Py_None) return fallback;
  int v = PyObject_IsTrue(obj);
  if (v < 0) throw python_error();
  return v != 0;
}

PyObject* py_backward(PyObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_TRY
  static const char* kwlist[] = {"tensors", "grad_tensors", "retain_graph", "create_graph", "inputs", nullptr};
  PyObject *tensors = nullptr, *grad_tensors = Py_None, *retain_graph = Py_None, *create_graph = Py_False,
           *inputs = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:_backward", const_cast<char**>(kwlist), &tensors,
                                   &grad_tensors, &retain_graph, &create_graph, &inputs))
    return nullptr;
  variable_list roots = tensors_from(tensors, "tensors", false);
  variable_list grads = tensors_from(grad_tensors, "grad_tensors", true);
  variable_list ins = tensors_from(inputs, "inputs", false);
  TL_CHECK(inputs == Py_None || !ins.empty(), "`inputs` argument to `backward()` cannot be empty.");
  bool create = flag(create_graph, false);
  bool retain = flag(retain_graph, create);
  autograd::backward(roots, grads, retain, create, ins);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* py_grad(PyObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_TRY
  static const char* kwlist[] = {"outputs",      "inputs",       "grad_outputs", "retain_graph",
                                 "create_graph", "allow_unused", nullptr};
  PyObject *outputs = nullptr, *inputs = nullptr, *grad_outputs = Py_None, *retain_graph = Py_None,
           *create_graph = Py_False, *allow_unused = Py_False;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOO:_grad", const_cast<char**>(kwlist), &outputs, &inputs,
                                   &grad_outputs, &retain_graph, &create_graph, &allow_unused))
    return nullptr;
  variable_list outs = tensors_from(outputs, "outputs", false);
  variable_list ins = tensors_from(inputs, "inputs", false);
  variable_list gos = tensors_from(grad_outputs, "grad_outputs", true);
  TL_CHECK(!ins.empty(), "grad requires non-empty inputs.");
  bool create = flag(create_graph, false);
  bool retain = flag(retain_graph, create);
  variable_list result = autograd::grad(outs, ins, gos, retain, create, flag(allow_unused, false));
  PyRef tuple(check(PyTuple_New(static_cast<Py_ssize_t>(result.size()))));
  for (size_t i = 0; i < result.size(); ++i)
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), check(wrap(result[i])));
  return tuple.release();
  TL_PY_CATCH
}

PyObject* py_is_grad_enabled(PyObject*, PyObject*) { return PyBool_FromLong(autograd::GradMode::is_enabled()); }

PyObject* py_set_grad_enabled(PyObject*, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(PyBool_Check(arg), "_set_grad_enabled: expected a bool, got ", Py_TYPE(arg)->tp_name);
  autograd::GradMode::set_enabled(arg == Py_True);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

// ---- tensor-level helpers for the Tensor bindings ---------------------------------------------

const Tensor& tensor_arg(PyObject* obj, const char* fn) {
  TL_CHECK_TYPE(is_tensor(obj), fn, ": expected a Tensor, got ", Py_TYPE(obj)->tp_name);
  return unpack_tensor(obj);
}

// _register_tensor_hook(tensor, fn): for a leaf, an int id for _remove_tensor_hook; for a non-leaf,
// a handle whose remove() takes the hook off the grad_fn it was registered on.
PyObject* py_register_tensor_hook(PyObject*, PyObject* args) {
  TL_PY_TRY
  PyObject *t = nullptr, *fn = nullptr;
  if (!PyArg_ParseTuple(args, "OO:_register_tensor_hook", &t, &fn)) return nullptr;
  const Tensor& tensor = tensor_arg(t, "_register_tensor_hook");
  TL_CHECK_TYPE(PyCallable_Check(fn), "register_hook: expected a callable, got ", Py_TYPE(fn)->tp_name);
  uint64_t id = autograd::register_hook(tensor, make_tensor_hook(fn));
  if (tensor.grad_fn()) return make_node_hook_handle(tensor.grad_fn(), id);
  return PyLong_FromUnsignedLongLong(id);
  TL_PY_CATCH
}

// _remove_tensor_hook(leaf, id) -> bool: removes a leaf's tensor hook or post-accumulate hook.
PyObject* py_remove_tensor_hook(PyObject*, PyObject* args) {
  TL_PY_TRY
  PyObject* t = nullptr;
  unsigned long long id = 0;
  if (!PyArg_ParseTuple(args, "OK:_remove_tensor_hook", &t, &id)) return nullptr;
  return PyBool_FromLong(autograd::remove_hook(tensor_arg(t, "_remove_tensor_hook"), id));
  TL_PY_CATCH
}

// _register_post_accumulate_grad_hook(leaf, fn) -> int id for _remove_tensor_hook.
PyObject* py_register_post_accumulate_grad_hook(PyObject*, PyObject* args) {
  TL_PY_TRY
  PyObject *t = nullptr, *fn = nullptr;
  if (!PyArg_ParseTuple(args, "OO:_register_post_accumulate_grad_hook", &t, &fn)) return nullptr;
  const Tensor& tensor = tensor_arg(t, "_register_post_accumulate_grad_hook");
  TL_CHECK_TYPE(PyCallable_Check(fn), "register_post_accumulate_grad_hook: expected a callable, got ",
                Py_TYPE(fn)->tp_name);
  uint64_t id = autograd::register_post_accumulate_grad_hook(tensor, make_post_accumulate_grad_hook(fn));
  return PyLong_FromUnsignedLongLong(id);
  TL_PY_CATCH
}

PyObject* py_retain_grad(PyObject*, PyObject* t) {
  TL_PY_TRY
  autograd::retain_grad(tensor_arg(t, "retain_grad"));
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* py_retains_grad(PyObject*, PyObject* t) {
  TL_PY_TRY
  return PyBool_FromLong(autograd::retains_grad(tensor_arg(t, "retains_grad")));
  TL_PY_CATCH
}

PyObject* py_grad_accumulator(PyObject*, PyObject* t) {
  TL_PY_TRY
  return wrap_node(autograd::grad_accumulator(tensor_arg(t, "_grad_accumulator")));
  TL_PY_CATCH
}

PyMethodDef methods[] = {
    {"_backward", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_backward)),
     METH_VARARGS | METH_KEYWORDS,
     "_backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)"},
    {"_grad", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_grad)), METH_VARARGS | METH_KEYWORDS,
     "_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False)"},
    {"is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "Whether grad mode is on in this thread."},
    {"_set_grad_enabled", py_set_grad_enabled, METH_O, "Turns grad mode on or off in this thread."},
    {"_register_tensor_hook", py_register_tensor_hook, METH_VARARGS,
     "_register_tensor_hook(tensor, fn): fn(grad) -> Tensor or None runs on tensor's gradient. Returns an id "
     "for _remove_tensor_hook (leaves) or a handle with remove() (non-leaves)."},
    {"_remove_tensor_hook", py_remove_tensor_hook, METH_VARARGS,
     "_remove_tensor_hook(leaf, id) -> bool: removes a leaf's hook or post-accumulate-grad hook."},
    {"_register_post_accumulate_grad_hook", py_register_post_accumulate_grad_hook, METH_VARARGS,
     "_register_post_accumulate_grad_hook(leaf, fn) -> id: fn(leaf) runs after leaf.grad was updated."},
    {"_retain_grad", py_retain_grad, METH_O, "Makes backward fill .grad of a non-leaf tensor."},
    {"_retains_grad", py_retains_grad, METH_O, "Whether retain_grad() was called on this non-leaf tensor."},
    {"_grad_accumulator", py_grad_accumulator, METH_O, "The AccumulateGrad node of a leaf requiring grad."},
    {"_push_saved_tensors_default_hooks", py_push_saved_tensors_default_hooks, METH_VARARGS,
     "_push_saved_tensors_default_hooks(pack_hook, unpack_hook): hooks for the tensors saved on this thread."},
    {"_pop_saved_tensors_default_hooks", py_pop_saved_tensors_default_hooks, METH_NOARGS,
     "Removes the innermost saved-tensor hooks of this thread."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "torchlite._C._autograd",
                          "Autograd engine, grad mode and graph nodes.", -1, methods};

}  // namespace

bool init_autograd(PyObject* parent) {
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return false;
  if (!init_node_types(m) || !init_python_function(m, parent)) {
    Py_DECREF(m);
    return false;
  }
  PyObject* modules = PyImport_GetModuleDict();  // borrowed
  if (PyDict_SetItemString(modules, "torchlite._C._autograd", m) < 0 ||
      PyModule_AddObject(parent, "_autograd", m) < 0) {
    Py_DECREF(m);
    return false;
  }
  return true;
}

}  // namespace tl::python
