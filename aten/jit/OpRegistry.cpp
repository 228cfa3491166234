#include "aten/jit/OpRegistry.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "aten/core/Exception.h"

namespace tl::jit {
namespace {

struct Registry {
  std::deque<Operator> ops;  // stable addresses
  std::unordered_map<std::string, const Operator*> by_name;
  std::unordered_map<std::string, std::vector<const Operator*>> by_base;
  std::vector<std::string> skipped;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits at top-level commas (not inside [] or ()).
std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '[' || c == '(') ++depth;
    else if (c == ']' || c == ')') --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(s.substr(start)).empty()) parts.push_back(trim(s.substr(start)));
  return parts;
}

// "Tensor(a!) self=None" / "Tensor(a)[]" / "int[2]" -> type without annotation, name, default.
SchemaArgument parse_argument(std::string_view text, std::string_view whole) {
  SchemaArgument arg;
  std::string_view decl = text;
  size_t eq = text.find('=');
  if (eq != std::string_view::npos) {
    arg.default_value = std::string(trim(text.substr(eq + 1)));
    decl = trim(text.substr(0, eq));
  }
  size_t space = decl.rfind(' ');
  std::string_view type = space == std::string_view::npos ? decl : decl.substr(0, space);
  if (space != std::string_view::npos) arg.name = std::string(decl.substr(space + 1));
  size_t open = type.find('(');
  if (open != std::string_view::npos) {
    size_t close = type.find(')', open);
    TL_CHECK_VALUE(close != std::string_view::npos, "jit: malformed schema '", whole, "'");
    std::string_view annot = type.substr(open + 1, close - open - 1);
    AliasInfo info;
    info.is_write = !annot.empty() && annot.back() == '!';
    info.set = std::string(info.is_write ? annot.substr(0, annot.size() - 1) : annot);
    arg.alias = info;
    arg.type = std::string(type.substr(0, open)) + std::string(type.substr(close + 1));
  } else {
    arg.type = std::string(type);
  }
  return arg;
}

}  // namespace

bool FunctionSchema::is_mutable() const {
  for (const auto& a : arguments)
    if (a.alias && a.alias->is_write) return true;
  return false;
}

FunctionSchema parse_schema(std::string_view text) {
  FunctionSchema s;
  s.text = std::string(text);
  size_t open = text.find('(');
  size_t arrow = text.rfind(" -> ");
  TL_CHECK_VALUE(open != std::string_view::npos && arrow != std::string_view::npos && arrow > open,
                 "jit: malformed schema '", text, "'");
  std::string_view qualified = text.substr(0, open);
  size_t dot = qualified.find('.');
  s.name = std::string(qualified.substr(0, dot));
  if (dot != std::string_view::npos) s.overload_name = std::string(qualified.substr(dot + 1));
  size_t close = text.rfind(')', arrow);
  bool kwarg_only = false;
  for (std::string_view part : split_commas(text.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      kwarg_only = true;
      continue;
    }
    SchemaArgument arg = parse_argument(part, text);
    arg.kwarg_only = kwarg_only;
    s.arguments.push_back(std::move(arg));
  }
  std::string_view rets = trim(text.substr(arrow + 4));
  if (!rets.empty() && rets.front() == '(' && rets.back() == ')') rets = rets.substr(1, rets.size() - 2);
  for (std::string_view part : split_commas(rets)) s.returns.push_back(parse_argument(part, text));
  return s;
}

bool register_ops(const OpEntry* entries, size_t n) {
  Registry& r = registry();
  for (size_t i = 0; i < n; ++i) {
    FunctionSchema schema = parse_schema(entries[i].schema);
    schema.flags = entries[i].flags;
    r.ops.push_back(Operator{std::move(schema), entries[i].fn});
    const Operator* op = &r.ops.back();
    r.by_name[op->schema.qualified_name()] = op;
    r.by_base[op->schema.name].push_back(op);
  }
  return true;
}

bool register_skipped(const char* const* lines, size_t n) {
  for (size_t i = 0; i < n; ++i) registry().skipped.emplace_back(lines[i]);
  return true;
}

const std::vector<std::string>& skipped_ops() { return registry().skipped; }

const Operator* find_op(std::string_view qualified_name) {
  auto& m = registry().by_name;
  auto it = m.find(std::string(qualified_name));
  return it == m.end() ? nullptr : it->second;
}

const std::vector<const Operator*>& overloads_of(std::string_view name) {
  static const std::vector<const Operator*> none;
  auto& m = registry().by_base;
  auto it = m.find(std::string(name));
  return it == m.end() ? none : it->second;
}

std::vector<const Operator*> all_ops() {
  std::vector<const Operator*> out;
  for (const Operator& op : registry().ops) out.push_back(&op);
  return out;
}

void run_op(const Operator& op, Stack& stack) {
  TL_CHECK(stack.size() >= op.schema.arguments.size(), "jit: ", op.schema.qualified_name(), " expects ",
           op.schema.arguments.size(), " arguments on the stack, found ", stack.size());
  try {
    op.fn(stack);
  } catch (const TypeError& e) {
    std::string msg = e.what();
    if (msg.rfind("expected a value of type", 0) == 0)
      throw TypeError(str(op.schema.qualified_name(), ": ", msg));
    throw;
  }
}

}  // namespace tl::jit
