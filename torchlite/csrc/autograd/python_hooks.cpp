#include "torchlite/csrc/autograd/python_hooks.h"

#include <memory>
#include <string>

#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

namespace {

// A strong reference to a Python callable that can be dropped from any thread.
std::shared_ptr<PyObject> hold(PyObject* fn) {
  Py_INCREF(fn);
  return std::shared_ptr<PyObject>(fn, [](PyObject* p) {
    if (!Py_IsInitialized()) return;
    GilAcquire gil;
    Py_DECREF(p);
  });
}

PyObject* tuple_of(const autograd::variable_list& ts) {
  PyRef tuple(check(PyTuple_New(static_cast<Py_ssize_t>(ts.size()))));
  for (size_t i = 0; i < ts.size(); ++i)
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), check(wrap(ts[i])));
  return tuple.release();
}

// None -> empty list ("keep"); a tuple/list of tensors or None -> that list.
autograd::variable_list list_from(PyObject* res, size_t expected, const char* what) {
  if (res == Py_None) return {};
  TL_CHECK_TYPE(PyTuple_Check(res) || PyList_Check(res), what, " must return None or a tuple of gradients, got ",
                Py_TYPE(res)->tp_name);
  PyRef seq(check(PySequence_Fast(res, "expected a sequence")));
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
  TL_CHECK(static_cast<size_t>(n) == expected, what, " returned ", n, " gradients, expected ", expected);
  autograd::variable_list out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq.get(), i);
    if (item == Py_None) continue;
    TL_CHECK_TYPE(is_tensor(item), what, " returned a ", Py_TYPE(item)->tp_name, " where a Tensor or None was expected");
    out[static_cast<size_t>(i)] = unpack_tensor(item);
  }
  return out;
}

// The hook's __name__ (or its repr) for error messages.
std::string hook_name(PyObject* fn) {
  PyRef name(PyObject_GetAttrString(fn, "__name__"));
  if (!name) {
    PyErr_Clear();
    name = PyRef(PyObject_Repr(fn));
  }
  const char* s = name && PyUnicode_Check(name.get()) ? PyUnicode_AsUTF8(name.get()) : nullptr;
  if (!s) {
    PyErr_Clear();
    return "hook";
  }
  return s;
}

}  // namespace

autograd::TensorHook make_tensor_hook(PyObject* fn) {
  auto callable = hold(fn);
  return [callable](const Tensor& grad) -> Tensor {
    GilAcquire gil;
    PyRef arg(check(wrap(grad)));
    PyRef res(check(PyObject_CallOneArg(callable.get(), arg.get())));
    if (res.get() == Py_None) return Tensor();
    TL_CHECK_TYPE(is_tensor(res.get()), "hook: expected a Tensor or None to be returned, got ",
                  Py_TYPE(res.get())->tp_name);
    const Tensor& r = unpack_tensor(res.get());
    // As in PyTorch: a hook may replace the gradient, but not change its type or size.
    TL_CHECK(r.dtype() == grad.dtype(), "hook '", hook_name(callable.get()),
             "' has changed the type of value (was torchlite.", legacy_type_name(grad.dtype()),
             "Tensor got torchlite.", legacy_type_name(r.dtype()), "Tensor)");
    TL_CHECK(r.sizes().equals(grad.sizes()), "hook '", hook_name(callable.get()),
             "' has changed the size of value");
    return r;
  };
}

autograd::NodePreHook make_node_pre_hook(PyObject* fn) {
  auto callable = hold(fn);
  return [callable](const autograd::variable_list& grad_outputs) -> autograd::variable_list {
    GilAcquire gil;
    PyRef arg(tuple_of(grad_outputs));
    PyRef res(check(PyObject_CallOneArg(callable.get(), arg.get())));
    return list_from(res.get(), grad_outputs.size(), "prehook");
  };
}

autograd::NodePostHook make_node_post_hook(PyObject* fn) {
  auto callable = hold(fn);
  return [callable](const autograd::variable_list& grad_inputs,
                    const autograd::variable_list& grad_outputs) -> autograd::variable_list {
    GilAcquire gil;
    PyRef a(tuple_of(grad_inputs));
    PyRef b(tuple_of(grad_outputs));
    PyRef res(check(PyObject_CallFunctionObjArgs(callable.get(), a.get(), b.get(), nullptr)));
    return list_from(res.get(), grad_inputs.size(), "hook");
  };
}

autograd::PostAccumulateGradHook make_post_accumulate_grad_hook(PyObject* fn) {
  auto callable = hold(fn);
  return [callable](const Tensor& t) {
    GilAcquire gil;
    PyRef arg(check(wrap(t)));
    PyRef res(check(PyObject_CallOneArg(callable.get(), arg.get())));
    TL_CHECK(res.get() == Py_None, "post accumulate grad hooks cannot return anything.");
  };
}

}  // namespace tl::python
