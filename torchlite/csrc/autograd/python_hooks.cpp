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

// The hook's __name__ (or its repr) for error messages.
std::string hook_name(PyObject* fn);

// PyTorch's name of a tensor type in hook errors: "torchlite.FloatTensor", "MetaFloatType".
std::string type_string(const Tensor& t) {
  if (t.is_meta()) return str("Meta", legacy_type_name(t.dtype()), "Type");
  return str("torchlite.", legacy_type_name(t.dtype()), "Tensor");
}

// A hook may replace a gradient, but not change its dtype, device or size (PyTorch's checks and
// messages, in its order).
void check_hook_result(const Tensor& original, const Tensor& result, PyObject* hook) {
  if (!result.defined()) return;
  TL_CHECK(original.defined(), "can't replace a None gradient with a non-None value");
  TL_CHECK(original.dtype() == result.dtype() && original.device().type == result.device().type, "hook '",
           hook_name(hook), "' has changed the type of value (was ", type_string(original), " got ",
           type_string(result), ")");
  TL_CHECK(original.sizes().equals(result.sizes()), "hook '", hook_name(hook), "' has changed the size of value");
}

// A node hook's result: None -> empty list ("keep"); a tuple of tensors or None (one per
// gradient in `originals`, each checked against it) -> that list.
autograd::variable_list list_from(PyObject* res, const autograd::variable_list& originals, PyObject* hook) {
  if (res == Py_None) return {};
  TL_CHECK_TYPE(PyTuple_Check(res), "expected tuple, but hook returned '", Py_TYPE(res)->tp_name, "'");
  const Py_ssize_t n = PyTuple_GET_SIZE(res);
  TL_CHECK(static_cast<size_t>(n) == originals.size(), "hook '", hook_name(hook),
           "' has returned an incorrect number of values (got ", n, ", but expected ", originals.size(), ")");
  autograd::variable_list out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(res, i);
    if (item == Py_None) continue;
    TL_CHECK_TYPE(is_tensor(item), "expected Variable (got '", Py_TYPE(item)->tp_name, "')'");
    out[static_cast<size_t>(i)] = unpack_tensor(item);
    check_hook_result(originals[static_cast<size_t>(i)], out[static_cast<size_t>(i)], hook);
  }
  return out;
}

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
    TL_CHECK_TYPE(is_tensor(res.get()), "expected Variable, but hook returned '", Py_TYPE(res.get())->tp_name, "'");
    const Tensor& r = unpack_tensor(res.get());
    check_hook_result(grad, r, callable.get());
    return r;
  };
}

autograd::NodePreHook make_node_pre_hook(PyObject* fn) {
  auto callable = hold(fn);
  return [callable](const autograd::variable_list& grad_outputs) -> autograd::variable_list {
    GilAcquire gil;
    PyRef arg(tuple_of(grad_outputs));
    PyRef res(check(PyObject_CallOneArg(callable.get(), arg.get())));
    return list_from(res.get(), grad_outputs, callable.get());
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
    return list_from(res.get(), grad_inputs, callable.get());
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
