#include "torchlite/csrc/autograd/python_node.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <unordered_map>

#include "torchlite/csrc/autograd/python_function.h"
#include "torchlite/csrc/autograd/python_hooks.h"
#include "torchlite/csrc/errors.h"

namespace tl::python {

using autograd::Node;

namespace {

// ---- hook handles ------------------------------------------------------------------------------

// What node.register_hook / register_prehook return: remove() takes the hook off the node.
struct HookHandleObject {
  PyObject_HEAD
  std::weak_ptr<Node> node;
  uint64_t id;
};

void handle_dealloc(PyObject* self) {
  auto* h = reinterpret_cast<HookHandleObject*>(self);
  h->node.~weak_ptr();
  Py_TYPE(self)->tp_free(self);
}

PyObject* handle_remove(PyObject* self, PyObject*) {
  auto* h = reinterpret_cast<HookHandleObject*>(self);
  if (auto n = h->node.lock()) n->remove_hook(h->id);
  Py_RETURN_NONE;
}

PyObject* handle_enter(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

PyObject* handle_exit(PyObject* self, PyObject*) { return handle_remove(self, nullptr); }

PyObject* handle_id(PyObject* self, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<HookHandleObject*>(self)->id);
}

PyMethodDef handle_methods[] = {
    {"remove", handle_remove, METH_NOARGS, "Removes the hook from its node."},
    {"__enter__", handle_enter, METH_NOARGS, nullptr},
    {"__exit__", handle_exit, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef handle_getset[] = {
    {"id", handle_id, nullptr, "The hook's id.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject HookHandleType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torchlite._C._autograd._NodeHookHandle";
  t.tp_basicsize = sizeof(HookHandleObject);
  t.tp_dealloc = handle_dealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = "Handle returned by Node.register_hook / register_prehook; call remove() to drop the hook.";
  t.tp_methods = handle_methods;
  t.tp_getset = handle_getset;
  return t;
}();

}  // namespace

PyObject* make_node_hook_handle(const std::shared_ptr<Node>& node, uint64_t id) {
  PyObject* obj = HookHandleType.tp_alloc(&HookHandleType, 0);
  if (!obj) return nullptr;
  auto* h = reinterpret_cast<HookHandleObject*>(obj);
  new (&h->node) std::weak_ptr<Node>(node);
  h->id = id;
  return obj;
}

namespace {

// ---- Node objects -------------------------------------------------------------------------------

NodeObject* as_node(PyObject* self) { return reinterpret_cast<NodeObject*>(self); }

void node_dealloc(PyObject* self) {
  NodeObject* obj = as_node(self);
  if (obj->weakreflist) PyObject_ClearWeakRefs(self);
  if (obj->cdata && obj->cdata->pyobj() == self) obj->cdata->set_pyobj(nullptr);
  obj->cdata.~shared_ptr();  // may free a whole graph (iteratively, see Node::~Node)
  Py_TYPE(self)->tp_free(self);
}

PyObject* node_repr(PyObject* self) {
  const std::string name = as_node(self)->cdata->name();
  return PyUnicode_FromFormat("<%s object at %p>", name.c_str(), static_cast<void*>(self));
}

PyObject* node_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !is_node(a) || !is_node(b)) Py_RETURN_NOTIMPLEMENTED;
  bool same = as_node(a)->cdata.get() == as_node(b)->cdata.get();
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

Py_hash_t node_hash(PyObject* self) {
  // Equal nodes hash alike; the low bits of a pointer carry no information.
  auto h = static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(as_node(self)->cdata.get()) >> 4);
  return h == -1 ? -2 : h;
}

PyObject* node_name(PyObject* self, PyObject*) {
  TL_PY_TRY
  return PyUnicode_FromString(as_node(self)->cdata->name().c_str());
  TL_PY_CATCH
}

PyObject* node_next_functions(PyObject* self, void*) {
  TL_PY_TRY
  const auto& edges = as_node(self)->cdata->next_edges();
  PyRef tuple(check(PyTuple_New(static_cast<Py_ssize_t>(edges.size()))));
  for (size_t i = 0; i < edges.size(); ++i) {
    PyRef fn(check(wrap_node(edges[i].function)));
    PyObject* pair = check(Py_BuildValue("(OI)", fn.get(), static_cast<unsigned int>(edges[i].input_nr)));
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), pair);
  }
  return tuple.release();
  TL_PY_CATCH
}

void decref_with_gil(void* p) {
  if (!Py_IsInitialized()) return;  // at interpreter exit the object is gone with it
  GilAcquire gil;
  Py_DECREF(static_cast<PyObject*>(p));
}

PyObject* node_metadata(PyObject* self, void*) {
  TL_PY_TRY
  const auto& node = as_node(self)->cdata;
  if (!node->py_metadata()) {
    PyObject* dict = check(PyDict_New());
    node->set_py_metadata(std::shared_ptr<void>(dict, decref_with_gil));
  }
  PyObject* dict = static_cast<PyObject*>(node->py_metadata().get());
  Py_INCREF(dict);
  return dict;
  TL_PY_CATCH
}

PyObject* node_saved_bytes(PyObject* self, PyObject*) {
  TL_PY_TRY
  return PyLong_FromSize_t(as_node(self)->cdata->saved_bytes());
  TL_PY_CATCH
}

PyObject* node_saved_bytes_get(PyObject* self, void*) { return node_saved_bytes(self, nullptr); }

PyObject* node_sequence_nr(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(as_node(self)->cdata->sequence_nr());
}

PyObject* node_register_hook(PyObject* self, PyObject* fn) {
  TL_PY_TRY
  if (!PyCallable_Check(fn)) throw TypeError(str("register_hook: expected a callable, got ", Py_TYPE(fn)->tp_name));
  const auto& node = as_node(self)->cdata;
  uint64_t id = node->add_post_hook(make_node_post_hook(fn));
  return make_node_hook_handle(node, id);
  TL_PY_CATCH
}

PyObject* node_register_prehook(PyObject* self, PyObject* fn) {
  TL_PY_TRY
  if (!PyCallable_Check(fn))
    throw TypeError(str("register_prehook: expected a callable, got ", Py_TYPE(fn)->tp_name));
  const auto& node = as_node(self)->cdata;
  uint64_t id = node->add_pre_hook(make_node_pre_hook(fn));
  return make_node_hook_handle(node, id);
  TL_PY_CATCH
}

// Attributes a node class does not have come from the ctx of a custom Function's node
// (grad_fn.saved_tensors, grad_fn.needs_input_grad, ... as in PyTorch, where the ctx is the node).
PyObject* node_getattro(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  const auto& node = as_node(self)->cdata;
  PyObject* ctx = node ? py_node_ctx(*node) : nullptr;
  if (!ctx) return nullptr;
  PyErr_Clear();
  return PyObject_GetAttr(ctx, name);
}

PyMethodDef node_methods[] = {
    {"name", node_name, METH_NOARGS, "The node's class name, e.g. 'MulBackward0'."},
    {"saved_bytes", node_saved_bytes, METH_NOARGS, "Bytes of tensor data this node keeps for backward."},
    {"_sequence_nr", node_sequence_nr, METH_NOARGS, "Creation order of the node (later nodes run first)."},
    {"register_hook", node_register_hook, METH_O,
     "register_hook(fn): fn(grad_inputs, grad_outputs) runs after the node; may return new grad_inputs."},
    {"register_prehook", node_register_prehook, METH_O,
     "register_prehook(fn): fn(grad_outputs) runs before the node; may return new grad_outputs."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef node_getset[] = {
    {"next_functions", node_next_functions, nullptr,
     "One (node or None, input_nr) pair per input of the forward op: where its gradient goes.", nullptr},
    {"metadata", node_metadata, nullptr, "A dict kept with the node, free for the user.", nullptr},
    {"_saved_bytes", node_saved_bytes_get, nullptr, "Bytes of tensor data this node keeps for backward.",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// One Python type per node class name, made on first use and kept.
PyTypeObject* type_for(const std::string& name) {
  static std::unordered_map<std::string, PyObject*> types;
  auto it = types.find(name);
  if (it != types.end()) return reinterpret_cast<PyTypeObject*>(it->second);
  PyRef dict(Py_BuildValue("{s:(),s:s}", "__slots__", "__module__", "torchlite.autograd.graph"));
  if (!dict) return nullptr;
  // The class is named without the C++ namespace, as PyTorch's ("torch::autograd::NotImplemented" -> NotImplemented).
  const std::string short_name = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  PyObject* type = PyObject_CallFunction(reinterpret_cast<PyObject*>(&PyType_Type), "s(O)O", short_name.c_str(),
                                         reinterpret_cast<PyObject*>(&NodeBaseType), dict.get());
  if (!type) return nullptr;
  types.emplace(name, type);
  return reinterpret_cast<PyTypeObject*>(type);
}

}  // namespace

PyTypeObject NodeBaseType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torchlite._C._autograd.Node";
  t.tp_basicsize = sizeof(NodeObject);
  t.tp_dealloc = node_dealloc;
  t.tp_repr = node_repr;
  t.tp_hash = node_hash;
  t.tp_getattro = node_getattro;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_doc = "A node of the backward graph (tensor.grad_fn). Each node class is a subclass named after it.";
  t.tp_richcompare = node_richcompare;
  t.tp_weaklistoffset = offsetof(NodeObject, weakreflist);
  t.tp_methods = node_methods;
  t.tp_getset = node_getset;
  return t;
}();

bool is_node(PyObject* obj) { return PyObject_TypeCheck(obj, &NodeBaseType); }

const std::shared_ptr<Node>& unpack_node(PyObject* obj) { return as_node(obj)->cdata; }

PyObject* wrap_node(const std::shared_ptr<Node>& node) {
  if (!node) Py_RETURN_NONE;
  if (auto* existing = static_cast<PyObject*>(node->pyobj())) {
    Py_INCREF(existing);
    return existing;
  }
  PyTypeObject* type = type_for(node->name());
  if (!type) return nullptr;
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  NodeObject* n = as_node(obj);
  new (&n->cdata) std::shared_ptr<Node>(node);
  n->weakreflist = nullptr;
  node->set_pyobj(obj);
  return obj;
}

bool init_node_types(PyObject* module) {
  if (PyType_Ready(&NodeBaseType) < 0 || PyType_Ready(&HookHandleType) < 0) return false;
  Py_INCREF(&NodeBaseType);
  if (PyModule_AddObject(module, "Node", reinterpret_cast<PyObject*>(&NodeBaseType)) < 0) {
    Py_DECREF(&NodeBaseType);
    return false;
  }
  Py_INCREF(&HookHandleType);
  if (PyModule_AddObject(module, "_NodeHookHandle", reinterpret_cast<PyObject*>(&HookHandleType)) < 0) {
    Py_DECREF(&HookHandleType);
    return false;
  }
  return true;
}

}  // namespace tl::python
