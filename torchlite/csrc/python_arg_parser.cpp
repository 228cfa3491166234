#include "torchlite/csrc/python_arg_parser.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_set>

#include "aten/core/Exception.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/generator.h"
#include "torchlite/csrc/layout.h"
#include "torchlite/csrc/python_utils.h"

namespace tl::python {

// Why a signature did not match (computed only when building the error message).
struct MatchFailure {
  enum Kind { TooManyPositional, Missing, UnexpectedKeyword, MultipleValues, InvalidType, InvalidElement, Varargs };
  Kind kind = TooManyPositional;
  int param = -1;
  PyObject* obj = nullptr;
  bool is_kwd = false;
  Py_ssize_t position = 0;  // 0-based position of a positional argument
  int elem = -1;            // failing element of a list
  std::string keyword;
};

namespace {

// ---------------------------------------------------------------- string helpers

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

// Splits on commas outside brackets and quotes.
std::vector<std::string> split_params(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string cur;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      cur += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

// Compares two str objects for equality without allocating.
inline bool unicode_eq(PyObject* a, PyObject* b) {
  if (a == b) return true;
  if (!PyUnicode_Check(a) || !PyUnicode_Check(b)) return false;
  if (PyUnicode_CHECK_INTERNED(a) && PyUnicode_CHECK_INTERNED(b)) return false;
  Py_ssize_t n = PyUnicode_GET_LENGTH(a);
  if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b)) return false;
  return std::memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), static_cast<size_t>(n) * PyUnicode_KIND(a)) == 0;
}

inline PyObject* find_kwarg(PyObject* kwnames, PyObject* const* kwvalues, Py_ssize_t nkw, PyObject* name) {
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    if (PyTuple_GET_ITEM(kwnames, j) == name) return kwvalues[j];
  }
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    if (unicode_eq(PyTuple_GET_ITEM(kwnames, j), name)) return kwvalues[j];
  }
  return nullptr;
}

// NumPy's names that PyTorch's parser also accepts for some keywords (`sum(x, axis=0)`,
// `keepdims=True`, `add(x1=a, x2=b)`), tried only when the keyword itself is not given.
const std::vector<PyObject*>& numpy_aliases(const std::string& name) {
  static const auto make = [](std::initializer_list<const char*> names) {
    std::vector<PyObject*> out;
    for (const char* n : names) out.push_back(PyUnicode_InternFromString(n));  // kept for the process
    return out;
  };
  static const std::vector<PyObject*> none, dim = make({"axis"}), keepdim = make({"keepdims"}),
                                             input = make({"x", "a", "x1"}), other = make({"x2"});
  // Asked for each keyword parameter of each signature tried: the length rules most names out.
  switch (name.size()) {
    case 3: return name == "dim" ? dim : none;
    case 5: return name == "input" ? input : name == "other" ? other : none;
    case 7: return name == "keepdim" ? keepdim : none;
    default: return none;
  }
}

bool is_keyword_of(PyObject* kw, const FunctionParameter& p) {
  if (unicode_eq(kw, p.py_name)) return true;
  for (PyObject* alias : numpy_aliases(p.name)) {
    if (unicode_eq(kw, alias)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- argument checks

// int-like scalar for an `int` parameter.
inline bool is_int_arg(PyObject* obj) {
  if (PyLong_CheckExact(obj)) return true;
  if (PyBool_Check(obj)) return false;
  if (PyLong_Check(obj)) return true;
  if (is_tensor(obj)) {
    const Tensor& t = unpack_tensor(obj);
    return is_integral_type(t.dtype(), false) && t.dim() == 0 && !t.requires_grad();
  }
  if (PyFloat_Check(obj) || PyUnicode_Check(obj) || is_numpy_bool(obj)) return false;
  return PyIndex_Check(obj);
}

// Element of an int list.
inline bool is_int_elem(PyObject* obj) {
  if (PyLong_CheckExact(obj)) return true;
  if (PyBool_Check(obj)) return false;
  if (PyLong_Check(obj)) return true;
  if (is_tensor(obj)) {
    const Tensor& t = unpack_tensor(obj);
    return is_integral_type(t.dtype(), false) && t.numel() == 1;
  }
  if (PyFloat_Check(obj) || PyUnicode_Check(obj) || is_numpy_bool(obj)) return false;
  return PyIndex_Check(obj);
}

inline bool is_zero_dim_tensor_arg(PyObject* obj) {
  if (!is_tensor(obj)) return false;
  const Tensor& t = unpack_tensor(obj);
  return t.dim() == 0 && !t.requires_grad();
}

inline bool is_numpy_number(PyObject* obj) {
  return is_numpy_int(obj) || is_numpy_float(obj) || is_numpy_bool(obj) || is_numpy_complex(obj);
}

// A Python int (or __index__ object) outside int64: true, with the error to raise left to the caller.
bool int_overflows(PyObject* obj) {
  if (!PyLong_Check(obj)) return false;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(obj, &overflow);
  return overflow != 0;
}

// Element `pos` (0-based) of the int list argument `param` of `op`; PyTorch's TypeError when an int
// does not fit int64.
int64_t elem_to_int64(PyObject* obj, const std::string& op, const FunctionParameter& param, Py_ssize_t pos) {
  if (is_tensor(obj)) return tensor_item(unpack_tensor(obj)).to_long();
  if (int_overflows(obj)) {
    throw TypeError(str(op, "(): argument '", param.name, "' failed to unpack the object at pos ", pos + 1,
                        " with error \"Overflow when unpacking long long\""));
  }
  return unpack_int64(obj);
}

[[noreturn]] void none_error(const FunctionParameter& p) {
  throw TypeError(str("argument '", p.name, "' must be ", p.type_name(), ", not None"));
}

// ---------------------------------------------------------------- type names for messages

std::string arg_type_name(PyObject* obj, bool detailed) {
  if (detailed && (PyList_Check(obj) || PyTuple_Check(obj))) {
    bool list = PyList_Check(obj);
    std::string s = list ? "list of [" : "tuple of (";
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i) s += ", ";
      s += py_typename(items[i]);
    }
    return s + (list ? "]" : ")");
  }
  return py_typename(obj);
}

}  // namespace

// ---------------------------------------------------------------- FunctionParameter

bool FunctionParameter::check(PyObject* obj, bool numbers_as_tensors, int* failed_idx) const {
  switch (type) {
    case ParameterType::Tensor:
      return is_tensor(obj) || (numbers_as_tensors && (PyFloat_Check(obj) || PyLong_Check(obj) ||
                                                       PyComplex_Check(obj) || is_numpy_number(obj)));
    case ParameterType::Scalar:
      if (PyFloat_Check(obj) || PyLong_Check(obj) || PyComplex_Check(obj)) return true;
      return is_zero_dim_tensor_arg(obj) || is_numpy_number(obj);
    case ParameterType::Int64:
      return is_int_arg(obj);
    case ParameterType::Double:
      if (PyFloat_Check(obj) || PyLong_Check(obj)) return true;
      return is_zero_dim_tensor_arg(obj) || (is_numpy_number(obj) && !is_numpy_complex(obj));
    case ParameterType::Bool:
      return PyBool_Check(obj) || is_numpy_bool(obj);
    case ParameterType::String:
      return PyUnicode_Check(obj);
    case ParameterType::ScalarType:
      return is_dtype_like(obj);
    case ParameterType::Device:
      return is_device_like(obj);
    case ParameterType::TensorList: {
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
      PyObject** items = PySequence_Fast_ITEMS(obj);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!is_tensor(items[i])) {
          if (failed_idx) *failed_idx = static_cast<int>(i);
          return false;
        }
      }
      return true;
    }
    case ParameterType::IntList: {
      if (PyTuple_Check(obj) || PyList_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        PyObject** items = PySequence_Fast_ITEMS(obj);
        for (Py_ssize_t i = 0; i < n; ++i) {
          if (!is_int_elem(items[i])) {
            if (failed_idx) *failed_idx = static_cast<int>(i);
            return false;
          }
        }
        return true;
      }
      // A single int only for int[N] (repeated N times); int[] takes one through varargs only, so
      // full(2, 1.0) is an error as in PyTorch while zeros(2) and x.view(6) work.
      return size > 0 && is_int_arg(obj);
    }
    case ParameterType::FloatList: {
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
      PyObject** items = PySequence_Fast_ITEMS(obj);
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* item = items[i];
        if (!PyFloat_Check(item) && !PyLong_Check(item) && !is_zero_dim_tensor_arg(item) && !is_numpy_number(item)) {
          if (failed_idx) *failed_idx = static_cast<int>(i);
          return false;
        }
      }
      return true;
    }
    case ParameterType::BoolList: {
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
      PyObject** items = PySequence_Fast_ITEMS(obj);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!PyBool_Check(items[i]) && !is_numpy_bool(items[i])) {
          if (failed_idx) *failed_idx = static_cast<int>(i);
          return false;
        }
      }
      return size == 0 || n == size;
    }
    case ParameterType::OptionalTensorList: {
      if (!PyTuple_Check(obj) && !PyList_Check(obj)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
      PyObject** items = PySequence_Fast_ITEMS(obj);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (items[i] != Py_None && !is_tensor(items[i])) {
          if (failed_idx) *failed_idx = static_cast<int>(i);
          return false;
        }
      }
      return true;
    }
    case ParameterType::Generator:
      return is_generator(obj);
    case ParameterType::Layout:
      return is_layout(obj);
    case ParameterType::MemoryFormat:
      return is_memory_format(obj);
    case ParameterType::Object:
      return true;
  }
  return false;
}

std::string FunctionParameter::type_name() const {
  switch (type) {
    case ParameterType::Tensor: return "Tensor";
    case ParameterType::Scalar: return "Number";
    case ParameterType::Int64: return "int";
    case ParameterType::Double: return "float";
    case ParameterType::Bool: return "bool";
    case ParameterType::String: return "str";
    case ParameterType::ScalarType: return "torchlite.dtype";
    case ParameterType::Device: return "torchlite.device";
    case ParameterType::TensorList: return "tuple of Tensors";
    case ParameterType::IntList: return "tuple of ints";
    case ParameterType::BoolList: return "tuple of bools";
    case ParameterType::FloatList: return "tuple of floats";
    case ParameterType::Generator: return "torchlite.Generator";
    case ParameterType::Layout: return "torchlite.layout";
    case ParameterType::MemoryFormat: return "torchlite.memory_format";
    case ParameterType::OptionalTensorList: return "tuple of Tensors";
    case ParameterType::Object: return "object";
  }
  return "?";
}

// ---------------------------------------------------------------- FunctionSignature

namespace {

ScalarType parse_dtype_name(const std::string& raw) {
  std::string s = raw;
  for (const char* prefix : {"torchlite.", "torch."}) {
    if (s.rfind(prefix, 0) == 0) s = s.substr(std::strlen(prefix));
  }
  static const std::pair<const char*, ScalarType> aliases[] = {
      {"float", ScalarType::Float32}, {"double", ScalarType::Float64}, {"half", ScalarType::Float16},
      {"long", ScalarType::Int64},    {"int", ScalarType::Int32},      {"short", ScalarType::Int16},
      {"char", ScalarType::Int8},     {"byte", ScalarType::UInt8},
  };
  for (auto& [name, t] : aliases) {
    if (s == name) return t;
  }
  for (int i = 0; i < kNumScalarTypes; ++i) {
    if (s == scalar_type_name(static_cast<ScalarType>(i))) return static_cast<ScalarType>(i);
  }
  throw RuntimeError(str("PythonArgParser: unknown dtype default '", raw, "'"));
}

int64_t parse_int(const std::string& s, const std::string& sig) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  TL_CHECK(end && *end == '\0' && !s.empty(), "PythonArgParser: invalid int default '", s, "' in '", sig, "'");
  return v;
}

double parse_double(const std::string& s, const std::string& sig) {
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  if (s == "nan") return NAN;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  TL_CHECK(end && *end == '\0' && !s.empty(), "PythonArgParser: invalid float default '", s, "' in '", sig, "'");
  return v;
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

void parse_default(FunctionParameter& p, const std::string& raw, const std::string& sig) {
  std::string d = trim(raw);
  p.has_default = true;
  p.default_str = d;
  if (d == "None") {
    p.default_is_none = true;
    p.allow_none = true;
    return;
  }
  switch (p.type) {
    case ParameterType::Tensor:
    case ParameterType::Generator:
    case ParameterType::Layout:
    case ParameterType::Object:
      throw RuntimeError(str("PythonArgParser: a ", p.type_str, " parameter can only default to None, in '", sig, "'"));
    case ParameterType::Scalar:
      if (d == "True" || d == "False") {
        p.default_scalar = Scalar(d == "True");
      } else if (d.find_first_of(".eEn") != std::string::npos || d == "inf" || d == "-inf") {
        p.default_scalar = Scalar(parse_double(d, sig));
      } else {
        p.default_scalar = Scalar(parse_int(d, sig));
      }
      break;
    case ParameterType::Int64:
      p.default_int = parse_int(d, sig);
      break;
    case ParameterType::Double:
      p.default_double = parse_double(d, sig);
      break;
    case ParameterType::Bool:
      TL_CHECK(d == "True" || d == "False", "PythonArgParser: invalid bool default '", d, "' in '", sig, "'");
      p.default_bool = d == "True";
      break;
    case ParameterType::String:
      p.default_string = unquote(d);
      break;
    case ParameterType::ScalarType:
      p.default_scalartype = parse_dtype_name(unquote(d));
      break;
    case ParameterType::Device:
      p.default_device = Device::parse(unquote(d));
      break;
    case ParameterType::MemoryFormat: {
      std::string name = unquote(d);
      bool found = false;
      for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                             MemoryFormat::ChannelsLast3d}) {
        if (name == memory_format_name(f)) {
          p.default_memory_format = f;
          found = true;
        }
      }
      TL_CHECK(found, "PythonArgParser: invalid memory format default '", d, "' in '", sig, "'");
      break;
    }
    case ParameterType::BoolList: {
      TL_CHECK(d.size() >= 2 && d.front() == '[' && d.back() == ']', "PythonArgParser: invalid bool list default '",
               d, "' in '", sig, "'");
      std::string inner = trim(d.substr(1, d.size() - 2));
      if (!inner.empty()) {
        for (const std::string& item : split_params(inner)) p.default_intlist.push_back(trim(item) == "True");
      }
      break;
    }
    case ParameterType::FloatList:
      throw RuntimeError(str("PythonArgParser: a float[] parameter can only default to None, in '", sig, "'"));
    case ParameterType::OptionalTensorList:
    case ParameterType::TensorList:
      TL_CHECK(d == "[]", "PythonArgParser: a Tensor[] parameter can only default to [] or None, in '", sig, "'");
      break;
    case ParameterType::IntList: {
      if (!d.empty() && d.front() == '[') {
        TL_CHECK(d.back() == ']', "PythonArgParser: invalid int list default '", d, "' in '", sig, "'");
        std::string inner = trim(d.substr(1, d.size() - 2));
        if (!inner.empty()) {
          for (const std::string& item : split_params(inner)) p.default_intlist.push_back(parse_int(item, sig));
        }
      } else {
        int64_t v = parse_int(d, sig);
        p.default_intlist.assign(static_cast<size_t>(std::max(p.size, 1)), v);
      }
      break;
    }
  }
}

FunctionParameter parse_parameter(const std::string& token, bool keyword_only, const std::string& sig) {
  FunctionParameter p;
  p.keyword_only = keyword_only;
  std::string decl = token;
  std::string def;
  auto eq = token.find('=');
  if (eq != std::string::npos) {
    decl = trim(token.substr(0, eq));
    def = token.substr(eq + 1);
  }
  auto space = decl.find_last_of(' ');
  TL_CHECK(space != std::string::npos, "PythonArgParser: parameter '", token, "' needs a type and a name, in '", sig, "'");
  std::string type = trim(decl.substr(0, space));
  p.name = trim(decl.substr(space + 1));
  // Drop alias annotations: Tensor(a!) -> Tensor.
  std::string clean;
  int depth = 0;
  for (char c : type) {
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (depth == 0 && c != ' ') clean += c;
  }
  type = clean;
  p.type_str = type;
  if (!type.empty() && type.back() == '?') {
    p.allow_none = true;
    type.pop_back();
  }
  bool is_list = false;
  if (!type.empty() && type.back() == ']') {
    auto lb = type.find('[');
    TL_CHECK(lb != std::string::npos, "PythonArgParser: bad type '", p.type_str, "' in '", sig, "'");
    std::string n = type.substr(lb + 1, type.size() - lb - 2);
    p.size = n.empty() ? 0 : static_cast<int>(parse_int(n, sig));
    type = type.substr(0, lb);
    is_list = true;
  }
  if (is_list) {
    if (type == "int" || type == "SymInt") p.type = ParameterType::IntList;
    else if (type == "Tensor") p.type = ParameterType::TensorList;
    else if (type == "Tensor?") p.type = ParameterType::OptionalTensorList;
    else if (type == "bool") p.type = ParameterType::BoolList;
    else if (type == "float" || type == "double") p.type = ParameterType::FloatList;
    else throw RuntimeError(str("PythonArgParser: unsupported list type '", p.type_str, "' in '", sig, "'"));
  } else if (type == "Tensor") {
    p.type = ParameterType::Tensor;
  } else if (type == "Scalar" || type == "Number") {
    p.type = ParameterType::Scalar;
  } else if (type == "int" || type == "SymInt" || type == "int64_t") {
    p.type = ParameterType::Int64;
  } else if (type == "float" || type == "double") {
    p.type = ParameterType::Double;
  } else if (type == "bool") {
    p.type = ParameterType::Bool;
  } else if (type == "str" || type == "c10::string_view") {
    p.type = ParameterType::String;
  } else if (type == "ScalarType" || type == "dtype") {
    p.type = ParameterType::ScalarType;
  } else if (type == "Generator") {
    p.type = ParameterType::Generator;
  } else if (type == "Layout") {
    p.type = ParameterType::Layout;
  } else if (type == "MemoryFormat") {
    p.type = ParameterType::MemoryFormat;
  } else if (type == "Device") {
    p.type = ParameterType::Device;
  } else if (type == "object" || type == "PyObject*") {
    p.type = ParameterType::Object;
    p.allow_none = true;  // any object, None included
  } else {
    throw RuntimeError(str("PythonArgParser: unsupported type '", p.type_str, "' in '", sig, "'"));
  }
  if (!def.empty() || eq != std::string::npos) parse_default(p, def, sig);
  p.py_name = PyUnicode_InternFromString(p.name.c_str());  // kept for the parser's lifetime (static)
  if (!p.py_name) throw python_error();
  return p;
}

}  // namespace

FunctionSignature::FunctionSignature(const std::string& fmt, bool is_method, int index) : index(index) {
  auto open = fmt.find('(');
  TL_CHECK(open != std::string::npos, "PythonArgParser: signature '", fmt, "' has no '('");
  name = trim(fmt.substr(0, open));
  // Find the matching ')' (defaults may contain brackets; annotations contain parentheses).
  int depth = 0;
  size_t close = std::string::npos;
  char quote = 0;
  for (size_t i = open; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(') ++depth;
    else if (c == ')' && --depth == 0) {
      close = i;
      break;
    }
  }
  TL_CHECK(close != std::string::npos, "PythonArgParser: signature '", fmt, "' has no matching ')'");
  bool keyword_only = false;
  for (const std::string& token : split_params(fmt.substr(open + 1, close - open - 1))) {
    if (token.empty()) continue;
    if (token == "*") {
      keyword_only = true;
      continue;
    }
    params.push_back(parse_parameter(token, keyword_only, fmt));
  }
  if (is_method) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name == "self" && params[i].type == ParameterType::Tensor && !params[i].allow_none) {
        params.erase(params.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  TL_CHECK(params.size() <= static_cast<size_t>(ParsedArgs::kMaxArgs), "PythonArgParser: too many parameters in '",
           fmt, "'");
  for (const auto& p : params) {
    if (!p.keyword_only) ++max_pos_args;
  }
  allow_varargs_intlist = max_pos_args == 1 && !params.empty() && params[0].type == ParameterType::IntList &&
                          !params[0].keyword_only;
}

bool FunctionSignature::match(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& dst,
                              bool numbers_as_tensors, MatchFailure* failure) const {
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* const* kwvalues = args + nargs;
  dst.varargs_index = -1;
  if (nargs > max_pos_args && !allow_varargs_intlist) {
    if (failure) failure->kind = MatchFailure::TooManyPositional;
    return false;
  }
  Py_ssize_t arg_pos = 0;
  Py_ssize_t kw_used = 0;
  const int n = static_cast<int>(params.size());
  for (int i = 0; i < n; ++i) {
    const FunctionParameter& p = params[i];
    PyObject* obj = nullptr;
    bool from_pos = false;
    if (arg_pos < nargs && !p.keyword_only) {
      obj = args[arg_pos];
      from_pos = true;
      if (allow_varargs_intlist && arg_pos == 0 && is_int_elem(obj)) {
        // x.view(2, 3): all positional arguments form the list.
        for (Py_ssize_t j = 0; j < nargs; ++j) {
          if (!is_int_elem(args[j])) {
            if (failure) {
              failure->kind = MatchFailure::Varargs;
              failure->param = i;
              failure->obj = args[j];
              failure->elem = static_cast<int>(j);
            }
            return false;
          }
        }
        dst.args[i] = obj;
        dst.varargs = args;
        dst.nvarargs = nargs;
        dst.varargs_index = i;
        arg_pos = nargs;
        continue;
      }
    } else if (nkw) {
      obj = find_kwarg(kwnames, kwvalues, nkw, p.py_name);
      for (PyObject* alias : numpy_aliases(p.name)) {
        if (obj) break;
        obj = find_kwarg(kwnames, kwvalues, nkw, alias);
      }
      if (obj) ++kw_used;
    }
    if (!obj) {
      if (!p.has_default) {
        if (failure) {
          failure->kind = MatchFailure::Missing;
          failure->param = i;
        }
        return false;
      }
      dst.args[i] = nullptr;
      continue;
    }
    int failed_idx = -1;
    if (p.type == ParameterType::Tensor && is_tensor(obj)) {
      // the common case, without the call
    } else if (obj == Py_None ? !p.allow_none : !p.check(obj, numbers_as_tensors, &failed_idx)) {
      if (failure) {
        failure->kind = failed_idx >= 0 ? MatchFailure::InvalidElement : MatchFailure::InvalidType;
        failure->param = i;
        failure->obj = obj;
        failure->is_kwd = !from_pos;
        failure->position = arg_pos;
        failure->elem = failed_idx;
      }
      return false;
    }
    dst.args[i] = obj;
    if (from_pos) ++arg_pos;
  }
  if (arg_pos < nargs) {
    if (failure) failure->kind = MatchFailure::TooManyPositional;
    return false;
  }
  if (kw_used != nkw) {
    if (failure) {
      // Name the first keyword that no parameter took.
      for (Py_ssize_t j = 0; j < nkw; ++j) {
        PyObject* kw = PyTuple_GET_ITEM(kwnames, j);
        int owner = -1;
        for (int i = 0; i < n; ++i) {
          if (is_keyword_of(kw, params[i])) owner = i;
        }
        bool taken_by_keyword = false;
        if (owner >= 0) {
          // The parameter took a keyword only if it was not filled positionally.
          int pos_index = 0;
          for (int i = 0; i < owner; ++i) {
            if (!params[i].keyword_only) ++pos_index;
          }
          taken_by_keyword = params[owner].keyword_only || pos_index >= nargs;
        }
        if (!taken_by_keyword) {
          const char* s = PyUnicode_AsUTF8(kw);
          failure->keyword = s ? s : "?";
          failure->kind = owner >= 0 ? MatchFailure::MultipleValues : MatchFailure::UnexpectedKeyword;
          break;
        }
      }
    }
    return false;
  }
  return true;
}

std::string FunctionSignature::to_string() const {
  std::ostringstream os;
  os << "(";
  bool kw_started = false;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    if (i) os << ", ";
    if (p.keyword_only && !kw_started) {
      os << "*, ";
      kw_started = true;
    }
    os << p.type_name() << " " << p.name;
    if (p.has_default) os << " = " << p.default_str;
  }
  os << ")";
  return os.str();
}

// ---------------------------------------------------------------- PythonArgParser

PythonArgParser::PythonArgParser(std::vector<std::string> signatures, bool is_method, bool numbers_as_tensors)
    : is_method_(is_method) {
  TL_CHECK(!signatures.empty(), "PythonArgParser: no signatures");
  signatures_.reserve(signatures.size());
  for (size_t i = 0; i < signatures.size(); ++i) {
    signatures_.emplace_back(signatures[i], is_method, static_cast<int>(i));
    signatures_.back().allow_numbers_as_tensors = numbers_as_tensors;
  }
  name_ = signatures_[0].name;
}

PythonArgs PythonArgParser::parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                                  ParsedArgs& dst) {
  dst.self = self;
  // As in PyTorch, a number binds to a Tensor parameter of a numbers-as-tensors signature in
  // signature order, so `x * 2` is mul.Tensor with a wrapped number (MulBackward0), not mul.Scalar.
  for (const FunctionSignature& sig : signatures_) {
    if (sig.match(args, nargs, kwnames, dst, sig.allow_numbers_as_tensors, nullptr)) {
      return PythonArgs(sig.index, &sig, &dst);
    }
  }
  raise_error(args, nargs, kwnames);
}

void PythonArgParser::raise_error(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const {
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  auto kw_name = [&](Py_ssize_t j) -> std::string {
    const char* s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j));
    if (!s) PyErr_Clear();
    return s ? s : "?";
  };
  ParsedArgs scratch;
  // As PyTorch does: when only one signature takes this many arguments, say precisely what is
  // wrong with the call against it; otherwise list all signatures.
  const FunctionSignature* only = signatures_.size() == 1 ? &signatures_[0] : nullptr;
  if (!only) {
    int plausible = 0;
    for (const FunctionSignature& sig : signatures_) {
      size_t given = static_cast<size_t>(nargs + nkw);
      size_t required = 0;
      for (const auto& p : sig.params) required += p.has_default ? 0 : 1;
      // A sole int list takes any number of positional ints (x.view(2, 'x') is view(size)'s error, as
      // PyTorch's, with view(dtype) beside it).
      if (given >= required && (given <= sig.params.size() || sig.allow_varargs_intlist)) {
        ++plausible;
        only = &sig;
      }
    }
    if (plausible != 1) only = nullptr;
  }
  if (only) {
    const FunctionSignature& sig = *only;
    MatchFailure f;
    sig.match(args, nargs, kwnames, scratch, sig.allow_numbers_as_tensors, &f);
    std::ostringstream os;
    switch (f.kind) {
      case MatchFailure::TooManyPositional:
        os << name_ << "() takes " << sig.max_pos_args << " positional argument" << (sig.max_pos_args == 1 ? "" : "s")
           << " but " << nargs << (nargs == 1 ? " was" : " were") << " given";
        break;
      case MatchFailure::Missing: {
        // Every required parameter not given, as PyTorch lists them.
        std::vector<std::string> missing;
        bool keyword = false;
        Py_ssize_t pos = 0;
        for (const auto& p : sig.params) {
          bool given = false;
          if (!p.keyword_only && pos < nargs) {
            given = true;
            ++pos;
          } else {
            for (Py_ssize_t j = 0; j < nkw; ++j) {
              if (unicode_eq(PyTuple_GET_ITEM(kwnames, j), p.py_name)) given = true;
            }
          }
          if (!given && !p.has_default) {
            missing.push_back("\"" + p.name + "\"");
            keyword = keyword || p.keyword_only;
          }
        }
        os << name_ << "() missing " << missing.size() << " required " << (keyword ? "keyword " : "positional ")
           << "arguments: ";
        for (size_t i = 0; i < missing.size(); ++i) os << (i ? ", " : "") << missing[i];
        break;
      }
      case MatchFailure::UnexpectedKeyword:
        os << name_ << "() got an unexpected keyword argument '" << f.keyword << "'";
        break;
      case MatchFailure::MultipleValues:
        os << name_ << "() got multiple values for argument '" << f.keyword << "'";
        break;
      case MatchFailure::InvalidType: {
        const auto& p = sig.params[f.param];
        os << name_ << "(): argument '" << p.name << "'";
        if (!f.is_kwd) os << " (position " << f.position + 1 << ")";
        os << " must be " << p.type_name() << ", not " << py_typename(f.obj);
        break;
      }
      case MatchFailure::InvalidElement: {
        const auto& p = sig.params[f.param];
        PyObject* item = PySequence_Fast_ITEMS(f.obj)[f.elem];
        os << name_ << "(): argument '" << p.name << "'";
        if (!f.is_kwd) os << " (position " << f.position + 1 << ")";
        os << " must be " << p.type_name() << ", but found element of type " << py_typename(item) << " at pos "
           << f.elem;
        break;
      }
      case MatchFailure::Varargs: {
        const auto& p = sig.params[f.param];
        os << name_ << "(): argument '" << p.name << "' failed to unpack the object at pos " << f.elem + 1
           << " with error \"type must be tuple of ints,but got " << py_typename(f.obj) << "\"";
        break;
      }
    }
    os << "\nValid signatures for " << name_ << "():\n";
    for (const FunctionSignature& s : signatures_) os << " * " << s.to_string() << "\n";
    throw ArgumentError(os.str());
  }

  std::ostringstream os;
  os << name_ << "() received an invalid combination of arguments - got (";
  for (Py_ssize_t i = 0; i < nargs; ++i) os << (i ? ", " : "") << arg_type_name(args[i], false);
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    os << (nargs + j ? ", " : "") << kw_name(j) << "=" << arg_type_name(args[nargs + j], false);
  }
  os << "), but expected one of:\n";
  for (const FunctionSignature& sig : signatures_) {
    os << " * " << sig.to_string() << "\n";
    // When the argument count fits, show which arguments have the wrong type.
    if (static_cast<size_t>(nargs + nkw) != sig.params.size() || nargs > sig.max_pos_args) continue;
    std::vector<int> kw_param(static_cast<size_t>(nkw), -1);
    bool names_ok = true;
    for (Py_ssize_t j = 0; j < nkw; ++j) {
      for (size_t i = 0; i < sig.params.size(); ++i) {
        if (unicode_eq(PyTuple_GET_ITEM(kwnames, j), sig.params[i].py_name)) kw_param[j] = static_cast<int>(i);
      }
      names_ok = names_ok && kw_param[j] >= 0;
    }
    if (!names_ok) continue;
    auto describe = [&](PyObject* obj, const FunctionParameter& p) {
      int failed = -1;
      bool ok = obj == Py_None ? p.allow_none : p.check(obj, sig.allow_numbers_as_tensors, &failed);
      std::string t = arg_type_name(obj, true);
      return ok ? t : "!" + t + "!";
    };
    os << "      didn't match because some of the arguments have invalid types: (";
    std::vector<const FunctionParameter*> positional;
    for (const auto& p : sig.params) {
      if (!p.keyword_only) positional.push_back(&p);
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) os << (i ? ", " : "") << describe(args[i], *positional[i]);
    for (Py_ssize_t j = 0; j < nkw; ++j) {
      os << (nargs + j ? ", " : "") << kw_name(j) << "=" << describe(args[nargs + j], sig.params[kw_param[j]]);
    }
    os << ")\n";
  }
  throw ArgumentError(os.str());
}

// ---------------------------------------------------------------- PythonArgs conversions

// A Python number as a Scalar. Ints beyond int64 follow PyTorch where it gives values: up to
// 2**64 - 1 they are taken as floating-point numbers (PyTorch keeps them as uint64, so integer
// tensors wrap around; torchlite has no uint64 and computes in floating point instead). Larger
// ones, or below -2**63, raise a RuntimeError naming the op with Python's reason ("int too big to
// convert"; PyTorch raises OverflowError, which torchlite's error policy maps to RuntimeError).
namespace {
Scalar number_to_scalar(PyObject* o, const std::string& op) {
  // As PyTorch: an int in [2**63, 2**64) is an unsigned 64-bit Scalar; beyond that Python's
  // OverflowError ("int too big to convert", "can't convert negative int to unsigned"), here
  // naming the op.
  if (!PyBool_Check(o) && int_overflows(o)) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return Scalar::from_uint64(u);
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyRef reason(value ? PyObject_Str(value) : nullptr);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    const char* text = reason ? PyUnicode_AsUTF8(reason.get()) : nullptr;
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%s(): %s", op.c_str(), text ? text : "int too big to convert");
    throw python_error();
  }
  return unpack_scalar_number(o);
}
}  // namespace

Tensor PythonArgs::tensor_slow(int i) const {
  PyObject* o = args[i];
  if (!o || o == Py_None) return Tensor();
  // A Python number accepted for a Tensor parameter (numbers-as-tensors ops).
  Scalar s = number_to_scalar(o, signature->name);
  if (s.is_uint64()) return uint64_wrapped_number(s);
  return scalar_to_tensor(s, s.type(), Device(DeviceType::CPU), /*wrapped_number=*/true);
}

Tensor PythonArgs::uint64_wrapped_number(const Scalar& s) const {
  // PyTorch wraps an int above INT64_MAX as a uint64 0-d tensor, which promotes like any wrapped
  // int: an integer result takes its low bits (int64 + 2**63 wraps), a floating one its value, and
  // a bool tensor cannot be promoted with uint64. There is no uint64 dtype here, so the other
  // tensor arguments pick the equivalent wrapped number: int64 bits, or the float64 value.
  bool floating = false, integral = false, any = false;
  for (size_t k = 0; k <= signature->params.size(); ++k) {
    PyObject* o = k < signature->params.size() ? args[k] : parsed->self;
    if (!o || !is_tensor(o) || (k < signature->params.size() && signature->params[k].type != ParameterType::Tensor)) {
      continue;
    }
    const ScalarType t = unpack_tensor(o).dtype();
    any = true;
    floating = floating || !is_integral_type(t, /*include_bool=*/true);
    integral = integral || is_integral_type(t, /*include_bool=*/false);
  }
  TL_CHECK(floating || integral || !any, signature->name,
           "(): Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and UInt64");
  if (floating) return scalar_to_tensor(Scalar(s.to_double()), ScalarType::Float64, Device(DeviceType::CPU), true);
  return scalar_to_tensor(Scalar(s.to_long()), ScalarType::Int64, Device(DeviceType::CPU), true);
}

std::optional<tl::Generator> PythonArgs::generator_optional(int i) const {
  if (is_none(i)) return std::nullopt;
  return unpack_generator(args[i]);
}

std::optional<tl::Layout> PythonArgs::layout_optional(int i) const {
  if (is_none(i)) return std::nullopt;
  return unpack_layout(args[i]);
}

std::optional<tl::MemoryFormat> PythonArgs::memory_format_optional(int i) const {
  if (is_none(i)) return std::nullopt;
  if (!args[i]) return signature->params[i].default_memory_format;
  return unpack_memory_format(args[i]);
}

std::vector<std::optional<Tensor>> PythonArgs::list_of_optional_tensors(int i) const {
  PyObject* o = args[i];
  std::vector<std::optional<Tensor>> out;
  if (!o || o == Py_None) return out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    out.push_back(items[k] == Py_None ? std::nullopt : std::optional<Tensor>(unpack_tensor(items[k])));
  }
  return out;
}

std::vector<Tensor> PythonArgs::tensorlist(int i) const {
  PyObject* o = args[i];
  std::vector<Tensor> out;
  if (!o || o == Py_None) return out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) out.push_back(unpack_tensor(items[k]));
  return out;
}

Scalar PythonArgs::scalar_slow(PyObject* o, int i) const {
  if (o == Py_None) none_error(signature->params[i]);
  if (is_tensor(o)) return tensor_item(unpack_tensor(o));
  return number_to_scalar(o, signature->name);
}

int64_t PythonArgs::int_slow(PyObject* o, int i) const {
  if (o == Py_None) none_error(signature->params[i]);
  if (is_tensor(o)) return tensor_item(unpack_tensor(o)).to_long();
  // PyTorch's ValueError, naming the op and the argument.
  TL_CHECK_VALUE(!int_overflows(o), signature->name, "(): argument '", signature->params[i].name,
                 "' is out of the range of int64 (Overflow when unpacking long long)");
  return unpack_int64(o);
}

double PythonArgs::double_slow(PyObject* o, int i) const {
  if (o == Py_None) none_error(signature->params[i]);
  if (is_tensor(o)) return tensor_item(unpack_tensor(o)).to_double();
  if (PyLong_Check(o)) {
    double v = PyLong_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw python_error();
    return v;
  }
  return unpack_double(o);
}

std::vector<double> PythonArgs::doublelist(int i) const {
  PyObject* o = args[i];
  if (o == nullptr || o == Py_None) none_error(signature->params[i]);  // only None defaults exist
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  std::vector<double> out(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* item = items[k];
    out[static_cast<size_t>(k)] = PyFloat_CheckExact(item) ? PyFloat_AS_DOUBLE(item) : double_slow(item, i);
  }
  return out;
}

bool PythonArgs::bool_slow(PyObject* o, int i) const {
  if (o == Py_None) none_error(signature->params[i]);
  int t = PyObject_IsTrue(o);
  if (t < 0) throw python_error();
  return t != 0;
}

IntListArg PythonArgs::intlist(int i) const {
  const FunctionParameter& p = signature->params[i];
  IntListArg out;
  if (parsed->varargs_index == i) {
    out.resize(static_cast<size_t>(parsed->nvarargs));
    for (Py_ssize_t k = 0; k < parsed->nvarargs; ++k)
      out[static_cast<size_t>(k)] = elem_to_int64(parsed->varargs[k], signature->name, p, k);
    return out;
  }
  PyObject* o = args[i];
  if (!o) {
    out.assign(p.default_intlist.begin(), p.default_intlist.end());
    return out;
  }
  if (o == Py_None) none_error(p);
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    out.resize(static_cast<size_t>(n));
    for (Py_ssize_t k = 0; k < n; ++k) {
      PyObject* item = items[k];
      if (PyLong_CheckExact(item)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (!overflow) {
          out[static_cast<size_t>(k)] = v;
          continue;
        }
      }
      out[static_cast<size_t>(k)] = elem_to_int64(item, signature->name, p, k);
    }
    return out;
  }
  // A single int: [v], or repeated N times for int[N]. Beyond int64: ValueError, as for an int argument.
  TL_CHECK_VALUE(!int_overflows(o), signature->name, "(): argument '", p.name,
                 "' is out of the range of int64 (Overflow when unpacking long long)");
  int64_t v = elem_to_int64(o, signature->name, p, 0);
  out.assign(static_cast<size_t>(std::max(p.size, 1)), v);
  return out;
}

std::string_view PythonArgs::string_view(int i) const {
  PyObject* o = args[i];
  if (!o) return signature->params[i].default_string;
  if (o == Py_None) none_error(signature->params[i]);
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(o, &size);
  if (!data) throw python_error();
  return std::string_view(data, static_cast<size_t>(size));
}

ScalarType PythonArgs::scalartype(int i) const {
  PyObject* o = args[i];
  if (!o) {
    ScalarType d = signature->params[i].default_scalartype;
    return d == ScalarType::Undefined ? default_dtype() : d;
  }
  if (o == Py_None) return default_dtype();
  if (is_dtype(o)) return reinterpret_cast<DTypeObject*>(o)->scalar_type;
  return dtype_from_dtype_like(o);
}

Device PythonArgs::device(int i) const {
  PyObject* o = args[i];
  Device d;
  if (!o || o == Py_None) {
    d = (o || signature->params[i].default_is_none) ? Device(DeviceType::CPU) : signature->params[i].default_device;
  } else {
    d = device_from_object(o);
  }
  // CPU tensors have no device index (device("cpu:0") makes tensors on device("cpu")), as in PyTorch.
  if (d.is_cpu()) d.index = -1;
  return d;
}

}  // namespace tl::python
