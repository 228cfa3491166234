#include "torchlite/csrc/tensor.h"

#include <cstring>
#include <new>
#include <string>

#include "aten/autograd/AutogradMeta.h"
#include "aten/core/Exception.h"
#include "torchlite/csrc/autograd/python_node.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/jit/tracer_warn.h"
#include "torchlite/csrc/python_arg_parser.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/tensor_new.h"

namespace tl::python {

PyTypeObject TensorBaseType = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject* g_tensor_class = &TensorBaseType;

namespace {

PyTypeObject* g_size_class = nullptr;

inline TensorObject* as_tensor_object(PyObject* obj) { return reinterpret_cast<TensorObject*>(obj); }

// Creates the Python object for a tensor that has none yet.
PyObject* new_tensor_object(PyTypeObject* cls, Tensor&& t) {
  PyObject* obj = cls->tp_alloc(cls, 0);
  if (!obj) return nullptr;
  TensorImpl* impl = t.impl();
  new (&as_tensor_object(obj)->cdata) Tensor(std::move(t));
  impl->set_pyobj(obj);
  return obj;
}

// A new TensorImpl sharing `t`'s storage and geometry (not a view: no view base; its own
// version counter unless `share_version`).
Tensor shallow_copy(const Tensor& t, bool share_version) {
  auto impl = intrusive_ptr<TensorImpl>::make(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  if (share_version) impl->share_version_counter(t.impl()->version_counter());
  impl->set_math_bits(t.impl()->math_bits());
  return Tensor(std::move(impl));
}

}  // namespace

// ---------------------------------------------------------------- wrap

PyObject* wrap(const Tensor& t) {
  if (!t.defined()) Py_RETURN_NONE;
  if (auto* obj = static_cast<PyObject*>(t.impl()->pyobj())) {
    Py_INCREF(obj);
    return obj;
  }
  return new_tensor_object(g_tensor_class, Tensor(t));
}

PyObject* wrap(Tensor&& t) {
  if (!t.defined()) Py_RETURN_NONE;
  if (auto* obj = static_cast<PyObject*>(t.impl()->pyobj())) {
    Py_INCREF(obj);
    return obj;
  }
  return new_tensor_object(g_tensor_class, std::move(t));
}

PyObject* wrap(const std::vector<Tensor>& ts) {
  PyRef tuple(PyTuple_New(static_cast<Py_ssize_t>(ts.size())));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < ts.size(); ++i) {
    PyObject* item = wrap(ts[i]);
    if (!item) return nullptr;
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), item);
  }
  return tuple.release();
}

PyObject* wrap(bool v) { return PyBool_FromLong(v); }
PyObject* wrap(int64_t v) { return PyLong_FromLongLong(v); }
PyObject* wrap(double v) { return PyFloat_FromDouble(v); }
PyObject* wrap(const Scalar& s) { return wrap_scalar(s); }
PyObject* wrap(ScalarType t) {
  TL_PY_TRY
  return dtype_object(t);
  TL_PY_CATCH
}
PyObject* wrap(Device d) {
  TL_PY_TRY
  return device_object(d);
  TL_PY_CATCH
}

PyObject* make_size(IntArrayRef sizes) {
  const Py_ssize_t n = static_cast<Py_ssize_t>(sizes.size());
  PyObject* tuple = g_size_class ? g_size_class->tp_alloc(g_size_class, n) : PyTuple_New(n);
  if (!tuple) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[static_cast<size_t>(i)]);
    if (!v) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, i, v);
  }
  return tuple;
}

namespace {

// ---------------------------------------------------------------- type slots

void tensor_dealloc(PyObject* self) {
  TensorObject* t = as_tensor_object(self);
  if (t->cdata.defined() && t->cdata.impl()->pyobj() == self) t->cdata.impl()->set_pyobj(nullptr);
  t->cdata.~Tensor();
  Py_TYPE(self)->tp_free(self);
}

PyObject* tensor_base_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyErr_Format(PyExc_TypeError,
               "cannot create '%s' instances directly; use torchlite.tensor(), torchlite.empty() and the other "
               "factory functions",
               type->tp_name);
  return nullptr;
}

// Like PyTorch: the hash of a tensor is its id().
Py_hash_t tensor_hash(PyObject* self) { return static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(self)); }

Py_ssize_t tensor_length(PyObject* self) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  TL_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
  return static_cast<Py_ssize_t>(t.sizes()[0]);
  TL_PY_CATCH_RETURN(-1)
}

int tensor_bool(PyObject* self) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  TL_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  TL_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  if (!jit::warn_conversion("Converting a tensor to a Python boolean")) return -1;
  return tensor_item(t).to_bool() ? 1 : 0;
  TL_PY_CATCH_RETURN(-1)
}

// A uint64 element from 2^63 up is held by its Scalar as the int64 of the same bits: item() gives
// it back whole, int() and __index__ convert through int64 and refuse it, as in PyTorch.
bool is_big_uint64(const Tensor& t, const Scalar& s) { return t.dtype() == ScalarType::UInt64 && s.to_long() < 0; }
PyObject* integer_item(const Tensor& t, const Scalar& s) {
  if (is_big_uint64(t, s)) return PyLong_FromUnsignedLongLong(static_cast<uint64_t>(s.to_long()));
  return PyLong_FromLongLong(s.to_long());
}
PyObject* int64_item(const Tensor& t, const Scalar& s) {
  TL_CHECK(!is_big_uint64(t, s), "value cannot be converted to type int64_t without overflow");
  return PyLong_FromLongLong(s.to_long());
}

PyObject* tensor_float(PyObject* self) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  TL_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  if (!jit::warn_conversion("Converting a tensor to a Python float")) return nullptr;
  const Scalar s = tensor_item(t);
  TL_CHECK(!s.is_complex() || s.to_complex().imag() == 0, "value cannot be converted to type double without overflow");
  if (is_big_uint64(t, s)) return PyFloat_FromDouble(static_cast<double>(static_cast<uint64_t>(s.to_long())));
  return PyFloat_FromDouble(s.to_double());
  TL_PY_CATCH
}

PyObject* tensor_int(PyObject* self) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  TL_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  if (!jit::warn_conversion("Converting a tensor to a Python integer")) return nullptr;
  Scalar s = tensor_item(t);
  TL_CHECK(!s.is_complex() || s.to_complex().imag() == 0, "value cannot be converted to type int64_t without overflow");
  if (s.is_floating_point() || s.is_complex()) return PyLong_FromDouble(s.to_double());  // truncates; errors on nan/inf
  return int64_item(t, s);
  TL_PY_CATCH
}

PyObject* tensor_index(PyObject* self) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  TL_CHECK_TYPE(t.numel() == 1 && is_integral_type(t.dtype(), /*include_bool=*/true),
                "only integer tensors of a single element can be converted to an index");
  if (!jit::warn_conversion("Converting a tensor to a Python index")) return nullptr;
  return int64_item(t, tensor_item(t));
  TL_PY_CATCH
}

// ---------------------------------------------------------------- operators
//
// The generated bindings provide operator dunders as METH_FASTCALL methods (__add__, __radd__,
// __iadd__, ...). They are installed as C slots of TensorBase, not as methods: PyType_Ready then
// exposes them as slot wrappers, and subclasses inherit the C slots, so `a + b` goes straight
// from the interpreter to the generated binding. A reflected operator the YAML does not provide
// (__rtruediv__, __rpow__, ...) may be written in Python on torchlite.Tensor; the slot finds it.

using FastKwFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
using FastFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t);

struct OpFn {
  PyMethodDef def{};
  bool present = false;
};

PyObject* call_op(const OpFn& op, PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const PyMethodDef& d = op.def;
  switch (d.ml_flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O | METH_KEYWORDS)) {
    case METH_FASTCALL | METH_KEYWORDS:
      return reinterpret_cast<FastKwFn>(reinterpret_cast<void (*)()>(d.ml_meth))(self, args, nargs, nullptr);
    case METH_FASTCALL:
      return reinterpret_cast<FastFn>(reinterpret_cast<void (*)()>(d.ml_meth))(self, args, nargs);
    case METH_O:
      if (nargs == 1) return d.ml_meth(self, args[0]);
      break;
    case METH_NOARGS:
      if (nargs == 0) return d.ml_meth(self, nullptr);
      break;
    default: {
      PyRef tuple(PyTuple_New(nargs));
      if (!tuple) return nullptr;
      for (Py_ssize_t i = 0; i < nargs; ++i) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tuple.get(), i, args[i]);
      }
      if (d.ml_flags & METH_KEYWORDS) {
        return reinterpret_cast<PyCFunctionWithKeywords>(reinterpret_cast<void (*)()>(d.ml_meth))(self, tuple.get(),
                                                                                                   nullptr);
      }
      return d.ml_meth(self, tuple.get());
    }
  }
  PyErr_Format(PyExc_TypeError, "%s: wrong number of arguments", d.ml_name);
  return nullptr;
}

enum BinaryOp { B_ADD, B_SUB, B_MUL, B_MATMUL, B_TRUEDIV, B_FLOORDIV, B_MOD, B_POW, B_LSHIFT, B_RSHIFT, B_AND, B_OR,
                B_XOR, B_COUNT };
const char* const kBinaryNames[B_COUNT] = {"add",   "sub",    "mul",    "matmul", "truediv", "floordiv", "mod",
                                           "pow",   "lshift", "rshift", "and",    "or",      "xor"};

struct BinaryEntry {
  OpFn fwd, rev, inplace;
  PyObject* fwd_name = nullptr;  // interned "__add__"
  PyObject* rev_name = nullptr;  // interned "__radd__"
  PyObject* inplace_name = nullptr;
};
BinaryEntry g_binary[B_COUNT];

enum UnaryOp { U_NEG, U_POS, U_ABS, U_INVERT, U_COUNT };
const char* const kUnaryNames[U_COUNT] = {"__neg__", "__pos__", "__abs__", "__invert__"};
OpFn g_unary[U_COUNT];

// Indexed by Py_LT .. Py_GE.
const char* const kCompareNames[6] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
OpFn g_compare[6];
bool g_any_compare = false;

// `b op a` where `a` is not a tensor and `b` is: a Python-level __rop__ on b's class wins, then
// the generated one.
PyObject* reflected(const BinaryEntry& e, PyObject* tensor, PyObject* other) {
  PyObject* descr = _PyType_Lookup(Py_TYPE(tensor), e.rev_name);  // borrowed
  if (descr && !Py_IS_TYPE(descr, &PyWrapperDescr_Type)) {
    descrgetfunc get = Py_TYPE(descr)->tp_descr_get;
    if (!get) return PyObject_CallOneArg(descr, other);
    PyRef bound(get(descr, tensor, reinterpret_cast<PyObject*>(Py_TYPE(tensor))));
    if (!bound) return nullptr;
    return PyObject_CallOneArg(bound.get(), other);
  }
  if (e.rev.present) return call_op(e.rev, tensor, &other, 1);
  Py_RETURN_NOTIMPLEMENTED;
}

PyObject* binary_dispatch(int k, PyObject* a, PyObject* b) {
  const BinaryEntry& e = g_binary[k];
  if (is_tensor(a)) {
    if (e.fwd.present) return call_op(e.fwd, a, &b, 1);
    Py_RETURN_NOTIMPLEMENTED;
  }
  if (is_tensor(b)) return reflected(e, b, a);
  Py_RETURN_NOTIMPLEMENTED;
}

template <int K>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  return binary_dispatch(K, a, b);
}

template <int K>
PyObject* nb_inplace(PyObject* a, PyObject* b) {
  const BinaryEntry& e = g_binary[K];
  if (e.inplace.present && is_tensor(a)) return call_op(e.inplace, a, &b, 1);
  Py_RETURN_NOTIMPLEMENTED;
}

PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary_dispatch(B_POW, a, b);
}

PyObject* nb_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return nb_inplace<B_POW>(a, b);
}

template <int K>
PyObject* nb_unary(PyObject* a) {
  if constexpr (K == U_INVERT) {
    // As PyTorch: `~` of a floating tensor is a TypeError (bitwise_not itself raises NotImplementedError).
    if (is_tensor(a) && is_floating_type(unpack_tensor(a).dtype())) {
      PyErr_SetString(PyExc_TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
      return nullptr;
    }
  }
  return call_op(g_unary[K], a, nullptr, 0);
}

PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  if (op < 0 || op > 5 || !g_compare[op].present || !is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  return call_op(g_compare[op], a, &b, 1);
}

// Slot pointers of a PyNumberMethods for binary op k.
binaryfunc* binary_slot(PyNumberMethods* nb, int k) {
  switch (k) {
    case B_ADD: return &nb->nb_add;
    case B_SUB: return &nb->nb_subtract;
    case B_MUL: return &nb->nb_multiply;
    case B_MATMUL: return &nb->nb_matrix_multiply;
    case B_TRUEDIV: return &nb->nb_true_divide;
    case B_FLOORDIV: return &nb->nb_floor_divide;
    case B_MOD: return &nb->nb_remainder;
    case B_LSHIFT: return &nb->nb_lshift;
    case B_RSHIFT: return &nb->nb_rshift;
    case B_AND: return &nb->nb_and;
    case B_OR: return &nb->nb_or;
    case B_XOR: return &nb->nb_xor;
    default: return nullptr;
  }
}
binaryfunc* inplace_slot(PyNumberMethods* nb, int k) {
  switch (k) {
    case B_ADD: return &nb->nb_inplace_add;
    case B_SUB: return &nb->nb_inplace_subtract;
    case B_MUL: return &nb->nb_inplace_multiply;
    case B_MATMUL: return &nb->nb_inplace_matrix_multiply;
    case B_TRUEDIV: return &nb->nb_inplace_true_divide;
    case B_FLOORDIV: return &nb->nb_inplace_floor_divide;
    case B_MOD: return &nb->nb_inplace_remainder;
    case B_LSHIFT: return &nb->nb_inplace_lshift;
    case B_RSHIFT: return &nb->nb_inplace_rshift;
    case B_AND: return &nb->nb_inplace_and;
    case B_OR: return &nb->nb_inplace_or;
    case B_XOR: return &nb->nb_inplace_xor;
    default: return nullptr;
  }
}

template <int... Ks>
struct BinaryThunks {
  static constexpr binaryfunc binary[] = {nb_binary<Ks>...};
  static constexpr binaryfunc inplace[] = {nb_inplace<Ks>...};
};
using AllBinaryThunks = BinaryThunks<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12>;
static_assert(B_COUNT == 13, "update AllBinaryThunks");
constexpr unaryfunc kUnaryThunks[U_COUNT] = {nb_unary<U_NEG>, nb_unary<U_POS>, nb_unary<U_ABS>, nb_unary<U_INVERT>};

PyNumberMethods tensor_as_number = {};
PyMappingMethods tensor_as_mapping = {};

// Takes the operator dunders out of `methods` into the slot tables; returns true if consumed.
bool take_operator(const PyMethodDef& def) {
  std::string name = def.ml_name;
  if (name.size() < 5 || name.compare(0, 2, "__") != 0 || name.compare(name.size() - 2, 2, "__") != 0) return false;
  std::string inner = name.substr(2, name.size() - 4);
  for (int k = 0; k < B_COUNT; ++k) {
    std::string op = kBinaryNames[k];
    OpFn* target = nullptr;
    if (inner == op) target = &g_binary[k].fwd;
    else if (inner == "r" + op) target = &g_binary[k].rev;
    else if (inner == "i" + op) target = &g_binary[k].inplace;
    if (target) {
      target->def = def;
      target->present = true;
      return true;
    }
  }
  for (int k = 0; k < U_COUNT; ++k) {
    if (name == kUnaryNames[k]) {
      g_unary[k].def = def;
      g_unary[k].present = true;
      return true;
    }
  }
  for (int k = 0; k < 6; ++k) {
    if (name == kCompareNames[k]) {
      g_compare[k].def = def;
      g_compare[k].present = true;
      g_any_compare = true;
      return true;
    }
  }
  return false;
}

void install_operator_slots() {
  for (int k = 0; k < B_COUNT; ++k) {
    BinaryEntry& e = g_binary[k];
    std::string op = kBinaryNames[k];
    e.fwd_name = PyUnicode_InternFromString(("__" + op + "__").c_str());
    e.rev_name = PyUnicode_InternFromString(("__r" + op + "__").c_str());
    e.inplace_name = PyUnicode_InternFromString(("__i" + op + "__").c_str());
    if (!e.fwd_name || !e.rev_name || !e.inplace_name) throw python_error();
    if (e.fwd.present || e.rev.present) {
      if (k == B_POW) tensor_as_number.nb_power = nb_power;
      else *binary_slot(&tensor_as_number, k) = AllBinaryThunks::binary[k];
    }
    if (e.inplace.present) {
      if (k == B_POW) tensor_as_number.nb_inplace_power = nb_inplace_power;
      else *inplace_slot(&tensor_as_number, k) = AllBinaryThunks::inplace[k];
    }
  }
  if (g_unary[U_NEG].present) tensor_as_number.nb_negative = kUnaryThunks[U_NEG];
  if (g_unary[U_POS].present) tensor_as_number.nb_positive = kUnaryThunks[U_POS];
  if (g_unary[U_ABS].present) tensor_as_number.nb_absolute = kUnaryThunks[U_ABS];
  if (g_unary[U_INVERT].present) tensor_as_number.nb_invert = kUnaryThunks[U_INVERT];
  if (g_any_compare) TensorBaseType.tp_richcompare = tensor_richcompare;
}

// ---------------------------------------------------------------- attributes

#define TL_GETTER(fn_name, body)              \
  PyObject* fn_name(PyObject* self, void*) { \
    TL_PY_TRY                                 \
    const Tensor& t = unpack_tensor(self);    \
    body                                      \
    TL_PY_CATCH                               \
  }

TL_GETTER(get_dtype, return dtype_object(t.dtype());)
TL_GETTER(get_device, return device_object(t.device());)
TL_GETTER(get_shape, return make_size(t.sizes());)
TL_GETTER(get_ndim, return PyLong_FromLongLong(t.dim());)
TL_GETTER(get_is_meta, return PyBool_FromLong(t.is_meta());)
TL_GETTER(get_is_cpu, return PyBool_FromLong(t.is_cpu());)
TL_GETTER(get_is_cuda, (void)t; Py_RETURN_FALSE;)
TL_GETTER(get_itemsize, return PyLong_FromSize_t(t.itemsize());)
TL_GETTER(get_nbytes, return PyLong_FromSize_t(t.nbytes());)
TL_GETTER(get_version, return PyLong_FromUnsignedLong(t.version());)
TL_GETTER(get_requires_grad, return PyBool_FromLong(t.requires_grad());)
TL_GETTER(get_is_leaf, return PyBool_FromLong(t.is_leaf());)
TL_GETTER(get_grad, return wrap(t.grad());)
TL_GETTER(get_grad_fn, return wrap_node(t.grad_fn());)
TL_GETTER(get_data, return wrap(shallow_copy(t, /*share_version=*/false));)
// The tensor this one is a view of (the root of a chain of views), or None, as PyTorch's `_base`.
TL_GETTER(get_base, if (!t.impl()->view_base()) Py_RETURN_NONE; return wrap(Tensor(t.impl()->view_base()));)

int set_requires_grad(PyObject* self, PyObject* value, void*) {
  TL_PY_TRY
  TL_CHECK(value && PyBool_Check(value), "requires_grad must be a bool");
  const Tensor& t = unpack_tensor(self);
  // Unlike requires_grad_(True), the setter refuses non-leaves whatever the value (as PyTorch does).
  TL_CHECK(t.is_leaf(), "you can only change requires_grad flags of leaf variables.");
  t.set_requires_grad(value == Py_True);  // checks the dtype
  return 0;
  TL_PY_CATCH_RETURN(-1)
}

int set_grad(PyObject* self, PyObject* value, void*) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  if (!value || value == Py_None) {
    if (t.grad().defined()) t.mutable_grad() = Tensor();
    return 0;
  }
  TL_CHECK_TYPE(is_tensor(value), "assigned grad expected to be a Tensor or None but got grad of type ",
                Py_TYPE(value)->tp_name);
  const Tensor& g = unpack_tensor(value);
  TL_CHECK(!g.is_same(t), "can't assign Variable as its own grad");
  TL_CHECK(g.sizes() == t.sizes(), "attempting to assign a gradient of size '", g.sizes(), "' to a tensor of size '",
           t.sizes(), "'. Please ensure that the gradient and the tensor are the same size");
  TL_CHECK(g.dtype() == t.dtype(), "attempting to assign a gradient with dtype '", scalar_type_name(g.dtype()),
           "' to a tensor with dtype '", scalar_type_name(t.dtype()),
           "'. Please ensure that the gradient and the tensor have the same dtype");
  TL_CHECK(g.device().type == t.device().type, "attempting to assign a gradient on device '", g.device().str(),
           "' to a tensor on device '", t.device().str(), "'. Please ensure that the gradient and the tensor are on "
           "the same device");
  t.mutable_grad() = g;
  return 0;
  TL_PY_CATCH_RETURN(-1)
}

// x.data = y: x takes y's storage, dtype and geometry, keeping its own identity and autograd state (as
// PyTorch's set_data: the device must match).
int set_data(PyObject* self, PyObject* value, void*) {
  TL_PY_TRY
  TL_CHECK_TYPE(value && is_tensor(value), "Tensor.data must be set to a Tensor, got ",
                value ? Py_TYPE(value)->tp_name : "nothing (it cannot be deleted)");
  const Tensor& t = unpack_tensor(self);
  const Tensor& src = unpack_tensor(value);
  TL_CHECK(src.device() == t.device(), "Attempted to call `variable.set_data(tensor)`, but `variable` and "
           "`tensor` have incompatible tensor type.");
  t.impl()->set_dtype(src.dtype());
  t.impl()->set_storage(src.storage());
  t.impl()->set_sizes_and_strides(src.sizes(), src.strides(), src.storage_offset());
  return 0;
  TL_PY_CATCH_RETURN(-1)
}

PyGetSetDef tensor_getset[] = {
    {"dtype", get_dtype, nullptr, "The element type (a torchlite.dtype).", nullptr},
    {"device", get_device, nullptr, "The device (a torchlite.device).", nullptr},
    {"shape", get_shape, nullptr, "The sizes, as a torchlite.Size.", nullptr},
    {"ndim", get_ndim, nullptr, "The number of dimensions.", nullptr},
    {"is_meta", get_is_meta, nullptr, "True for a tensor on the meta device (no data).", nullptr},
    {"is_cpu", get_is_cpu, nullptr, "True for a tensor on the CPU.", nullptr},
    {"is_cuda", get_is_cuda, nullptr, "Always False.", nullptr},
    {"itemsize", get_itemsize, nullptr, "Bytes per element.", nullptr},
    {"nbytes", get_nbytes, nullptr, "numel() * itemsize.", nullptr},
    {"_version", get_version, nullptr, "The in-place modification counter (shared by views).", nullptr},
    {"requires_grad", get_requires_grad, set_requires_grad, "Whether autograd records operations on this tensor.",
     nullptr},
    {"is_leaf", get_is_leaf, nullptr, "True unless the tensor was computed by an operation autograd recorded.",
     nullptr},
    {"grad", get_grad, set_grad, "The gradient accumulated by backward(), or None.", nullptr},
    {"grad_fn", get_grad_fn, nullptr, "The backward node that computed this tensor, or None.", nullptr},
    {"data", get_data, set_data, "A tensor sharing this one's data, outside autograd.", nullptr},
    {"_base", get_base, nullptr, "The tensor this one is a view of, or None.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// ---------------------------------------------------------------- methods

#define TL_NOARGS(fn_name, body)                  \
  PyObject* fn_name(PyObject* self, PyObject*) { \
    TL_PY_TRY                                     \
    const Tensor& t = unpack_tensor(self);        \
    body                                          \
    TL_PY_CATCH                                   \
  }

TL_NOARGS(m_dim, return PyLong_FromLongLong(t.dim());)
TL_NOARGS(m_numel, return PyLong_FromLongLong(t.numel());)
TL_NOARGS(m_element_size, return PyLong_FromSize_t(t.itemsize());)
TL_NOARGS(m_storage_offset, return PyLong_FromLongLong(t.storage_offset());)

// PyTorch's channels-last contiguity: strides grow in the order C, W, H, N (C, W, H, D, N for 5-D),
// skipping dims of size 1; false for any other rank.
bool is_channels_last_contiguous(const Tensor& t, MemoryFormat format) {
  static constexpr int64_t order_2d[] = {1, 3, 2, 0}, order_3d[] = {1, 4, 3, 2, 0};
  const bool is_3d = format == MemoryFormat::ChannelsLast3d;
  if (t.dim() != (is_3d ? 5 : 4)) return false;
  int64_t expected = 1;
  for (int64_t d : is_3d ? ArrayRef<int64_t>(order_3d, 5) : ArrayRef<int64_t>(order_2d, 4)) {
    if (t.size(d) == 1) continue;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

PyObject* m_is_contiguous(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  if (nargs == 0 && !kwnames) return PyBool_FromLong(t.is_contiguous());
  static PythonArgParser parser({"is_contiguous(*, MemoryFormat memory_format=contiguous_format)"}, true);
  ParsedArgs parsed;
  auto r = parser.parse(self, args, nargs, kwnames, parsed);
  const MemoryFormat format = r.memory_format(0);
  if (format == MemoryFormat::Contiguous || format == MemoryFormat::Preserve) return PyBool_FromLong(t.is_contiguous());
  return PyBool_FromLong(is_channels_last_contiguous(t, format));
  TL_PY_CATCH
}
// 0 for an empty tensor, as PyTorch: its address would mean nothing (and its offset is not applied).
TL_NOARGS(m_data_ptr, return PyLong_FromVoidPtr(t.numel() ? t.data_ptr() : nullptr);)
TL_NOARGS(m_is_floating_point, return PyBool_FromLong(t.is_floating_point());)
TL_NOARGS(m_is_complex, return PyBool_FromLong(is_complex_type(t.dtype()));)
TL_NOARGS(m_is_signed, return PyBool_FromLong(is_signed_type(t.dtype()));)
TL_NOARGS(m_item, if (!jit::warn_conversion("Converting a tensor to a Python number")) return nullptr;
          const Scalar s = tensor_item(t); return is_big_uint64(t, s) ? integer_item(t, s) : wrap_scalar(s);)
TL_NOARGS(m_tolist, if (!jit::warn_conversion("Converting a tensor to a Python list")) return nullptr; return tensor_to_list(t);)
TL_NOARGS(m_numpy_holder, return tensor_numpy_holder(t);)
TL_NOARGS(m_is_view, return PyBool_FromLong(static_cast<bool>(t.impl()->view_base()));)
TL_NOARGS(m_get_device, (void)t; return PyLong_FromLong(-1);)  // CPU and meta have no device ordinal

PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  if (nargs == 0 && !kwnames) return make_size(t.sizes());
  static PythonArgParser parser({"size(int? dim=None)"}, true);
  ParsedArgs parsed;
  auto r = parser.parse(self, args, nargs, kwnames, parsed);
  if (r.is_none(0)) return make_size(t.sizes());
  return PyLong_FromLongLong(t.size(r.toInt64(0)));
  TL_PY_CATCH
}

PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  const Tensor& t = unpack_tensor(self);
  static PythonArgParser parser({"stride(int? dim=None)"}, true);
  ParsedArgs parsed;
  auto r = parser.parse(self, args, nargs, kwnames, parsed);
  if (r.is_none(0)) {
    IntArrayRef strides = t.strides();
    PyRef tuple(PyTuple_New(static_cast<Py_ssize_t>(strides.size())));
    if (!tuple) return nullptr;
    for (size_t i = 0; i < strides.size(); ++i) {
      PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), check(PyLong_FromLongLong(strides[i])));
    }
    return tuple.release();
  }
  return PyLong_FromLongLong(t.stride(r.toInt64(0)));
  TL_PY_CATCH
}

PyObject* m_requires_grad_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"requires_grad_(bool requires_grad=True)"}, true);
  ParsedArgs parsed;
  auto r = parser.parse(self, args, nargs, kwnames, parsed);
  unpack_tensor(self).set_requires_grad(r.toBool(0));  // checks leaf-ness and dtype
  Py_INCREF(self);
  return self;
  TL_PY_CATCH
}

// TensorBase._make_subclass(cls, data, require_grad=False): an object of class `cls` (a subclass
// of TensorBase, e.g. a Parameter) sharing `data`'s storage, detached from its history.
PyObject* m_make_subclass(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"_make_subclass(object cls, Tensor data, bool require_grad=False)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  PyObject* cls = r.pyobject(0);
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType),
                "_make_subclass: cls must be a subclass of torchlite.Tensor, got ", py_typename(cls));
  Tensor t = shallow_copy(r.tensor(1), /*share_version=*/true);
  if (r.toBool(2)) t.set_requires_grad(true);
  return new_tensor_object(reinterpret_cast<PyTypeObject*>(cls), std::move(t));
  TL_PY_CATCH
}

#define TL_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))

PyMethodDef tensor_methods[] = {
    {"dim", m_dim, METH_NOARGS, "The number of dimensions."},
    {"ndimension", m_dim, METH_NOARGS, "The number of dimensions (alias of dim())."},
    {"numel", m_numel, METH_NOARGS, "The number of elements."},
    {"nelement", m_numel, METH_NOARGS, "The number of elements (alias of numel())."},
    {"element_size", m_element_size, METH_NOARGS, "Bytes per element."},
    {"storage_offset", m_storage_offset, METH_NOARGS, "Offset of element 0 in the storage, in elements."},
    {"is_contiguous", TL_FASTCALL(m_is_contiguous), METH_FASTCALL | METH_KEYWORDS,
     "Whether the elements are laid out in row-major order (or in `memory_format`'s order)."},
    {"data_ptr", m_data_ptr, METH_NOARGS, "Address of element 0 (0 for meta and empty tensors)."},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, "Whether the dtype is a floating-point type."},
    {"is_complex", m_is_complex, METH_NOARGS, "Whether the dtype is complex64 or complex128."},
    {"is_signed", m_is_signed, METH_NOARGS, "Whether the dtype is signed."},
    {"item", m_item, METH_NOARGS, "The value of a one-element tensor as a Python number."},
    {"tolist", m_tolist, METH_NOARGS, "The data as nested Python lists (a number for a 0-d tensor)."},
    {"_numpy_holder", m_numpy_holder, METH_NOARGS,
     "An object with the NumPy array interface that keeps this tensor's storage alive (see Tensor.numpy)."},
    {"_is_view", m_is_view, METH_NOARGS, "Whether this tensor is a view of another."},
    {"get_device", m_get_device, METH_NOARGS, "-1 for CPU tensors."},
    {"size", TL_FASTCALL(m_size), METH_FASTCALL | METH_KEYWORDS,
     "size(dim=None): the sizes as a torchlite.Size, or the size of one dimension."},
    {"stride", TL_FASTCALL(m_stride), METH_FASTCALL | METH_KEYWORDS,
     "stride(dim=None): the strides (in elements) as a tuple, or the stride of one dimension."},
    {"requires_grad_", TL_FASTCALL(m_requires_grad_), METH_FASTCALL | METH_KEYWORDS,
     "requires_grad_(requires_grad=True): sets requires_grad in place and returns self."},
    {"_make_subclass", TL_FASTCALL(m_make_subclass), METH_FASTCALL | METH_KEYWORDS | METH_STATIC,
     "_make_subclass(cls, data, require_grad=False): a `cls` instance sharing data's storage."},
    {nullptr, nullptr, 0, nullptr},
};

bool g_type_ready = false;

}  // namespace

void init_tensor_type(PyObject* module, std::vector<PyMethodDef> extra_methods) {
  if (g_type_ready) return;
  // Method table: the handwritten methods first (they win over a generated one of the same
  // name), then the generated ones, minus the operator dunders, which become slots.
  auto* methods = new std::vector<PyMethodDef>();  // lives forever: the type points into it
  for (PyMethodDef* m = tensor_methods; m->ml_name; ++m) methods->push_back(*m);
  for (const PyMethodDef& m : extra_methods) {
    if (!m.ml_name) continue;
    if (take_operator(m)) continue;
    methods->push_back(m);
  }
  methods->push_back({nullptr, nullptr, 0, nullptr});
  install_operator_slots();

  tensor_as_number.nb_bool = tensor_bool;
  tensor_as_number.nb_int = tensor_int;
  tensor_as_number.nb_float = tensor_float;
  tensor_as_number.nb_index = tensor_index;
  tensor_as_mapping.mp_length = tensor_length;

  TensorBaseType.tp_name = "torchlite._C.TensorBase";
  TensorBaseType.tp_basicsize = sizeof(TensorObject);
  TensorBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  TensorBaseType.tp_doc = "The C base class of torchlite.Tensor.";
  TensorBaseType.tp_dealloc = tensor_dealloc;
  TensorBaseType.tp_new = tensor_base_new;
  TensorBaseType.tp_hash = tensor_hash;
  TensorBaseType.tp_as_number = &tensor_as_number;
  TensorBaseType.tp_as_mapping = &tensor_as_mapping;
  TensorBaseType.tp_methods = methods->data();
  TensorBaseType.tp_getset = tensor_getset;
  if (PyType_Ready(&TensorBaseType) < 0) throw python_error();
  Py_INCREF(&TensorBaseType);
  if (PyModule_AddObject(module, "TensorBase", reinterpret_cast<PyObject*>(&TensorBaseType)) < 0) {
    Py_DECREF(&TensorBaseType);
    throw python_error();
  }
  g_type_ready = true;
}

PyObject* set_tensor_class(PyObject*, PyObject* cls) {
  TL_PY_TRY
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType),
                "_set_tensor_class: expected a subclass of TensorBase, got ", py_typename(cls));
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  // A Python-level reflected operator (__rtruediv__ defined on the class) makes Python install its
  // generic, slower slot for the whole operator. Put the C slot back when the class does not
  // override the forward operator itself: the C slot still finds the Python __rop__ (see reflected()).
  if (type->tp_as_number) {
    for (int k = 0; k < B_COUNT; ++k) {
      const BinaryEntry& e = g_binary[k];
      auto inherited = [&](PyObject* name) {
        PyObject* mine = _PyType_Lookup(type, name);
        PyObject* base = PyDict_GetItem(TensorBaseType.tp_dict, name);
        return mine != nullptr && mine == base;
      };
      if (k == B_POW) {
        if (tensor_as_number.nb_power && inherited(e.fwd_name)) type->tp_as_number->nb_power = nb_power;
        if (tensor_as_number.nb_inplace_power && inherited(e.inplace_name)) {
          type->tp_as_number->nb_inplace_power = nb_inplace_power;
        }
        continue;
      }
      binaryfunc base_fn = *binary_slot(&tensor_as_number, k);
      if (base_fn && inherited(e.fwd_name)) *binary_slot(type->tp_as_number, k) = base_fn;
      binaryfunc base_inplace = *inplace_slot(&tensor_as_number, k);
      if (base_inplace && inherited(e.inplace_name)) *inplace_slot(type->tp_as_number, k) = base_inplace;
    }
  }
  Py_INCREF(cls);
  if (g_tensor_class != &TensorBaseType) Py_DECREF(g_tensor_class);
  g_tensor_class = type;
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyObject* set_size_class(PyObject*, PyObject* cls) {
  TL_PY_TRY
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &PyTuple_Type),
                "_set_size_class: expected a subclass of tuple, got ", py_typename(cls));
  Py_INCREF(cls);
  Py_XDECREF(g_size_class);
  g_size_class = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

}  // namespace tl::python
