#include "aten/jit/IValue.h"

#include <cmath>
#include <sstream>

#include "aten/core/Exception.h"

namespace tl::jit {

IValue::IValue() = default;
IValue::IValue(const IValue& other) = default;
IValue::IValue(IValue&& other) noexcept = default;
IValue& IValue::operator=(const IValue& other) = default;
IValue& IValue::operator=(IValue&& other) noexcept = default;
IValue::~IValue() = default;
IValue::IValue(Int i) : v_(i.v) {}
IValue::IValue(Tensor t) : v_(std::move(t)) {}
IValue::IValue(double d) : v_(d) {}
IValue::IValue(bool b) : v_(b) {}
IValue::IValue(std::string s) : v_(std::move(s)) {}
IValue::IValue(ScalarType t) : v_(t) {}
IValue::IValue(Device d) : v_(d) {}
IValue::IValue(Layout l) : v_(l) {}
IValue::IValue(MemoryFormat m) : v_(m) {}
IValue::IValue(Generator g) : v_(std::move(g)) {}
IValue::IValue(std::shared_ptr<Object> o) : v_(std::move(o)) {}

IValue::Tag IValue::tag() const { return static_cast<Tag>(v_.index()); }

IValue::IValue(const Scalar& s) {
  if (s.is_bool()) v_ = s.to<bool>();
  else if (s.is_floating_point()) v_ = s.to<double>();
  else if (s.is_uint64()) throw ValueError("jit: a Scalar above 2**63 - 1 cannot be boxed");
  else v_ = s.to<int64_t>();
}

IValue IValue::list(std::vector<IValue> elems) {
  IValue v;
  v.v_ = std::make_shared<ListBox>(ListBox{std::move(elems)});
  return v;
}

IValue IValue::dict(std::vector<IValue> alternating) {
  IValue v;
  v.v_ = std::make_shared<ListBox>(ListBox{std::move(alternating), true});
  return v;
}

bool IValue::isDict() const { return tag() == Tag::List && std::get<std::shared_ptr<ListBox>>(v_)->dict; }

IValue IValue::tuple(std::vector<IValue> elems) {
  IValue v;
  v.v_ = std::make_shared<TupleBox>(TupleBox{std::move(elems)});
  return v;
}

IValue IValue::named_tuple(std::string cls, std::vector<IValue> elems) {
  IValue v;
  v.v_ = std::make_shared<TupleBox>(TupleBox{std::move(elems), std::move(cls)});
  return v;
}

const std::string& IValue::tupleClass() const {
  static const std::string none;
  return tag() == Tag::Tuple ? std::get<std::shared_ptr<TupleBox>>(v_)->cls : none;
}

const char* IValue::tag_name() const {
  static const char* names[] = {"None", "Tensor", "float", "int", "bool", "str", "ScalarType", "Device",
                                "Layout", "MemoryFormat", "Generator", "list", "tuple", "Object"};
  return names[v_.index()];
}

void IValue::type_error(const char* expected) const {
  throw TypeError(str("expected a value of type ", expected, " but got ", tag_name()));
}

const Tensor& IValue::toTensor() const {
  if (!isTensor()) type_error("Tensor");
  return std::get<Tensor>(v_);
}

std::optional<Tensor> IValue::toOptionalTensor() const {
  if (isNone()) return std::nullopt;
  return toTensor();
}

Scalar IValue::toScalar() const {
  switch (tag()) {
    case Tag::Int: return Scalar(std::get<int64_t>(v_));
    case Tag::Double: return Scalar(std::get<double>(v_));
    case Tag::Bool: return Scalar(std::get<bool>(v_));
    default: type_error("Scalar");
  }
}

int64_t IValue::toInt() const {
  if (tag() == Tag::Int) return std::get<int64_t>(v_);
  if (tag() == Tag::Bool) return std::get<bool>(v_);
  type_error("int");
}

double IValue::toDouble() const {
  if (tag() == Tag::Double) return std::get<double>(v_);
  if (tag() == Tag::Int) return static_cast<double>(std::get<int64_t>(v_));
  type_error("float");
}

bool IValue::toBool() const {
  if (tag() != Tag::Bool) type_error("bool");
  return std::get<bool>(v_);
}

const std::string& IValue::toStringRef() const {
  if (tag() != Tag::String) type_error("str");
  return std::get<std::string>(v_);
}

ScalarType IValue::toScalarType() const {
  if (tag() != Tag::ScalarType) type_error("ScalarType");
  return std::get<ScalarType>(v_);
}

Device IValue::toDevice() const {
  if (tag() == Tag::String) return Device::parse(std::get<std::string>(v_));
  if (tag() != Tag::Device) type_error("Device");
  return std::get<Device>(v_);
}

Layout IValue::toLayout() const {
  if (tag() != Tag::Layout) type_error("Layout");
  return std::get<Layout>(v_);
}

MemoryFormat IValue::toMemoryFormat() const {
  if (tag() != Tag::MemoryFormat) type_error("MemoryFormat");
  return std::get<MemoryFormat>(v_);
}

Generator IValue::toGenerator() const {
  if (tag() != Tag::Generator) type_error("Generator");
  return std::get<Generator>(v_);
}

const std::vector<IValue>& IValue::toListRef() const {
  if (tag() == Tag::List) return std::get<std::shared_ptr<ListBox>>(v_)->elems;
  if (tag() == Tag::Tuple) return std::get<std::shared_ptr<TupleBox>>(v_)->elems;
  type_error("list");
}

std::vector<IValue>& IValue::toListMut() {
  if (tag() != Tag::List) type_error("list");
  return std::get<std::shared_ptr<ListBox>>(v_)->elems;
}

const std::shared_ptr<Object>& IValue::toObject() const {
  if (tag() != Tag::Object) type_error("Object");
  return std::get<std::shared_ptr<Object>>(v_);
}

std::vector<int64_t> IValue::toIntVector(size_t fixed) const {
  if (fixed && tag() == Tag::Int) return std::vector<int64_t>(fixed, std::get<int64_t>(v_));
  if (tag() != Tag::List && tag() != Tag::Tuple) type_error("int[]");
  std::vector<int64_t> out;
  for (const IValue& v : toListRef()) out.push_back(v.toInt());
  return out;
}

std::vector<double> IValue::toDoubleVector() const {
  if (tag() != Tag::List && tag() != Tag::Tuple) type_error("float[]");
  std::vector<double> out;
  for (const IValue& v : toListRef()) out.push_back(v.toDouble());
  return out;
}

std::vector<Tensor> IValue::toTensorVector() const {
  if (tag() != Tag::List && tag() != Tag::Tuple) type_error("Tensor[]");
  std::vector<Tensor> out;
  for (const IValue& v : toListRef()) out.push_back(v.toTensor());
  return out;
}

std::vector<std::optional<Tensor>> IValue::toOptionalTensorVector() const {
  if (tag() != Tag::List && tag() != Tag::Tuple) type_error("Tensor?[]");
  std::vector<std::optional<Tensor>> out;
  for (const IValue& v : toListRef()) out.push_back(v.toOptionalTensor());
  return out;
}

bool IValue::same(const IValue& other) const {
  if (tag() != other.tag()) return false;
  switch (tag()) {
    case Tag::None: return true;
    case Tag::Tensor: return toTensor().impl() == other.toTensor().impl();
    case Tag::Double: {
      double a = std::get<double>(v_), b = std::get<double>(other.v_);
      return a == b || (std::isnan(a) && std::isnan(b));
    }
    case Tag::Int: return toInt() == other.toInt();
    case Tag::Bool: return toBool() == other.toBool();
    case Tag::String: return toStringRef() == other.toStringRef();
    case Tag::ScalarType: return toScalarType() == other.toScalarType();
    case Tag::Device: return toDevice() == other.toDevice();
    case Tag::Layout: return toLayout() == other.toLayout();
    case Tag::MemoryFormat: return toMemoryFormat() == other.toMemoryFormat();
    case Tag::Generator: return toGenerator() == other.toGenerator();
    case Tag::Object: return toObject() == other.toObject();
    case Tag::List:
    case Tag::Tuple: {
      const auto& a = toListRef();
      const auto& b = other.toListRef();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!a[i].same(b[i])) return false;
      return true;
    }
  }
  return false;
}

namespace {
// PyTorch's numbers for dtypes (its ScalarType enum), which torch.jit prints for dtype constants.
int torch_dtype_code(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8: return 0;
    case ScalarType::Int8: return 1;
    case ScalarType::Int16: return 2;
    case ScalarType::Int32: return 3;
    case ScalarType::Int64: return 4;
    case ScalarType::Float16: return 5;
    case ScalarType::Float32: return 6;
    case ScalarType::Float64: return 7;
    case ScalarType::Bool: return 11;
    case ScalarType::BFloat16: return 15;
    case ScalarType::UInt16: return 27;
    case ScalarType::UInt32: return 28;
    case ScalarType::UInt64: return 29;
    default: return -1;
  }
}
}  // namespace

std::string IValue::repr() const {
  std::ostringstream os;
  switch (tag()) {
    case Tag::None: return "None";
    case Tag::Tensor: {
      // As torch.jit prints tensor constants: a 0-d CPU tensor's value in braces, else a placeholder.
      const Tensor& t = toTensor();
      if (t.dim() == 0 && t.is_cpu()) return "{" + IValue(tensor_item(t)).repr() + "}";
      return "<Tensor>";
    }
    case Tag::Double: {
      double d = std::get<double>(v_);
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      if (std::isnan(d)) return "nan";
      os.precision(17);
      os << d;
      std::string s = os.str();
      if (s.find_first_of(".e") == std::string::npos) s += ".";
      return s;
    }
    case Tag::Int: return std::to_string(toInt());
    case Tag::Bool: return toBool() ? "1" : "0";
    case Tag::String: return "\"" + toStringRef() + "\"";
    case Tag::ScalarType: return std::to_string(torch_dtype_code(toScalarType()));
    case Tag::Device: return "\"" + toDevice().str() + "\"";
    case Tag::Layout: return std::to_string(static_cast<int>(toLayout()));
    case Tag::MemoryFormat: return std::to_string(static_cast<int>(toMemoryFormat()));
    case Tag::Generator: return "<Generator>";
    case Tag::Object: return "<" + toObject()->type_name + ">";
    case Tag::List:
    case Tag::Tuple: {
      const auto& xs = toListRef();
      os << (isList() ? "[" : "(");
      for (size_t i = 0; i < xs.size(); ++i) os << (i ? ", " : "") << xs[i].repr();
      os << (isList() ? "]" : (xs.size() == 1 ? ",)" : ")"));
      return os.str();
    }
  }
  return "?";
}

}  // namespace tl::jit
