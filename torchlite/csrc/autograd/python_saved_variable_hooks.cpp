#include "torchlite/csrc/autograd/python_saved_variable_hooks.h"

#include <memory>

#include "aten/autograd/SavedVariableHooks.h"
#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

namespace {

// A strong reference to a Python object that can be dropped from any thread.
using SharedPy = std::shared_ptr<PyObject>;
SharedPy hold(PyObject* obj) {
  Py_INCREF(obj);
  return SharedPy(obj, [](PyObject* p) {
    if (!Py_IsInitialized()) return;
    GilAcquire gil;
    Py_DECREF(p);
  });
}

// One saved tensor: what pack_hook returned, handed to unpack_hook at every unpack.
class PySavedVariableHooks : public autograd::SavedVariableHooks {
 public:
  PySavedVariableHooks(SharedPy pack, SharedPy unpack) : pack_(std::move(pack)), unpack_(std::move(unpack)) {}

  void call_pack_hook(const Tensor& t) override {
    GilAcquire gil;
    PyRef arg(check(wrap(t)));
    packed_ = hold_new(check(PyObject_CallOneArg(pack_.get(), arg.get())));
  }

  Tensor call_unpack_hook() override {
    GilAcquire gil;
    PyRef res(check(PyObject_CallOneArg(unpack_.get(), packed_.get())));
    TL_CHECK_TYPE(is_tensor(res.get()), "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                  "of type ", Py_TYPE(res.get())->tp_name);
    return unpack_tensor(res.get());
  }

 private:
  static SharedPy hold_new(PyObject* obj) {
    SharedPy p = hold(obj);
    Py_DECREF(obj);  // hold() took its own reference
    return p;
  }

  SharedPy pack_, unpack_, packed_;
};

}  // namespace

PyObject* py_push_saved_tensors_default_hooks(PyObject*, PyObject* args) {
  TL_PY_TRY
  PyObject *pack = nullptr, *unpack = nullptr;
  if (!PyArg_ParseTuple(args, "OO:_push_saved_tensors_default_hooks", &pack, &unpack)) return nullptr;
  TL_CHECK_TYPE(PyCallable_Check(pack) && PyCallable_Check(unpack),
                "saved_tensors_hooks: pack_hook and unpack_hook must be callables");
  SharedPy p = hold(pack), u = hold(unpack);
  autograd::push_saved_variable_hooks(
      [p, u]() -> std::unique_ptr<autograd::SavedVariableHooks> { return std::make_unique<PySavedVariableHooks>(p, u); });
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* py_pop_saved_tensors_default_hooks(PyObject*, PyObject*) {
  TL_PY_TRY
  autograd::pop_saved_variable_hooks();
  Py_RETURN_NONE;
  TL_PY_CATCH
}

}  // namespace tl::python
