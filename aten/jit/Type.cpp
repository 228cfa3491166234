#include "aten/jit/Type.h"

#include <sstream>

#include "aten/jit/IValue.h"

namespace tl::jit {
namespace {

// torch.jit's names of tensor dtypes in complete types (`Float(2, 3, ...)`).
const char* dtype_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "Bool";
    case ScalarType::UInt8: return "Byte";
    case ScalarType::Int8: return "Char";
    case ScalarType::Int16: return "Short";
    case ScalarType::Int32: return "Int";
    case ScalarType::Int64: return "Long";
    case ScalarType::Float16: return "Half";
    case ScalarType::BFloat16: return "BFloat16";
    case ScalarType::Float32: return "Float";
    case ScalarType::Float64: return "Double";
    case ScalarType::UInt16: return "UInt16";
    case ScalarType::UInt32: return "UInt32";
    case ScalarType::UInt64: return "UInt64";
    default: return "Tensor";
  }
}

void join(std::ostringstream& os, const std::vector<int64_t>& xs) {
  for (size_t i = 0; i < xs.size(); ++i) os << (i ? ", " : "") << xs[i];
}

}  // namespace

std::string Type::str() const {
  switch (kind) {
    case Kind::Any:
      if (name == "Union") {
        std::string u = "Union(";
        for (size_t i = 0; i < elems.size(); ++i) u += (i ? ", " : "") + elems[i]->str();
        return u + ")";
      }
      return elems.size() == 2 ? "Dict(" + elems[0]->str() + ", " + elems[1]->str() + ")" : "Any";
    case Kind::Tensor: {
      if (!dtype) return "Tensor";
      std::ostringstream os;
      os << dtype_type_name(*dtype) << "(";
      if (sizes) {
        join(os, *sizes);
        if (strides && !sizes->empty()) {  // a 0-d type prints no strides, as torch.jit's
          os << ", strides=[";
          join(os, *strides);
          os << "]";
        }
      }
      bool any = sizes && !sizes->empty();
      if (requires_grad) {
        os << (any ? ", " : "") << "requires_grad=" << (*requires_grad ? 1 : 0);
        any = true;
      }
      if (device) os << (any ? ", " : "") << "device=" << device->str();
      os << ")";
      return os.str();
    }
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Bool: return "bool";
    case Kind::Str: return "str";
    case Kind::None: return "NoneType";
    case Kind::Number: return "Scalar";
    // dtype, layout and memory format values are ints in torch.jit's IR, and printed so
    case Kind::ScalarType: return "int";
    case Kind::Device: return "Device";
    case Kind::Layout: return "int";
    case Kind::MemoryFormat: return "int";
    case Kind::Generator: return "Generator";
    case Kind::List: return elems[0]->str() + "[]";
    case Kind::Optional: return elems[0]->str() + "?";
    case Kind::Tuple: {
      std::string s = fields.empty() ? "(" : "NamedTuple(";  // torch.jit prints named tuples so
      for (size_t i = 0; i < elems.size(); ++i)
        s += (i ? ", " : "") + (i < fields.size() ? fields[i] + " : " : std::string()) + elems[i]->str();
      return s + ")";
    }
    case Kind::Object: return name;
  }
  return "?";
}

TypePtr Type::get(Kind k) {
  static std::vector<TypePtr> cache = [] {
    std::vector<TypePtr> v;
    for (int i = 0; i <= static_cast<int>(Kind::Object); ++i) {
      auto t = std::make_shared<Type>();
      t->kind = static_cast<Kind>(i);
      v.push_back(t);
    }
    return v;
  }();
  return cache[static_cast<int>(k)];
}

TypePtr Type::list(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::List;
  t->elems = {std::move(elem)};
  return t;
}

TypePtr Type::optional(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Optional;
  t->elems = {std::move(elem)};
  return t;
}

TypePtr Type::tuple(std::vector<TypePtr> elems) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Tuple;
  t->elems = std::move(elems);
  return t;
}

TypePtr Type::named_tuple(std::string name, std::vector<std::string> fields, std::vector<TypePtr> elems) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Tuple;
  t->name = std::move(name);
  t->fields = std::move(fields);
  t->elems = std::move(elems);
  return t;
}

TypePtr Type::dict(TypePtr key, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Any;
  t->elems = {std::move(key), std::move(value)};
  return t;
}

TypePtr Type::union_of(std::vector<TypePtr> members) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Any;
  t->name = "Union";
  t->elems = std::move(members);
  return t;
}

TypePtr Type::object(std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Object;
  t->name = std::move(name);
  return t;
}

TypePtr Type::from_schema(const std::string& text) {
  if (!text.empty() && text.back() == '?') return optional(from_schema(text.substr(0, text.size() - 1)));
  if (!text.empty() && text.back() == ']') return list(from_schema(text.substr(0, text.find('['))));
  static const std::pair<const char*, Kind> names[] = {
      {"Tensor", Kind::Tensor}, {"int", Kind::Int}, {"float", Kind::Float}, {"bool", Kind::Bool},
      {"str", Kind::Str}, {"Scalar", Kind::Number}, {"ScalarType", Kind::ScalarType},
      {"Device", Kind::Device}, {"Layout", Kind::Layout}, {"MemoryFormat", Kind::MemoryFormat},
      {"Generator", Kind::Generator}};
  for (const auto& [n, k] : names)
    if (text == n) return get(k);
  return get(Kind::Any);
}

TypePtr Type::of(const IValue& v, bool with_tensor_details) {
  using Tag = IValue::Tag;
  switch (v.tag()) {
    case Tag::None: return get(Kind::None);
    case Tag::Tensor: {
      if (!with_tensor_details) return tensor();
      const Tensor& t = v.toTensor();
      auto ty = std::make_shared<Type>();
      ty->kind = Kind::Tensor;
      ty->dtype = t.dtype();
      ty->sizes = std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
      ty->strides = std::vector<int64_t>(t.strides().begin(), t.strides().end());
      ty->device = t.device();
      ty->requires_grad = t.requires_grad();
      return ty;
    }
    case Tag::Double: return get(Kind::Float);
    case Tag::Int: return get(Kind::Int);
    case Tag::Bool: return get(Kind::Bool);
    case Tag::String: return get(Kind::Str);
    case Tag::ScalarType: return get(Kind::ScalarType);
    case Tag::Device: return get(Kind::Device);
    case Tag::Layout: return get(Kind::Layout);
    case Tag::MemoryFormat: return get(Kind::MemoryFormat);
    case Tag::Generator: return get(Kind::Generator);
    case Tag::Object: return object(v.toObject()->type_name);
    case Tag::List: {
      const auto& xs = v.toListRef();
      return list(xs.empty() ? get(Kind::Any) : of(xs[0], false));
    }
    case Tag::Tuple: {
      std::vector<TypePtr> elems;
      for (const IValue& x : v.toListRef()) elems.push_back(of(x, with_tensor_details));
      return tuple(std::move(elems));
    }
  }
  return get(Kind::Any);
}

bool is_subtype(const Type& have, const Type& want) {
  using K = Type::Kind;
  if (have.kind == K::Any || want.kind == K::Any) return true;
  if (want.kind == K::Optional) return have.kind == K::None || is_subtype(have, *want.elems[0]);
  if (have.kind == K::Optional) return is_subtype(*have.elems[0], want);
  if (want.kind == K::Number)
    return have.kind == K::Int || have.kind == K::Float || have.kind == K::Bool || have.kind == K::Number;
  if (want.kind == K::Float) return have.kind == K::Float || have.kind == K::Int;
  if (want.kind == K::Device) return have.kind == K::Device || have.kind == K::Str;
  if (want.kind == K::List) {
    if (have.kind == K::Int && want.elems[0]->kind == K::Int) return true;  // int[2] from an int
    if (have.kind == K::List) return is_subtype(*have.elems[0], *want.elems[0]);
    if (have.kind == K::Tuple) {
      for (const auto& e : have.elems)
        if (!is_subtype(*e, *want.elems[0])) return false;
      return true;
    }
    return false;
  }
  return have.kind == want.kind;
}

}  // namespace tl::jit
