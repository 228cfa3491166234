#include "torchlite/csrc/autograd/python_function.h"

#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/autograd/SavedVariable.h"
#include "aten/core/Allocator.h"
#include "aten/core/BlockCache.h"
#include "aten/core/Exception.h"
#include "generated/ops/alias.h"
#include "torchlite/csrc/autograd/python_node.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

using autograd::Edge;
using autograd::Node;
using autograd::SavedVariable;
using autograd::variable_list;

namespace {

// ---- PyNode -------------------------------------------------------------------------------------

struct PyNode final : Node {
  PyNode(PyObject* ctx, std::string name) : ctx_(ctx), name_(std::move(name)) { Py_INCREF(ctx_); }
  ~PyNode() override {
    saved_.clear();
    if (!Py_IsInitialized()) return;  // at interpreter exit the object is gone with it
    GilAcquire gil;
    Py_DECREF(ctx_);
  }

  std::string name() const override { return name_; }

  variable_list apply(variable_list&& grads) override {
    GilAcquire gil;
    PyRef args(check(PyTuple_New(static_cast<Py_ssize_t>(grads.size()))));
    for (size_t i = 0; i < grads.size(); ++i)
      PyTuple_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i), check(wrap(grads[i])));
    grads.clear();
    PyRef res(check(PyObject_CallMethod(ctx_, "_run_backward", "(O)", args.get())));
    TL_CHECK_TYPE(PyTuple_Check(res.get()), "_run_backward must return a tuple");
    const Py_ssize_t n = PyTuple_GET_SIZE(res.get());
    TL_CHECK(static_cast<size_t>(n) == num_outputs(), "function ", name_,
             " returned an incorrect number of gradients (expected ", num_outputs(), ", got ", n, ")");
    variable_list out(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyTuple_GET_ITEM(res.get(), i);
      if (item == Py_None) continue;
      TL_CHECK_TYPE(is_tensor(item), "expected Tensor or None (got ", Py_TYPE(item)->tp_name, ")");
      out[static_cast<size_t>(i)] = unpack_tensor(item);
    }
    return out;
  }

  void release_variables() override {
    for (SavedVariable& v : saved_) v.reset_data();
    released_ = true;
  }

  size_t saved_bytes() const override {
    size_t n = 0;
    for (const SavedVariable& v : saved_) n += v.nbytes();
    return n;
  }

  PyObject* ctx() const { return ctx_; }
  void set_materialize(bool m) { materialize_grads_ = m; }

  PyObject* ctx_;  // strong
  std::string name_;
  std::vector<SavedVariable> saved_;
  bool has_saved_ = false;  // save_for_backward was called
  bool released_ = false;
};

// ---- the ctx base type ----------------------------------------------------------------------------

struct FunctionCtxObject {
  PyObject_HEAD
  std::weak_ptr<PyNode> node;
};

FunctionCtxObject* as_ctx(PyObject* self) { return reinterpret_cast<FunctionCtxObject*>(self); }

PyObject* ctx_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  new (&as_ctx(obj)->node) std::weak_ptr<PyNode>();
  return obj;
}

void ctx_dealloc(PyObject* self) {
  as_ctx(self)->node.~weak_ptr();
  Py_TYPE(self)->tp_free(self);
}

constexpr const char* kReleased =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward.";

PyObject* ctx_saved_tensors(PyObject* self, void*) {
  TL_PY_TRY
  std::shared_ptr<PyNode> node = as_ctx(self)->node.lock();
  if (!node) {
    // Not recorded (no input requires grad) or still in forward: what save_for_backward got.
    PyObject* to_save = PyObject_GetAttrString(self, "to_save");
    if (!to_save) {
      PyErr_Clear();
      return PyTuple_New(0);
    }
    return to_save;
  }
  TL_CHECK(!node->released_, kReleased);
  PyRef tuple(check(PyTuple_New(static_cast<Py_ssize_t>(node->saved_.size()))));
  for (size_t i = 0; i < node->saved_.size(); ++i) {
    Tensor t = node->saved_[i].unpack(node);
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), check(wrap(std::move(t))));
  }
  return tuple.release();
  TL_PY_CATCH
}

PyObject* ctx_node(PyObject* self, void*) {
  TL_PY_TRY
  std::shared_ptr<PyNode> node = as_ctx(self)->node.lock();
  std::shared_ptr<Node> base = node;
  return wrap_node(base);
  TL_PY_CATCH
}

PyGetSetDef ctx_getset[] = {
    {"saved_tensors", ctx_saved_tensors, nullptr,
     "The tensors given to save_for_backward (checked for in-place changes since).", nullptr},
    {"saved_variables", ctx_saved_tensors, nullptr, "Deprecated alias of saved_tensors.", nullptr},
    {"_node", ctx_node, nullptr, "The backward node recorded for this call (None before / without one).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject FunctionCtxType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torchlite._C._autograd._FunctionCtx";
  t.tp_basicsize = sizeof(FunctionCtxObject);
  t.tp_dealloc = ctx_dealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_doc = "Base of the ctx object of custom autograd Functions.";
  t.tp_getset = ctx_getset;
  t.tp_new = ctx_new;
  return t;
}();

// ---- _create_py_node ------------------------------------------------------------------------------

std::vector<PyObject*> items_of(PyObject* seq_obj, const char* what) {
  std::vector<PyObject*> out;
  if (seq_obj == nullptr || seq_obj == Py_None) return out;
  TL_CHECK_TYPE(PyTuple_Check(seq_obj), what, " must be a tuple");
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq_obj); ++i) out.push_back(PyTuple_GET_ITEM(seq_obj, i));
  return out;
}

bool contains_impl(const std::vector<PyObject*>& objs, const TensorImpl* impl) {
  for (PyObject* o : objs)
    if (is_tensor(o) && unpack_tensor(o).impl() == impl) return true;
  return false;
}

// _create_py_node(ctx, name, inputs, outputs, dirty, non_differentiable, to_save, materialize_grads)
//   -> outputs (a tuple like `outputs`, with inputs returned unchanged replaced by aliases).
// Records the node when grad mode is on and a tensor input requires grad; otherwise returns
// `outputs` as they are.
PyObject* py_create_py_node(PyObject*, PyObject* args) {
  TL_PY_TRY
  PyObject *ctx, *name, *inputs, *outputs, *dirty, *non_diff, *to_save, *materialize;
  if (!PyArg_ParseTuple(args, "OUO!O!OOOO:_create_py_node", &ctx, &name, &PyTuple_Type, &inputs, &PyTuple_Type,
                        &outputs, &dirty, &non_diff, &to_save, &materialize))
    return nullptr;
  TL_CHECK_TYPE(PyObject_TypeCheck(ctx, &FunctionCtxType), "_create_py_node: ctx must be a _FunctionCtx");
  std::vector<PyObject*> ins = items_of(inputs, "inputs");
  std::vector<PyObject*> outs = items_of(outputs, "outputs");
  std::vector<PyObject*> dirty_list = items_of(dirty, "dirty_tensors");
  std::vector<PyObject*> non_diff_list = items_of(non_diff, "non_differentiable");
  std::vector<PyObject*> save_list = items_of(to_save, "to_save");

  for (PyObject* d : dirty_list) {
    TL_CHECK_TYPE(is_tensor(d), "mark_dirty only accepts input tensors, but argument was a ", Py_TYPE(d)->tp_name);
    TL_CHECK(contains_impl(ins, unpack_tensor(d).impl()), "mark_dirty only accepts input tensors, but argument ",
             "was not an input of the function");
    TL_CHECK(contains_impl(outs, unpack_tensor(d).impl()),
             "Some elements marked as dirty during the forward method were not returned as output. The inputs that "
             "are modified inplace must all be outputs of the Function.");
  }
  for (PyObject* d : non_diff_list)
    TL_CHECK_TYPE(is_tensor(d), "mark_non_differentiable only accepts tensors, but got ", Py_TYPE(d)->tp_name);

  variable_list tensor_inputs;
  for (PyObject* i : ins)
    if (is_tensor(i)) tensor_inputs.push_back(unpack_tensor(i));
  const bool executable = autograd::compute_requires_grad(TensorList(tensor_inputs));

  PyRef result(check(PyTuple_New(static_cast<Py_ssize_t>(outs.size()))));
  if (!executable) {
    for (size_t i = 0; i < outs.size(); ++i) {
      Py_INCREF(outs[i]);
      PyTuple_SET_ITEM(result.get(), static_cast<Py_ssize_t>(i), outs[i]);
    }
    return result.release();
  }

  const std::string node_name = PyUnicode_AsUTF8(name);
  auto node = std::make_shared<PyNode>(ctx, node_name);
  node->set_next_edges(autograd::collect_next_edges(TensorList(tensor_inputs)));
  int m = PyObject_IsTrue(materialize);
  if (m < 0) throw python_error();
  node->set_materialize(m != 0);

  std::vector<const TensorImpl*> output_impls;
  for (size_t i = 0; i < outs.size(); ++i) {
    PyObject* o = outs[i];
    if (!is_tensor(o)) {
      Py_INCREF(o);
      PyTuple_SET_ITEM(result.get(), static_cast<Py_ssize_t>(i), o);
      continue;
    }
    Tensor t = unpack_tensor(o);
    const bool is_input = contains_impl(ins, t.impl());
    const bool is_dirty = contains_impl(dirty_list, t.impl());
    const bool is_non_diff = contains_impl(non_diff_list, t.impl());
    if (is_dirty) {
      autograd::check_inplace(t, node_name.c_str());
      t.impl()->bump_version();  // as PyTorch does for tensors marked dirty
      if (is_non_diff) {
        node->add_input_metadata(t);
      } else {
        autograd::rebase_history(t, node);
      }
    } else if (is_non_diff) {
      node->add_input_metadata(t);
    } else {
      if (is_input) {
        // An input returned as it is: the output is a new tensor (an alias) with this history.
        autograd::NoGradGuard no_grad;
        t = tl::alias(t);
      } else if (t.impl()->autograd_meta() && t.impl()->autograd_meta()->grad_fn) {
        // Computed with grad mode on inside forward: the Function's node replaces that history.
        t = autograd::detached_alias(t);
      }
      autograd::set_history(t, node);
    }
    output_impls.push_back(t.impl());
    PyTuple_SET_ITEM(result.get(), static_cast<Py_ssize_t>(i), check(wrap(t)));
  }

  if (to_save != Py_None) {
    node->has_saved_ = true;
    node->saved_.reserve(save_list.size());
    for (PyObject* s : save_list) {
      if (s == Py_None) {
        node->saved_.emplace_back();
        continue;
      }
      TL_CHECK_TYPE(is_tensor(s), "save_for_backward can only save variables, but argument ", node->saved_.size(),
                    " is of type ", Py_TYPE(s)->tp_name);
      const Tensor& t = unpack_tensor(s);
      bool is_output = false;
      for (const TensorImpl* impl : output_impls) is_output = is_output || impl == t.impl();
      node->saved_.emplace_back(t, is_output);
    }
  }
  as_ctx(ctx)->node = node;
  return result.release();
  TL_PY_CATCH
}

// ---- anomaly mode -----------------------------------------------------------------------------------

void decref_with_gil(void* p) {
  if (!Py_IsInitialized()) return;
  GilAcquire gil;
  Py_DECREF(static_cast<PyObject*>(p));
}

// Node construction in anomaly mode: metadata["traceback_"] = traceback.format_stack().
void anomaly_record(Node& node) {
  if (!Py_IsInitialized()) return;
  GilAcquire gil;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyRef mod(PyImport_ImportModule("traceback"));
  PyRef stack(mod ? PyObject_CallMethod(mod.get(), "format_stack", nullptr) : nullptr);
  PyRef dict(PyDict_New());
  if (stack && dict && PyDict_SetItemString(dict.get(), "traceback_", stack.get()) == 0) {
    node.set_py_metadata(std::shared_ptr<void>(dict.release(), decref_with_gil));
  }
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
}

// A node's backward failed in anomaly mode: warn with the stack of its forward call.
void anomaly_report(const Node& node) {
  if (!Py_IsInitialized()) return;
  GilAcquire gil;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  std::string msg = "Error detected in " + node.name() + ". ";
  auto* dict = static_cast<PyObject*>(node.py_metadata().get());
  PyObject* stack = dict ? PyDict_GetItemString(dict, "traceback_") : nullptr;  // borrowed
  if (stack) {
    msg += "Traceback of forward call that caused the error:\n";
    PyRef empty(PyUnicode_FromString(""));
    PyRef joined(empty ? PyUnicode_Join(empty.get(), stack) : nullptr);
    const char* s = joined ? PyUnicode_AsUTF8(joined.get()) : nullptr;
    if (s) msg += s;
  } else {
    msg += "No forward pass information available. Enable detect anomaly during forward pass for more "
           "information.";
  }
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) PyErr_Clear();
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
}

PyObject* py_set_anomaly_enabled(PyObject*, PyObject* args) {
  int enabled = 0, check_nan = 1;
  if (!PyArg_ParseTuple(args, "p|p:_set_anomaly_enabled", &enabled, &check_nan)) return nullptr;
  autograd::AnomalyMode::set_enabled(enabled != 0, check_nan != 0);
  Py_RETURN_NONE;
}

PyObject* py_is_anomaly_enabled(PyObject*, PyObject*) { return PyBool_FromLong(autograd::AnomalyMode::is_enabled()); }

PyObject* py_is_anomaly_check_nan_enabled(PyObject*, PyObject*) {
  return PyBool_FromLong(autograd::AnomalyMode::should_check_nan());
}

// ---- inference mode -------------------------------------------------------------------------------

PyObject* py_set_inference_mode(PyObject*, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(PyBool_Check(arg), "_set_inference_mode: expected a bool, got ", Py_TYPE(arg)->tp_name);
  autograd::InferenceMode::set_enabled(arg == Py_True);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* py_is_inference_mode_enabled(PyObject*, PyObject*) {
  return PyBool_FromLong(autograd::InferenceMode::is_enabled());
}

PyObject* py_is_inference(PyObject*, PyObject* t) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_tensor(t), "is_inference: expected a Tensor, got ", Py_TYPE(t)->tp_name);
  return PyBool_FromLong(unpack_tensor(t).impl()->is_inference());
  TL_PY_CATCH
}

// ---- Tensor.detach_ --------------------------------------------------------------------------------

PyObject* py_detach_(PyObject*, PyObject* t) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_tensor(t), "detach_: expected a Tensor, got ", Py_TYPE(t)->tp_name);
  const Tensor& self = unpack_tensor(t);
  // Any view, as in PyTorch: also views made in no_grad mode and views of tensors without grad.
  TL_CHECK(!self.impl()->view_base(),
           "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
           "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
           "detach_() cannot be called on these gradients. To fix this error, please refer to the "
           "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  autograd::AutogradMeta* meta = self.impl()->autograd_meta();
  if (meta) {
    if (meta->grad_fn && meta->retains_grad) meta->grad_fn->clear_retains_grad(meta->output_nr);
    meta->grad_fn.reset();
    meta->output_nr = 0;
    meta->requires_grad = false;
    meta->retains_grad = false;
    meta->is_differentiable_view = false;
  }
  Py_INCREF(t);
  return t;
  TL_PY_CATCH
}

// ---- graph memory ----------------------------------------------------------------------------------

// _graph_saved_bytes(tensor_or_node) -> (bytes, nodes): the bytes kept for backward by every node
// reachable from the tensor's grad_fn (or the node), each node counted once; iterative.
PyObject* py_graph_saved_bytes(PyObject*, PyObject* obj) {
  TL_PY_TRY
  std::shared_ptr<Node> root;
  if (is_tensor(obj)) {
    root = unpack_tensor(obj).grad_fn();
  } else if (is_node(obj)) {
    root = unpack_node(obj);
  } else {
    TL_CHECK_TYPE(obj == Py_None, "saved_bytes: expected a Tensor or a graph Node, got ", Py_TYPE(obj)->tp_name);
  }
  size_t bytes = 0, count = 0;
  if (root) {
    std::unordered_set<const Node*> seen{root.get()};
    std::vector<const Node*> stack{root.get()};
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      bytes += n->saved_bytes();
      ++count;
      for (const Edge& e : n->next_edges())
        if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }
  return Py_BuildValue("(nn)", static_cast<Py_ssize_t>(bytes), static_cast<Py_ssize_t>(count));
  TL_PY_CATCH
}

PyObject* py_cpu_allocated_bytes(PyObject*, PyObject*) { return PyLong_FromSize_t(tl::cpu_allocated_bytes()); }
PyObject* py_block_cache_enabled(PyObject*, PyObject*) { return PyBool_FromLong(tl::block_cache_enabled()); }

PyMethodDef methods[] = {
    {"_create_py_node", py_create_py_node, METH_VARARGS,
     "_create_py_node(ctx, name, inputs, outputs, dirty, non_differentiable, to_save, materialize_grads): "
     "records the backward node of a custom Function call; returns the outputs to hand back."},
    {"_set_anomaly_enabled", py_set_anomaly_enabled, METH_VARARGS,
     "_set_anomaly_enabled(enabled, check_nan=True): turns anomaly detection on or off (process-wide)."},
    {"_is_anomaly_enabled", py_is_anomaly_enabled, METH_NOARGS, "Whether anomaly detection is on."},
    {"_is_anomaly_check_nan_enabled", py_is_anomaly_check_nan_enabled, METH_NOARGS,
     "Whether anomaly detection checks backward results for NaN."},
    {"_set_inference_mode", py_set_inference_mode, METH_O, "Turns inference mode on or off in this thread."},
    {"_is_inference_mode_enabled", py_is_inference_mode_enabled, METH_NOARGS,
     "Whether inference mode is on in this thread."},
    {"_is_inference", py_is_inference, METH_O, "Whether the tensor was made in inference mode."},
    {"_detach_", py_detach_, METH_O, "Detaches the tensor from its history in place; returns it."},
    {"_graph_saved_bytes", py_graph_saved_bytes, METH_O,
     "_graph_saved_bytes(tensor_or_node) -> (bytes, nodes) over the graph reachable from it."},
    {nullptr, nullptr, 0, nullptr},
};

PyMethodDef parent_methods[] = {
    {"_cpu_allocated_bytes", py_cpu_allocated_bytes, METH_NOARGS,
     "Bytes of CPU tensor memory currently allocated by torchlite."},
    {"_block_cache_enabled", py_block_cache_enabled, METH_NOARGS,
     "Whether freed large CPU blocks are kept for reuse (off in the sanitizer build)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

PyObject* py_node_ctx(const Node& node) {
  if (const auto* p = dynamic_cast<const PyNode*>(&node)) return p->ctx();
  return nullptr;
}

bool init_python_function(PyObject* module, PyObject* parent) {
  if (PyType_Ready(&FunctionCtxType) < 0) return false;
  Py_INCREF(&FunctionCtxType);
  if (PyModule_AddObject(module, "_FunctionCtx", reinterpret_cast<PyObject*>(&FunctionCtxType)) < 0) {
    Py_DECREF(&FunctionCtxType);
    return false;
  }
  if (PyModule_AddFunctions(module, methods) < 0) return false;
  if (PyModule_AddFunctions(parent, parent_methods) < 0) return false;
  autograd::anomaly_hooks().record = anomaly_record;
  autograd::anomaly_hooks().report = anomaly_report;
  return true;
}

}  // namespace tl::python
