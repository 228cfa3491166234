// Parses Python arguments of the generated bindings against PyTorch-style signature strings.
//
//   static PythonArgParser parser({
//       "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None)",
//       "add(Tensor input, Scalar other, Scalar alpha=1)",
//   }, /*is_method=*/false);
//   ParsedArgs parsed;
//   PythonArgs r = parser.parse(self, args, nargs, kwnames, parsed);  // throws tl::TypeError on no match
//   switch (r.idx) { case 0: ... r.tensor(0), r.tensor(1), r.scalar(2) ... }
//
// Signatures are tried in order and the first match wins. Parameter index i counts the
// parameters of the matched signature; for is_method parsers the parameter named `self` of
// type Tensor (wherever it is) is removed: the bound tensor arrives as `self` instead.
//
// Types: Tensor, Tensor?, Tensor[], Scalar, Scalar?, int, int?, int[], int[N], int[]?, int[N]?,
// float, float?, float[], float[]?, bool, bool?, str, str?, ScalarType, ScalarType?, Device, Device?, object
// (any Python object; for handwritten bindings). Alias annotations such as Tensor(a!) are ignored.
// Defaults: None, True, False, integers, floats (inf, nan), [], [0, 1], a single int for int[N],
// quoted strings ('x' or "x"), dtype names (float32, long, ...) for ScalarType, device strings.
//
// Matching (like PyTorch): positional arguments, then keywords (unknown or duplicated keyword:
// no match). Tensor: tensors only. Scalar: bool/int/float, NumPy scalars, 0-d tensors that do
// not require grad. int: int (not bool), NumPy integers, __index__ objects, 0-d integer tensors.
// float: int/float/NumPy numbers, 0-d tensors. bool: bool, numpy.bool_. str: str.
// float[]: a tuple/list of what float takes. int[] / int[N]: a tuple/list/Size of ints; int[N] also a single int (repeated N times); when the
// list is the only positional parameter, varargs: x.view(2, 3) == x.view((2, 3)), zeros(2) ==
// zeros((2,)) (but, as in PyTorch, full(2, 1.0) and reshape(x, 6) are errors). ScalarType: a
// torchlite.dtype (or the Python types float/int/bool). Device: torchlite.device, str or int.
// For a few arithmetic functions (add, sub, mul, div, true_divide, floor_divide, copy_ and their
// _/_out forms) a Python number is accepted for a Tensor parameter, converted to a 0-d "wrapped
// number" tensor: torchlite.add(2, t), and `t * 2` is mul.Tensor as in PyTorch (MulBackward0).
#pragma once
#include <Python.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Device.h"
#include "aten/core/Generator.h"
#include "aten/core/Layout.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {

enum class ParameterType : uint8_t {
  Tensor, Scalar, Int64, Double, Bool, String, ScalarType, Device, TensorList, IntList, Object,
  BoolList,            // bool[N]: a tuple/list of N bools
  OptionalTensorList,  // Tensor?[]: a tuple/list of tensors and Nones
  Generator,           // torchlite.Generator
  Layout,              // torchlite.strided
  MemoryFormat,        // torchlite.contiguous_format, ...
  FloatList,           // float[]: a tuple/list of numbers
};

struct FunctionParameter {
  ParameterType type = ParameterType::Object;
  bool allow_none = false;       // `T?` or a None default: None is accepted
  bool has_default = false;      // may be omitted
  bool default_is_none = false;  // omitted means None
  bool keyword_only = false;
  int size = 0;                  // N of int[N]; 0 for int[]
  std::string name;
  std::string type_str;          // as written, for messages
  std::string default_str;       // as written
  PyObject* py_name = nullptr;   // interned name, for keyword lookup

  // Defaults (meaningful when has_default && !default_is_none).
  int64_t default_int = 0;
  double default_double = 0;
  bool default_bool = false;
  Scalar default_scalar;
  DimVector default_intlist;
  std::string default_string;
  ScalarType default_scalartype = ScalarType::Undefined;
  MemoryFormat default_memory_format = MemoryFormat::Contiguous;
  Device default_device;

  // Whether `obj` (not None) has this parameter's type. For int lists, *failed_idx receives the
  // index of the first element that is not an int.
  bool check(PyObject* obj, bool numbers_as_tensors, int* failed_idx) const;
  std::string type_name() const;  // "Tensor", "Number", "tuple of ints", "torchlite.dtype", ...
};

struct ParsedArgs {
  static constexpr int kMaxArgs = 32;
  PyObject* args[kMaxArgs];  // borrowed; nullptr = omitted (use the default)
  PyObject* self;            // borrowed: the tensor of a method call, nullptr for a function
  // x.view(2, 3): the int list parameter `varargs_index` is args[0..nvarargs) of the call.
  PyObject* const* varargs;
  Py_ssize_t nvarargs;
  int varargs_index;
};

struct MatchFailure;

struct FunctionSignature {
  FunctionSignature(const std::string& fmt, bool is_method, int index);

  // Fills dst and returns true when the call matches. `failure` (error path only) receives why not.
  bool match(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& dst,
             bool numbers_as_tensors, MatchFailure* failure) const;
  std::string to_string() const;  // "(Tensor input, Tensor other, *, Number alpha = 1)"

  std::string name;
  std::vector<FunctionParameter> params;
  int index = 0;
  int max_pos_args = 0;
  bool allow_varargs_intlist = false;
  bool allow_numbers_as_tensors = false;
};

// An integer list argument: a DimVector (6 ints inline, no heap allocation) that also converts
// to std::vector<int64_t>. Converts to IntArrayRef (it must outlive the use of the ArrayRef).
struct IntListArg : DimVector {
  using DimVector::DimVector;
  IntListArg() = default;
  operator std::vector<int64_t>() const { return vec(); }  // NOLINT
};

struct PythonArgs {
  PythonArgs(int idx, const FunctionSignature* sig, ParsedArgs* parsed)
      : idx(idx), signature(sig), parsed(parsed), args(parsed->args) {}

  int idx;  // which signature matched
  const FunctionSignature* signature;
  ParsedArgs* parsed;
  PyObject** args;

  // True when the argument is None, or omitted with a None default.
  bool is_none(int i) const {
    PyObject* o = args[i];
    return o ? o == Py_None : signature->params[i].default_is_none;
  }
  // Omitted (not passed at all)?
  bool has(int i) const { return args[i] != nullptr; }

  // Undefined Tensor for None/omitted. Python numbers (second-resort match) become wrapped-number tensors.
  Tensor tensor(int i) const {
    PyObject* o = args[i];
    if (o && is_tensor(o)) return unpack_tensor(o);
    return tensor_slow(i);
  }
  std::optional<Tensor> optional_tensor(int i) const {
    if (is_none(i)) return std::nullopt;
    return tensor(i);
  }
  std::vector<Tensor> tensorlist(int i) const;
  std::vector<std::optional<Tensor>> list_of_optional_tensors(int i) const;
  // bool[N]: the N bools of the list (the default when omitted).
  template <size_t N>
  std::array<bool, N> boollist(int i) const {
    std::array<bool, N> out{};
    PyObject* o = args[i];
    if (!o) {
      for (size_t k = 0; k < N && k < signature->params[i].default_intlist.size(); ++k)
        out[k] = signature->params[i].default_intlist[k] != 0;
      return out;
    }
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (size_t k = 0; k < N; ++k) out[k] = items[k] == Py_True || PyObject_IsTrue(items[k]) == 1;
    return out;
  }

  Scalar scalar(int i) const {
    PyObject* o = args[i];
    if (!o) return signature->params[i].default_scalar;
    if (PyFloat_CheckExact(o)) return Scalar(PyFloat_AS_DOUBLE(o));
    return scalar_slow(o, i);
  }
  std::optional<Scalar> scalar_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return scalar(i);
  }

  int64_t toInt64(int i) const {
    PyObject* o = args[i];
    if (!o) return signature->params[i].default_int;
    if (PyLong_CheckExact(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (!overflow) return v;
    }
    return int_slow(o, i);
  }
  std::optional<int64_t> toInt64_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return toInt64(i);
  }

  IntListArg intlist(int i) const;
  std::optional<IntListArg> intlist_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return intlist(i);
  }

  std::vector<double> doublelist(int i) const;
  std::optional<std::vector<double>> doublelist_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return doublelist(i);
  }

  double toDouble(int i) const {
    PyObject* o = args[i];
    if (!o) return signature->params[i].default_double;
    if (PyFloat_CheckExact(o)) return PyFloat_AS_DOUBLE(o);
    return double_slow(o, i);
  }
  std::optional<double> toDouble_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return toDouble(i);
  }

  bool toBool(int i) const {
    PyObject* o = args[i];
    if (!o) return signature->params[i].default_bool;
    if (o == Py_True) return true;
    if (o == Py_False) return false;
    return bool_slow(o, i);
  }
  std::optional<bool> toBool_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return toBool(i);
  }

  std::string string(int i) const { return std::string(string_view(i)); }
  std::optional<std::string> string_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return string(i);
  }
  // Points into the Python str (or the signature's default): valid while the call's arguments live.
  std::string_view string_view(int i) const;
  std::optional<std::string_view> string_view_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return string_view(i);
  }

  // None/omitted ScalarType (non-optional accessor): the default dtype.
  ScalarType scalartype(int i) const;
  std::optional<ScalarType> scalartype_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return scalartype(i);
  }

  // None/omitted Device (non-optional accessor): cpu.
  Device device(int i) const;
  std::optional<Device> device_optional(int i) const {
    if (is_none(i)) return std::nullopt;
    return device(i);
  }

  std::optional<tl::Generator> generator_optional(int i) const;
  std::optional<tl::Layout> layout_optional(int i) const;
  // Omitted: the default named in the signature (None for MemoryFormat? gives nullopt).
  std::optional<tl::MemoryFormat> memory_format_optional(int i) const;
  tl::MemoryFormat memory_format(int i) const { return *memory_format_optional(i); }

  // Borrowed; Py_None when omitted. For `object` parameters.
  PyObject* pyobject(int i) const { return args[i] ? args[i] : Py_None; }

 private:
  Tensor tensor_slow(int i) const;
  Tensor uint64_wrapped_number(const Scalar& s) const;
  Scalar scalar_slow(PyObject* o, int i) const;
  int64_t int_slow(PyObject* o, int i) const;
  double double_slow(PyObject* o, int i) const;
  bool bool_slow(PyObject* o, int i) const;
};

class PythonArgParser {
 public:
  // numbers_as_tensors: Python numbers may stand for Tensor arguments (the `numbers_as_tensors`
  // tag in native_functions.yaml, as PyTorch does for basic arithmetic: torchlite.add(2, t)).
  PythonArgParser(std::vector<std::string> signatures, bool is_method, bool numbers_as_tensors = false);
  PythonArgParser(const PythonArgParser&) = delete;
  PythonArgParser& operator=(const PythonArgParser&) = delete;

  // `self` is the bound tensor for methods (unused by matching), nullptr for functions.
  // Throws tl::TypeError listing the call's argument types and the valid signatures.
  PythonArgs parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& dst);

  const std::string& name() const { return name_; }
  const std::vector<FunctionSignature>& signatures() const { return signatures_; }

 private:
  [[noreturn]] void raise_error(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;

  std::vector<FunctionSignature> signatures_;
  std::string name_;
  bool is_method_;
};

}  // namespace tl::python
