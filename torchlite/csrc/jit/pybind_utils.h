// pybind11 glue of the JIT: the type caster that moves a tl::Tensor across as the project's own
// Python tensor object (torchlite/csrc/tensor.h), and conversions between Python objects and IValues.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "aten/jit/IValue.h"
#include "torchlite/csrc/tensor.h"

namespace pybind11::detail {

template <>
struct type_caster<tl::Tensor> {
  PYBIND11_TYPE_CASTER(tl::Tensor, const_name("torchlite.Tensor"));
  bool load(handle src, bool) {
    if (!tl::python::is_tensor(src.ptr())) return false;
    value = tl::python::unpack_tensor(src.ptr());
    return true;
  }
  static handle cast(const tl::Tensor& t, return_value_policy, handle) {
    PyObject* obj = tl::python::wrap(t);
    if (!obj) throw error_already_set();
    return obj;
  }
};

}  // namespace pybind11::detail

namespace tl::python::jit {

// A Python value as an IValue: None, tensors, bool/int/float, str, dtype, device, layout,
// memory_format, Generator, lists and tuples of these, and _jit.Object. TypeError otherwise.
tl::jit::IValue to_ivalue(pybind11::handle obj);
// An IValue as a Python object (lists as lists, tuples as tuples).
pybind11::object to_py(const tl::jit::IValue& v);

}  // namespace tl::python::jit
