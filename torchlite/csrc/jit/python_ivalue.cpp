// Python objects <-> IValues for the JIT bindings.
#include "aten/core/Exception.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/generator.h"
#include "torchlite/csrc/jit/pybind_utils.h"
#include "torchlite/csrc/layout.h"
#include "torchlite/csrc/python_utils.h"

namespace py = pybind11;
using tl::jit::IValue;

namespace tl::python::jit {

namespace {
// The bound Object type, looked up once: every call of a compiled module passes its Object, and
// pybind11's isinstance + cast look the type up in a hash table each time (0.5 us of a 5 us call).
const py::detail::type_info* object_type_info() {
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(tl::jit::Object));
  return info;
}
// torchlite.jit._dict_list.DictList: a dict in the interpreter's form (a list of alternating keys and values) that
// stays marked as a dict on its way into and out of the interpreter (IValue::dict), so a Union's run-time type test
// tells it from a list. Looked up once.
PyObject* dict_list_type() {
  static PyObject* type = py::object(py::module_::import("torchlite.jit._dict_list").attr("DictList")).release().ptr();
  return type;
}
// torchlite.jit._named_tuple.tagged: a tuple tagged with a NamedTuple class, as an instance of the class.
PyObject* named_tuple_maker() {
  static PyObject* fn = py::object(py::module_::import("torchlite.jit._named_tuple").attr("tagged")).release().ptr();
  return fn;
}
}  // namespace

IValue to_ivalue(py::handle obj) {
  PyObject* o = obj.ptr();
  if (o == Py_None) return IValue();
  if (is_tensor(o)) return IValue(unpack_tensor(o));
  if (const py::detail::type_info* info = object_type_info(); info && Py_TYPE(o) == info->type) {
    auto* inst = reinterpret_cast<py::detail::instance*>(o);
    return IValue(inst->get_value_and_holder(info).holder<std::shared_ptr<tl::jit::Object>>());
  }
  if (PyBool_Check(o)) return IValue(o == Py_True);
  if (is_py_int(o)) return IValue(unpack_int64(o));
  if (PyFloat_Check(o)) return IValue(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) return IValue(obj.cast<std::string>());
  if (is_dtype(o)) return IValue(dtype_from_object(o));
  if (is_device(o)) return IValue(device_from_object(o));
  if (is_layout(o)) return IValue(unpack_layout(o));
  if (is_memory_format(o)) return IValue(unpack_memory_format(o));
  if (is_generator(o)) return IValue(unpack_generator(o));
  if (py::isinstance<tl::jit::Object>(obj)) return IValue(obj.cast<std::shared_ptr<tl::jit::Object>>());
  if (PyList_Check(o) || PyTuple_Check(o)) {
    std::vector<IValue> elems;
    for (py::handle e : obj) elems.push_back(to_ivalue(e));
    if (PyTuple_Check(o)) {
      // an instance of a NamedTuple class script has compiled (marked by torchlite.jit._named_tuple): tagged
      if (!PyTuple_CheckExact(o)) {
        PyObject* name = PyDict_GetItemString(Py_TYPE(o)->tp_dict, "_torchlite_jit_name");
        if (name != nullptr && PyUnicode_Check(name)) return IValue::named_tuple(py::str(name).cast<std::string>(), std::move(elems));
      }
      return IValue::tuple(std::move(elems));
    }
    if (!PyList_CheckExact(o) && reinterpret_cast<PyObject*>(Py_TYPE(o)) == dict_list_type())
      return IValue::dict(std::move(elems));
    return IValue::list(std::move(elems));
  }
  throw TypeError(str("jit: cannot convert a Python ", Py_TYPE(o)->tp_name, " to a JIT value"));
}

py::object to_py(const IValue& v) {
  using Tag = IValue::Tag;
  switch (v.tag()) {
    case Tag::None: return py::none();
    case Tag::Tensor: return py::cast(v.toTensor());
    case Tag::Double: return py::float_(v.toDouble());
    case Tag::Int: return py::int_(v.toInt());
    case Tag::Bool: return py::bool_(v.toBool());
    case Tag::String: return py::str(v.toStringRef());
    case Tag::ScalarType: return py::reinterpret_steal<py::object>(check(dtype_object(v.toScalarType())));
    case Tag::Device: return py::reinterpret_steal<py::object>(check(device_object(v.toDevice())));
    case Tag::Layout: return py::module_::import("torchlite._C").attr("strided");
    case Tag::MemoryFormat:
      return py::module_::import("torchlite._C").attr(memory_format_name(v.toMemoryFormat()));
    case Tag::Generator: throw TypeError("jit: a Generator value cannot be returned to Python");
    case Tag::Object: return py::cast(v.toObject());
    case Tag::List: {
      py::list out;
      for (const IValue& e : v.toListRef()) out.append(to_py(e));
      if (v.isDict()) return py::reinterpret_borrow<py::object>(dict_list_type())(out);
      return std::move(out);
    }
    case Tag::Tuple: {
      const auto& elems = v.toListRef();
      py::tuple out(elems.size());
      for (size_t i = 0; i < elems.size(); ++i) out[i] = to_py(elems[i]);
      if (!v.tupleClass().empty())
        return py::reinterpret_borrow<py::object>(named_tuple_maker())(v.tupleClass(), out);
      return std::move(out);
    }
  }
  return py::none();
}

}  // namespace tl::python::jit
