// prim::isinstance: a value's run-time type test (script's isinstance on a Union or Any value).
#include <string>

#include "aten/core/Exception.h"
#include "aten/jit/IR.h"
#include "aten/jit/ScriptPrims.h"

namespace tl::jit {
namespace {

using Tag = IValue::Tag;

std::string_view trim(std::string_view t) {
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  return t;
}

// The comma-separated parts of "A, B, C" at nesting depth 0 (the members of a Union, a tuple's elements).
std::vector<std::string_view> split_top(std::string_view t) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(t.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(t.substr(start)).empty()) parts.push_back(trim(t.substr(start)));
  return parts;
}

bool starts_with(std::string_view t, std::string_view p) { return t.substr(0, p.size()) == p; }

}  // namespace

bool value_has_type(const IValue& v, std::string_view t) {
  t = trim(t);
  if (t == "Any") return true;
  if (!t.empty() && t.back() == '?') return v.isNone() || value_has_type(v, t.substr(0, t.size() - 1));
  if (t.size() > 2 && t.substr(t.size() - 2) == "[]") {
    if (!v.isList() || v.isDict()) return false;
    for (const IValue& e : v.toListRef())
      if (!value_has_type(e, t.substr(0, t.size() - 2))) return false;
    return true;
  }
  if (starts_with(t, "Union(") && t.back() == ')') {
    for (std::string_view m : split_top(t.substr(6, t.size() - 7)))
      if (value_has_type(v, m)) return true;
    return false;
  }
  if (starts_with(t, "Dict(") && t.back() == ')') {  // a dict runs as a list of alternating keys and values,
    // marked as a dict where it is made (prim::DictConstruct, dict.copy(), a Python dict argument, a loaded attribute)
    auto kv = split_top(t.substr(5, t.size() - 6));
    if (!v.isDict() || kv.size() != 2 || v.toListRef().size() % 2) return false;
    const auto& xs = v.toListRef();
    for (size_t i = 0; i < xs.size(); ++i)
      if (!value_has_type(xs[i], kv[i % 2])) return false;
    return true;
  }
  if (starts_with(t, "(") && t.back() == ')') {
    auto elems = split_top(t.substr(1, t.size() - 2));
    if (!v.isTuple() || v.toListRef().size() != elems.size()) return false;
    for (size_t i = 0; i < elems.size(); ++i)
      if (!value_has_type(v.toListRef()[i], elems[i])) return false;
    return true;
  }
  switch (v.tag()) {
    case Tag::None: return t == "NoneType";
    case Tag::Tensor: return t == "Tensor";
    case Tag::Double: return t == "float";
    case Tag::Int: return t == "int";
    case Tag::Bool: return t == "bool";
    case Tag::String: return t == "str";
    case Tag::Device: return t == "Device";
    case Tag::Object: return v.toObject()->type_name == t;
    case Tag::Tuple: return !v.tupleClass().empty() && v.tupleClass() == t;  // a named tuple: by its class
    default: return false;
  }
}

std::vector<IValue> isinstance_op(Stack& s, const Node& n) {
  TL_CHECK(n.hasAttribute("types") && n.attr("types").isList(),
           "jit: prim::isinstance needs a list attribute 'types'");
  for (const IValue& t : n.attr("types").toListRef()) {
    TL_CHECK(t.tag() == Tag::String, "jit: prim::isinstance: types are written as strings");
    if (value_has_type(s[0], t.toStringRef())) return {IValue(true)};
  }
  return {IValue(false)};
}

}  // namespace tl::jit
