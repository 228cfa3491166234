#include "aten/jit/PrimOps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "aten/core/Exception.h"
#include "aten/core/Warning.h"
#include "aten/autograd/GradMode.h"
#include "aten/jit/IR.h"
#include "aten/jit/ScriptPrims.h"
#include "aten/jit/ScriptTensorStr.h"

namespace tl::jit {
namespace {

using Tag = IValue::Tag;
using Outs = std::vector<IValue>;

bool is_int(const IValue& v) { return v.tag() == Tag::Int || v.tag() == Tag::Bool; }
bool is_num(const IValue& v) { return is_int(v) || v.tag() == Tag::Double; }

void need_nums(const char* op, const IValue& a, const IValue& b) {
  TL_CHECK_TYPE(is_num(a) && is_num(b), op, ": unsupported operand types ", a.tag_name(), " and ", b.tag_name());
}

// Python's floor division and modulo (the result takes the divisor's sign).
// int64 arithmetic wraps around (TorchScript's ints are 64-bit), done unsigned: no undefined behaviour.
int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

int64_t floordiv(int64_t a, int64_t b) {
  TL_CHECK(b != 0, "ZeroDivisionError: integer division or modulo by zero");
  TL_CHECK(!(a == std::numeric_limits<int64_t>::min() && b == -1), "integer overflow in floordiv(", a, ", -1)");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
double pymod(double a, double b) {  // (b == 0: nan, torch's)
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

template <typename IntOp, typename FloatOp>
Outs arith(const char* op, Stack& s, IntOp iop, FloatOp fop) {
  need_nums(op, s[0], s[1]);
  if (is_int(s[0]) && is_int(s[1])) return {IValue(iop(s[0].toInt(), s[1].toInt()))};
  return {IValue(fop(s[0].toDouble(), s[1].toDouble()))};
}

Outs add(Stack& s, const Node&) {
  if (s[0].tag() == Tag::String && s[1].tag() == Tag::String) return {IValue(s[0].toStringRef() + s[1].toStringRef())};
  if (s[0].isList() && s[1].isList()) {
    std::vector<IValue> out = s[0].toListRef();
    out.insert(out.end(), s[1].toListRef().begin(), s[1].toListRef().end());
    return {IValue::list(std::move(out))};
  }
  return arith("add", s, wrap_add, [](double a, double b) { return a + b; });
}
Outs sub(Stack& s, const Node&) {
  return arith("sub", s, wrap_sub, [](double a, double b) { return a - b; });
}
Outs mul(Stack& s, const Node&) {
  return arith("mul", s, wrap_mul, [](double a, double b) { return a * b; });
}
// Division of numbers as TorchScript's aten::div / floordiv / remainder: `/` and float `//` and `%` by zero give
// IEEE's inf or nan (torch's, where Python raises); int `//` by zero is torch's "division by 0".
Outs truediv(Stack& s, const Node&) {
  need_nums("div", s[0], s[1]);
  return {IValue(s[0].toDouble() / s[1].toDouble())};
}
Outs floordiv_op(Stack& s, const Node&) {
  return arith("floordiv", s, [](int64_t a, int64_t b) {
    TL_CHECK(b != 0, "division by 0");
    return floordiv(a, b);
  }, [](double a, double b) { return std::floor(a / b); });
}
Outs mod(Stack& s, const Node&) {
  return arith("remainder", s, [](int64_t a, int64_t b) {
    if (b == -1) return int64_t{0};  // (and no INT64_MIN / -1)
    return wrap_sub(a, wrap_mul(floordiv(a, b), b));
  }, pymod);
}
Outs pow_op(Stack& s, const Node&) {  // as TorchScript's aten::pow.int: a float
  need_nums("pow", s[0], s[1]);
  return {IValue(std::pow(s[0].toDouble(), s[1].toDouble()))};
}
// divmod(a, b) as TorchScript's aten::divmod: ints give Python's (floor quotient, remainder with the divisor's
// sign); otherwise floats, the remainder by fmod moved to the divisor's sign and the quotient (a - rem) / b.
Outs divmod_op(Stack& s, const Node&) {
  need_nums("divmod", s[0], s[1]);
  if (is_int(s[0]) && is_int(s[1])) {
    int64_t a = s[0].toInt(), b = s[1].toInt();
    int64_t q = floordiv(a, b);
    return {IValue(q), IValue(wrap_sub(a, wrap_mul(q, b)))};
  }
  double a = s[0].toDouble(), b = s[1].toDouble();
  TL_CHECK(b != 0, "ZeroDivisionError: float divmod()");
  double rem = std::fmod(a, b);
  if (rem != 0 && ((a < 0) != (b < 0))) rem += b;
  return {IValue((a - rem) / b), IValue(rem)};
}
// Python's two-argument math functions on numbers (the node's "fn"), as TorchScript's aten::fmod/copysign/atan2/
// pow/log/gcd: floats, but gcd of ints; log(x, base) is log(x) / log(base).
Outs math2_op(Stack& s, const Node& n) {
  TL_CHECK(n.hasAttribute("fn"), "prim::math2 needs an 'fn' attribute");
  const std::string& fn = n.attr("fn").toStringRef();
  need_nums(fn.c_str(), s[0], s[1]);
  if (fn == "gcd") {
    TL_CHECK_TYPE(is_int(s[0]) && is_int(s[1]), "math.gcd: 'float' object cannot be interpreted as an integer");
    uint64_t a = s[0].toInt() < 0 ? 0 - static_cast<uint64_t>(s[0].toInt()) : static_cast<uint64_t>(s[0].toInt());
    uint64_t b = s[1].toInt() < 0 ? 0 - static_cast<uint64_t>(s[1].toInt()) : static_cast<uint64_t>(s[1].toInt());
    while (b) a = std::exchange(b, a % b);
    return {IValue(static_cast<int64_t>(a))};
  }
  const double a = s[0].toDouble(), b = s[1].toDouble();
  if (fn == "fmod") return {IValue(std::fmod(a, b))};
  if (fn == "copysign") return {IValue(std::copysign(a, b))};
  if (fn == "atan2") return {IValue(std::atan2(a, b))};
  if (fn == "pow") return {IValue(std::pow(a, b))};
  if (fn == "log") return {IValue(std::log(a) / std::log(b))};
  TL_CHECK(false, "prim::math2: unknown function '", fn, "'");
  return {};
}
// A tensor where a number is expected (max(x, 1.5)): torch's aten::IntImplicit / FloatImplicit / ScalarImplicit
// (the node's "to": int, float or number), the value of a 0-d tensor that does not require grad.
Outs implicit_num(Stack& s, const Node& n) {
  const Tensor& t = s[0].toTensor();
  const std::string to = n.hasAttribute("to") ? n.attr("to").toStringRef() : "number";
  TL_CHECK(!t.requires_grad(), "Cannot input a tensor that requires grad as a scalar argument");
  TL_CHECK(t.dim() == 0, "Cannot input a tensor of dimension other than 0 as a scalar argument");
  TL_CHECK(to != "int" || is_integral_type(t.scalar_type(), false), "Cannot input a tensor of type ",
           legacy_type_name(t.scalar_type()), " as an integral argument");
  IValue v(tensor_item(t));
  if (to == "float") return {IValue(v.tag() == Tag::Bool ? (v.toBool() ? 1.0 : 0.0) : v.toDouble())};
  return {v};
}
Outs neg(Stack& s, const Node&) {
  TL_CHECK_TYPE(is_num(s[0]), "neg: unsupported operand type ", s[0].tag_name());
  if (is_int(s[0])) return {IValue(wrap_sub(0, s[0].toInt()))};
  return {IValue(-s[0].toDouble())};
}

// Comparison of numbers (int and float mixed), strings, bools.
int compare(const char* op, const IValue& a, const IValue& b) {
  if (a.tag() == Tag::String && b.tag() == Tag::String) {  // std::string::compare's sign only (it may return 25)
    const int c = a.toStringRef().compare(b.toStringRef());
    return (c > 0) - (c < 0);
  }
  need_nums(op, a, b);
  if (is_int(a) && is_int(b)) return a.toInt() < b.toInt() ? -1 : a.toInt() > b.toInt();
  double x = a.toDouble(), y = b.toDouble();
  if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every comparison but != is false
  return x < y ? -1 : x > y;
}
Outs lt(Stack& s, const Node&) { return {IValue(compare("lt", s[0], s[1]) == -1)}; }
Outs le(Stack& s, const Node&) { int c = compare("le", s[0], s[1]); return {IValue(c == -1 || c == 0)}; }
Outs gt(Stack& s, const Node&) { return {IValue(compare("gt", s[0], s[1]) == 1)}; }
Outs ge(Stack& s, const Node&) { int c = compare("ge", s[0], s[1]); return {IValue(c == 1 || c == 0)}; }

bool equal(const IValue& a, const IValue& b) {
  if (is_num(a) && is_num(b)) return compare("eq", a, b) == 0;
  if ((a.isList() || a.isTuple()) && a.tag() == b.tag()) {
    const auto& x = a.toListRef();
    const auto& y = b.toListRef();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!equal(x[i], y[i])) return false;
    return true;
  }
  return a.same(b);
}
Outs eq(Stack& s, const Node&) { return {IValue(equal(s[0], s[1]))}; }
Outs ne(Stack& s, const Node&) { return {IValue(!equal(s[0], s[1]))}; }
Outs not_op(Stack& s, const Node&) { return {IValue(!s[0].toBool())}; }
Outs is(Stack& s, const Node&) { return {IValue(s[0].same(s[1]))}; }
Outs isnot(Stack& s, const Node&) { return {IValue(!s[0].same(s[1]))}; }
Outs min_op(Stack& s, const Node&) { return {compare("min", s[1], s[0]) == -1 ? s[1] : s[0]}; }
Outs max_op(Stack& s, const Node&) { return {compare("max", s[1], s[0]) == 1 ? s[1] : s[0]}; }
// max(xs) / min(xs) of a list of numbers or bools (and max(a, b, c) of one type): torch's prim::max.self_int etc.,
// the first of the extreme values (a nan is kept only where it comes first, as torch's `x > best` scan).
Outs seq_extreme(Stack& s, const char* name, int want) {
  const auto& xs = s[0].toListRef();
  TL_CHECK(!xs.empty(), name, "() arg is an empty sequence");  // (a RuntimeError, as torch's)
  IValue best = xs[0];
  for (size_t i = 1; i < xs.size(); ++i)
    if (compare(name, xs[i], best) == want) best = xs[i];
  return {best};
}
Outs list_max(Stack& s, const Node&) { return seq_extreme(s, "max", 1); }
Outs list_min(Stack& s, const Node&) { return seq_extreme(s, "min", -1); }

IValue scalar_ivalue(const Scalar& v) {
  if (v.is_bool()) return IValue(v.to<bool>());
  if (v.is_integral()) return IValue(v.to<int64_t>());
  return IValue(v.to<double>());
}
IValue item(const IValue& v, const char* op) {
  if (!v.isTensor()) return v;
  const Tensor& t = v.toTensor();
  TL_CHECK(t.numel() == 1, op, ": a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  return scalar_ivalue(tensor_item(t));
}
Outs to_int(Stack& s, const Node&) {
  IValue v = item(s[0], "Int");
  if (v.tag() == Tag::Double) {
    double d = v.toDouble();
    TL_CHECK_VALUE(std::isfinite(d), "Int: cannot convert float ", d, " to integer");
    TL_CHECK_VALUE(d >= -9223372036854775808.0 && d < 9223372036854775808.0, "Int: float ", d,
                   " is out of the range of int64");
    return {IValue(static_cast<int64_t>(std::trunc(d)))};
  }
  return {IValue(v.toInt())};
}
Outs to_float(Stack& s, const Node&) {
  IValue v = item(s[0], "Float");
  if (v.tag() == Tag::Bool) return {IValue(v.toBool() ? 1.0 : 0.0)};  // float(True)
  return {IValue(v.toDouble())};
}
Outs to_bool(Stack& s, const Node&) {
  IValue v = item(s[0], "Bool");
  if (v.tag() == Tag::Bool) return {v};
  if (v.tag() == Tag::Int) return {IValue(v.toInt() != 0)};
  return {IValue(v.toDouble() != 0)};
}
Outs item_op(Stack& s, const Node&) { return {item(s[0], "item")}; }

// Sequences.
size_t index(const char* what, int64_t i, size_t n) {
  int64_t w = i < 0 ? i + static_cast<int64_t>(n) : i;
  TL_CHECK_INDEX(w >= 0 && w < static_cast<int64_t>(n), what, " index out of range");
  return static_cast<size_t>(w);
}
Outs len(Stack& s, const Node&) {
  if (s[0].tag() == Tag::String) return {IValue(static_cast<int64_t>(s[0].toStringRef().size()))};
  if (s[0].isTensor()) {
    TL_CHECK(s[0].toTensor().dim() > 0, "len() of a 0-d tensor");
    return {IValue(s[0].toTensor().sizes()[0])};
  }
  return {IValue(static_cast<int64_t>(s[0].toListRef().size()))};
}
Outs getitem(Stack& s, const Node&) {
  if (s[0].tag() == Tag::String) {
    const std::string& str = s[0].toStringRef();
    return {IValue(std::string(1, str[index("string", s[1].toInt(), str.size())]))};
  }
  const auto& xs = s[0].toListRef();
  return {xs[index(s[0].isTuple() ? "tuple" : "list", s[1].toInt(), xs.size())]};
}
Outs setitem(Stack& s, const Node&) {
  auto& xs = s[0].toListMut();
  xs[index("list assignment", s[1].toInt(), xs.size())] = s[2];
  return {};
}
Outs append(Stack& s, const Node&) {
  s[0].toListMut().push_back(s[1]);
  return {};
}
Outs extend(Stack& s, const Node&) {
  std::vector<IValue> more = s[1].toListRef();
  auto& xs = s[0].toListMut();
  xs.insert(xs.end(), more.begin(), more.end());
  return {};
}
Outs pop(Stack& s, const Node&) {
  auto& xs = s[0].toListMut();
  TL_CHECK_INDEX(!xs.empty(), "pop from empty list");
  size_t i = index("pop", s[1].toInt(), xs.size());
  IValue v = xs[i];
  xs.erase(xs.begin() + static_cast<std::ptrdiff_t>(i));
  return {v};
}
// Python's l[start:stop:step] (None bounds as omitted ones).
Outs list_slice(Stack& s, const Node&) {
  const auto& xs = s[0].toListRef();
  const int64_t n = static_cast<int64_t>(xs.size());
  int64_t step = s[3].isNone() ? 1 : s[3].toInt();
  TL_CHECK_VALUE(step != 0, "slice step cannot be zero");
  auto clamp = [&](const IValue& v, int64_t dflt) {
    if (v.isNone()) return dflt;
    int64_t i = v.toInt();
    if (i < 0) i += n;
    return step > 0 ? std::min(std::max<int64_t>(i, 0), n) : std::min(std::max<int64_t>(i, -1), n - 1);
  };
  int64_t start = clamp(s[1], step > 0 ? 0 : n - 1), stop = clamp(s[2], step > 0 ? n : -1);
  std::vector<IValue> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(xs[static_cast<size_t>(i)]);
    // stop before i + step could overflow (a step near INT64_MAX / INT64_MIN)
    if (step > 0 ? static_cast<uint64_t>(stop - i) <= static_cast<uint64_t>(step)
                 : static_cast<uint64_t>(i - stop) <= uint64_t{0} - static_cast<uint64_t>(step))
      break;
  }
  return {s[0].isTuple() ? IValue::tuple(std::move(out)) : IValue::list(std::move(out))};
}
Outs contains(Stack& s, const Node&) {  // `x in list`
  for (const IValue& e : s[0].toListRef())
    if (equal(e, s[1])) return {IValue(true)};
  return {IValue(false)};
}
Outs list_copy(Stack& s, const Node&) { return {IValue::list(s[0].toListRef())}; }

// Dicts: a list [k0, v0, k1, v1, ...].
std::ptrdiff_t find_key(const std::vector<IValue>& d, const IValue& k) {
  for (size_t i = 0; i + 1 < d.size(); i += 2)
    if (equal(d[i], k)) return static_cast<std::ptrdiff_t>(i);
  return -1;
}
Outs dict_construct(Stack& s, const Node&) {
  TL_CHECK(s.size() % 2 == 0, "prim::DictConstruct takes keys and values");
  std::vector<IValue> d;
  for (size_t i = 0; i < s.size(); i += 2) {
    std::ptrdiff_t at = find_key(d, s[i]);
    if (at >= 0) {
      d[at + 1] = s[i + 1];
    } else {
      d.push_back(s[i]);
      d.push_back(s[i + 1]);
    }
  }
  return {IValue::dict(std::move(d))};
}
Outs dict_len(Stack& s, const Node&) { return {IValue(static_cast<int64_t>(s[0].toListRef().size() / 2))}; }
Outs dict_getitem(Stack& s, const Node&) {
  const auto& d = s[0].toListRef();
  std::ptrdiff_t at = find_key(d, s[1]);
  TL_CHECK(at >= 0, "KeyError: ", s[1].repr());
  return {d[at + 1]};
}
Outs dict_get(Stack& s, const Node&) {
  const auto& d = s[0].toListRef();
  std::ptrdiff_t at = find_key(d, s[1]);
  return {at >= 0 ? d[at + 1] : s[2]};
}
Outs dict_setitem(Stack& s, const Node&) {
  auto& d = s[0].toListMut();
  std::ptrdiff_t at = find_key(d, s[1]);
  if (at >= 0) {
    d[at + 1] = s[2];
  } else {
    d.push_back(s[1]);
    d.push_back(s[2]);
  }
  return {};
}
// d.pop(k) (KeyError when absent, as Python) and d.pop(k, default); the entry's key and value leave the list.
Outs dict_pop(Stack& s, const Node&) {
  auto& d = s[0].toListMut();
  std::ptrdiff_t at = find_key(d, s[1]);
  TL_CHECK(at >= 0, "KeyError: ", s[1].repr());
  IValue v = d[at + 1];
  d.erase(d.begin() + at, d.begin() + at + 2);
  return {v};
}
Outs dict_pop_default(Stack& s, const Node&) {
  auto& d = s[0].toListMut();
  std::ptrdiff_t at = find_key(d, s[1]);
  if (at < 0) return {s[2]};
  IValue v = d[at + 1];
  d.erase(d.begin() + at, d.begin() + at + 2);
  return {v};
}
Outs dict_update(Stack& s, const Node&) {  // d.update(other): other's entries in its order, a later one wins
  std::vector<IValue> other = s[1].toListRef();  // a copy: d.update(d) reads what it writes
  auto& d = s[0].toListMut();
  for (size_t i = 0; i + 1 < other.size(); i += 2) {
    std::ptrdiff_t at = find_key(d, other[i]);
    if (at >= 0) {
      d[at + 1] = other[i + 1];
    } else {
      d.push_back(other[i]);
      d.push_back(other[i + 1]);
    }
  }
  return {};
}
Outs dict_clear(Stack& s, const Node&) {
  s[0].toListMut().clear();
  return {};
}
Outs dict_copy(Stack& s, const Node&) { return {IValue::dict(s[0].toListRef())}; }
Outs dict_contains(Stack& s, const Node&) { return {IValue(find_key(s[0].toListRef(), s[1]) >= 0)}; }
Outs dict_part(Stack& s, size_t which) {
  const auto& d = s[0].toListRef();
  std::vector<IValue> out;
  for (size_t i = 0; i + 1 < d.size(); i += 2)
    out.push_back(which == 2 ? IValue::tuple({d[i], d[i + 1]}) : d[i + which]);
  return {IValue::list(std::move(out))};
}
Outs dict_keys(Stack& s, const Node&) { return dict_part(s, 0); }
Outs dict_values(Stack& s, const Node&) { return dict_part(s, 1); }
Outs dict_items(Stack& s, const Node&) { return dict_part(s, 2); }

// Tensors' Python-side properties (not YAML ops).
Outs size(Stack& s, const Node&) {
  auto sz = s[0].toTensor().sizes();
  return {IValue::list(std::vector<IValue>(sz.begin(), sz.end()))};
}
Outs size_dim(Stack& s, const Node&) {
  const Tensor& t = s[0].toTensor();
  return {IValue(t.sizes()[maybe_wrap_dim(s[1].toInt(), t.dim(), "size")])};
}
Outs dim(Stack& s, const Node&) { return {IValue(s[0].toTensor().dim())}; }
Outs numel(Stack& s, const Node&) { return {IValue(s[0].toTensor().numel())}; }
Outs dtype(Stack& s, const Node&) { return {IValue(s[0].toTensor().scalar_type())}; }
Outs device(Stack& s, const Node&) { return {IValue(s[0].toTensor().device())}; }
Outs is_floating_point(Stack& s, const Node&) { return {IValue(s[0].toTensor().is_floating_point())}; }
Outs is_complex(Stack& s, const Node&) { return {IValue(is_complex_type(s[0].toTensor().scalar_type()))}; }

// Python's math functions on one number (the node's "fn" attribute): floor/ceil give ints, isinf/isnan bools.
Outs math_op(Stack& s, const Node& n) {
  TL_CHECK(n.hasAttribute("fn"), "prim::math needs an 'fn' attribute");
  const std::string& fn = n.attr("fn").toStringRef();
  TL_CHECK_TYPE(is_num(s[0]), "math.", fn, ": must be real number, not ", s[0].tag_name());
  double x = s[0].toDouble();
  if (fn == "sqrt") {
    TL_CHECK(!(x < 0), "ValueError: math domain error");
    return {IValue(std::sqrt(x))};
  }
  if (fn == "floor" || fn == "ceil") {
    if (is_int(s[0])) return {IValue(s[0].toInt())};
    double r = fn == "floor" ? std::floor(x) : std::ceil(x);
    TL_CHECK(std::isfinite(r) && r >= -9.2233720368547758e18 && r < 9.2233720368547758e18,
             "math.", fn, ": cannot convert ", x, " to integer");
    return {IValue(static_cast<int64_t>(r))};
  }
  if (fn == "isinf") return {IValue(std::isinf(x))};
  if (fn == "isnan") return {IValue(std::isnan(x))};
  if (fn == "isfinite") return {IValue(std::isfinite(x))};
  if (fn == "exp") return {IValue(std::exp(x))};
  if (fn == "fabs") return {IValue(std::fabs(x))};  // abs() of a float, math.fabs
  if (fn == "round") return {IValue(std::nearbyint(x))};  // round() of a number: a float, halves to even (torch's)
  if (fn == "log10") return {IValue(std::log10(x))};
  if (fn == "degrees") return {IValue(x * (180.0 / M_PI))};
  if (fn == "radians") return {IValue(x * (M_PI / 180.0))};
  if (fn == "log") {
    TL_CHECK(x > 0, "ValueError: math domain error");
    return {IValue(std::log(x))};
  }
  TL_CHECK(false, "prim::math: unknown function '", fn, "'");
  return {};
}

// `with torch.no_grad()` / `enable_grad()` / `set_grad_enabled(b)`: the block sets the mode and restores the
// one prim::grad_enabled read before it.
Outs grad_enabled(Stack&, const Node&) { return {IValue(tl::autograd::GradMode::is_enabled())}; }
Outs set_grad_enabled(Stack& s, const Node&) {
  tl::autograd::GradMode::set_enabled(s[0].toBool());
  return {};
}

// `with` blocks: prim::Enter(ctx) notes a block entered (its own block is the exit to run if an error leaves the
// block), prim::Exit forgets the innermost. Only the compiled interpreter keeps that note (Interpreter.cpp); a
// node run alone has no frame to note it in.
Outs enter_exit(Stack&, const Node& n) {
  TL_CHECK(false, "jit: ", n.kind(), " runs only inside a graph (run_graph)");
  return {};
}

// warnings.warn(message): through tl::warn (a Python UserWarning under the bindings; dropped without them).
Outs warn_op(Stack& s, const Node&) {
  tl::warn(s[0].tag() == Tag::String ? s[0].toStringRef() : s[0].repr());
  return {};
}

// str() of a value as TorchScript prints it (torch's IValue operator<<, used by aten::str, prim::format and
// print): floats with an integral value that fits an int64 as `3.`, others with 17 significant digits
// (0.10000000000000001); strings as they are, also inside containers (no quotes); bools True/False; dtypes,
// layouts and memory formats as their numbers (script's ints), devices as `cpu`, objects as `<__torch__.M.Foo object
// at 0x...>`, tensors as ATen's C++ printing (ScriptTensorStr.cpp). A dict runs as a list of
// alternating keys and values, so the static type `t` (the node input's) tells one apart: `{k: v, ...}`.
bool is_dict_type(const Type* t) {
  return t && t->kind == Type::Kind::Any && t->name != "Union" && t->elems.size() == 2;
}
const Type* elem_type(const Type* t, size_t i) {
  if (!t) return nullptr;
  if (t->kind == Type::Kind::Optional) t = t->elems.empty() ? nullptr : t->elems[0].get();
  if (!t) return nullptr;
  if (t->kind == Type::Kind::List) return t->elems.empty() ? nullptr : t->elems[0].get();
  if (t->kind == Type::Kind::Tuple) return i < t->elems.size() ? t->elems[i].get() : nullptr;
  return nullptr;
}
std::string script_float_str(double d) {
  int c = std::fpclassify(d);
  // An int64 holds [-2^63, 2^63): the range check keeps the cast defined (torch's cast is of the same range).
  if ((c == FP_NORMAL || c == FP_ZERO) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
    int64_t i = static_cast<int64_t>(d);
    if (static_cast<double>(i) == d) return std::to_string(i) + ".";
  }
  std::ostringstream os;
  os.precision(std::numeric_limits<double>::max_digits10);
  os << d;
  return os.str();
}
std::string py_str(const IValue& v, const Type* t = nullptr) {
  if (t && t->kind == Type::Kind::Optional) t = t->elems.empty() ? nullptr : t->elems[0].get();
  switch (v.tag()) {
    case Tag::None: return "None";
    case Tag::String: return v.toStringRef();
    case Tag::Bool: return v.toBool() ? "True" : "False";
    case Tag::Int: return std::to_string(v.toInt());
    case Tag::Double: return script_float_str(v.toDouble());
    case Tag::Device: return v.toDevice().str();
    case Tag::Generator: return "Generator";
    case Tag::Tensor: return script_tensor_str(v.toTensor());
    case Tag::Object: {  // as Python prints an object (torch's): its class and address
      std::ostringstream os;
      os << "<" << v.toObject()->type_name << " object at " << static_cast<const void*>(v.toObject().get()) << ">";
      return os.str();
    }
    case Tag::List:
    case Tag::Tuple: {
      const auto& xs = v.toListRef();
      std::string out;
      if (v.isList() && is_dict_type(t)) {
        out = "{";
        for (size_t i = 0; i + 1 < xs.size(); i += 2)
          out += (i ? ", " : "") + py_str(xs[i], t->elems[0].get()) + ": " + py_str(xs[i + 1], t->elems[1].get());
        return out + "}";
      }
      out = v.isList() ? "[" : "(";
      for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + py_str(xs[i], elem_type(t, i));
      return out + (v.isList() ? "]" : (xs.size() == 1 ? ",)" : ")"));
    }
    default: return v.repr();  // ScalarType/Layout/MemoryFormat as numbers
  }
}
const Type* input_type(const Node& n, size_t i) {
  return i < n.inputs().size() && n.inputs()[i]->type() ? n.inputs()[i]->type().get() : nullptr;
}
// hex(a) / oct(a) / bin(a) of an int (the node's "base": 16, 8 or 2), as Python and torch's aten::hex/oct/bin.
Outs int_base(Stack& s, const Node& n) {
  TL_CHECK_TYPE(is_int(s[0]), "'", s[0].tag_name(), "' object cannot be interpreted as an integer");
  const int64_t base = n.attr("base").toInt();
  const int64_t a = s[0].toInt();
  uint64_t m = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);  // (-2^63 too)
  std::string digits;
  do {
    digits += "0123456789abcdef"[m % static_cast<uint64_t>(base)];
    m /= static_cast<uint64_t>(base);
  } while (m);
  std::reverse(digits.begin(), digits.end());
  return {IValue(std::string(a < 0 ? "-" : "") + (base == 16 ? "0x" : base == 8 ? "0o" : "0b") + digits)};
}
Outs format(Stack& s, const Node& n) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += py_str(s[i], input_type(n, i));
  return {IValue(std::move(out))};
}

// fmt.format(a, b) as TorchScript's aten::format: each "{}" in turn is replaced by the next argument's str(); all
// other text, "{0}", "{{" and format specs included, stays as it is (torch's rule, not Python's); arguments left
// over are ignored, too few is torch's error.
Outs str_format(Stack& s, const Node& n) {
  TL_CHECK_TYPE(s[0].tag() == Tag::String, "format: expected a str format, got ", s[0].tag_name());
  const std::string& fmt = s[0].toStringRef();
  std::string out;
  size_t begin = 0;
  for (size_t arg = 1;; ++arg) {
    size_t at = fmt.find("{}", begin);
    if (at == std::string::npos) break;
    TL_CHECK(arg < s.size(), "Too few arguments for format string: ", fmt);
    out += fmt.substr(begin, at - begin) + py_str(s[arg], input_type(n, arg));
    begin = at + 2;
  }
  return {IValue(out + fmt.substr(begin))};
}

// print(a, b): the arguments' str() joined by spaces, a newline, to stdout (flushed: it interleaves with Python's).
Outs print_op(Stack& s, const Node& n) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? " " : "") + py_str(s[i], input_type(n, i));
  std::fputs((out + "\n").c_str(), stdout);
  std::fflush(stdout);
  return {};
}

Outs raise(Stack& s, const Node& n) {
  std::string cls = n.hasAttribute("exception") ? n.attr("exception").toStringRef() : "Exception";
  std::string msg = s.empty() ? "" : s[0].tag() == Tag::String ? s[0].toStringRef() : s[0].repr();
  throw RuntimeError(str("The following operation failed in the TorchScript interpreter.\n", cls,
                         msg.empty() ? "" : ": ", msg));
}
Outs unchecked_cast(Stack& s, const Node&) { return {s[0]}; }

PythonOpHandler& python_op_handler() {
  static PythonOpHandler handler = nullptr;
  return handler;
}
Outs python_op(Stack& s, const Node& n) {
  TL_CHECK(python_op_handler() != nullptr, "jit: prim::PythonOp needs Python (torchlite's bindings)");
  return python_op_handler()(n, s);
}

// self.name = value (script's assignment to a module attribute): writes an attribute the object has;
// a buffer stays a tensor. The compiler fixed the attribute's type; a loaded graph is checked here.
Outs set_attr(Stack& s, const Node& n) {
  TL_CHECK(n.hasAttribute("name") && n.attr("name").tag() == Tag::String,
           "jit: prim::SetAttr needs a str attribute 'name'");
  const std::string& name = n.attr("name").toStringRef();
  Object& obj = *s[0].toObject();
  auto it = obj.attrs.find(name);
  TL_CHECK(it != obj.attrs.end(), "jit: prim::SetAttr: module ", obj.type_name, " has no attribute '", name, "'");
  // An object may be stored (a TorchScript class's instance held by another, `Optional[Acc]` set to None), but an
  // attribute holding an object (a submodule, or an instance) takes only None or an object of the same class.
  const bool same_class = it->second.isObject() && s[1].isObject() &&
                          it->second.toObject()->type_name == s[1].toObject()->type_name;
  TL_CHECK_TYPE(!it->second.isObject() || s[1].isNone() || same_class, "jit: prim::SetAttr: attribute '", name,
                "' of ", obj.type_name, " holds an object of another class");
  it->second = std::move(s[1]);
  return {};
}

// A TorchScript class's constructor call (`Acc(x, 1)` in script): a new object of the class named by the
// attribute 'name' with the attributes 'fields' (a list of str), each None until its __init__, inlined after
// this node, assigns it with prim::SetAttr. Never folded or merged: each call is a new object.
Outs create_object(Stack&, const Node& n) {
  TL_CHECK(n.hasAttribute("name") && n.attr("name").tag() == Tag::String && n.hasAttribute("fields") &&
               n.attr("fields").isList(),
           "jit: prim::CreateObject needs a str attribute 'name' and a list attribute 'fields'");
  auto obj = std::make_shared<Object>(Object{n.attr("name").toStringRef(), {}});
  for (const IValue& f : n.attr("fields").toListRef()) {
    TL_CHECK(f.tag() == Tag::String, "jit: prim::CreateObject: field names are strings");
    obj->attrs[f.toStringRef()] = IValue();
  }
  return {IValue(std::move(obj))};
}

// kind, function, flags, inputs (kAnyCount: any number; kEvenCount: pairs; kOptionalOne: 0 or 1), outputs.
const PrimOp kPrims[] = {
    {"prim::add", add, 0, 2, 1}, {"prim::sub", sub, 0, 2, 1}, {"prim::mul", mul, 0, 2, 1},
    {"prim::truediv", truediv, 0, 2, 1}, {"prim::floordiv", floordiv_op, 0, 2, 1}, {"prim::mod", mod, 0, 2, 1},
    {"prim::pow", pow_op, 0, 2, 1}, {"prim::divmod", divmod_op, 0, 2, 2},
    {"prim::implicit_num", implicit_num, 0, 1, 1}, {"prim::neg", neg, 0, 1, 1},
    {"prim::lt", lt, 0, 2, 1}, {"prim::le", le, 0, 2, 1}, {"prim::gt", gt, 0, 2, 1}, {"prim::ge", ge, 0, 2, 1},
    {"prim::eq", eq, 0, 2, 1}, {"prim::ne", ne, 0, 2, 1}, {"prim::not", not_op, 0, 1, 1}, {"prim::is", is, 0, 2, 1},
    {"prim::isnot", isnot, 0, 2, 1}, {"prim::min", min_op, 0, 2, 1}, {"prim::max", max_op, 0, 2, 1},
    {"prim::list_max", list_max, 0, 1, 1}, {"prim::int_base", int_base, 0, 1, 1}, {"prim::list_min", list_min, 0, 1, 1},
    {"prim::Int", to_int, 0, 1, 1}, {"prim::Float", to_float, 0, 1, 1}, {"prim::Bool", to_bool, 0, 1, 1},
    {"prim::item", item_op, 0, 1, 1}, {"prim::len", len, 0, 1, 1}, {"prim::getitem", getitem, 0, 2, 1},
    {"prim::setitem", setitem, kPrimWritesFirst, 3, 0}, {"prim::append", append, kPrimWritesFirst, 2, 0},
    {"prim::extend", extend, kPrimWritesFirst, 2, 0}, {"prim::pop", pop, kPrimWritesFirst, 2, 1},
    {"prim::contains", contains, 0, 2, 1}, {"prim::list_slice", list_slice, 0, 4, 1},
    {"prim::list_copy", list_copy, 0, 1, 1}, {"prim::DictConstruct", dict_construct, 0, kEvenCount, 1},
    {"prim::dict_len", dict_len, 0, 1, 1}, {"prim::dict_getitem", dict_getitem, 0, 2, 1},
    {"prim::dict_get", dict_get, 0, 3, 1}, {"prim::dict_setitem", dict_setitem, kPrimWritesFirst, 3, 0},
    {"prim::dict_contains", dict_contains, 0, 2, 1}, {"prim::dict_pop", dict_pop, kPrimWritesFirst, 2, 1},
    {"prim::dict_pop_default", dict_pop_default, kPrimWritesFirst, 3, 1},
    {"prim::dict_update", dict_update, kPrimWritesFirst, 2, 0}, {"prim::dict_clear", dict_clear, kPrimWritesFirst, 1, 0},
    {"prim::dict_copy", dict_copy, 0, 1, 1}, {"prim::dict_keys", dict_keys, 0, 1, 1},
    {"prim::dict_values", dict_values, 0, 1, 1}, {"prim::dict_items", dict_items, 0, 1, 1},
    {"prim::size", size, 0, 1, 1}, {"prim::size_dim", size_dim, 0, 2, 1}, {"prim::dim", dim, 0, 1, 1},
    {"prim::numel", numel, 0, 1, 1}, {"prim::dtype", dtype, 0, 1, 1}, {"prim::format", format, 0, kAnyCount, 1},
    {"prim::device", device, 0, 1, 1}, {"prim::is_floating_point", is_floating_point, 0, 1, 1},
    {"prim::is_complex", is_complex, 0, 1, 1}, {"prim::math", math_op, 0, 1, 1},
    {"prim::math2", math2_op, 0, 2, 1}, {"prim::warn", warn_op, kPrimEffect, 1, 0},
    {"prim::str_format", str_format, 0, kAnyCount, 1},
    {"prim::print", print_op, kPrimEffect, kAnyCount, 0}, {"prim::grad_enabled", grad_enabled, kPrimEffect, 0, 1},
    {"prim::set_grad_enabled", set_grad_enabled, kPrimEffect, 1, 0},
    {"prim::Enter", enter_exit, kPrimEffect, 1, 0}, {"prim::Exit", enter_exit, kPrimEffect, 0, 0},
    {"prim::PythonOp", python_op, kPrimEffect, kAnyCount, 1},
    {"prim::RaiseException", raise, kPrimEffect, kOptionalOne, 0},
    {"prim::SetAttr", set_attr, kPrimWritesFirst | kPrimEffect, 2, 0}, {"prim::unchecked_cast", unchecked_cast, 0, 1, 1},
    {"prim::CreateObject", create_object, kPrimEffect, 0, 1},
    {"prim::isinstance", isinstance_op, 0, 1, 1}, {"prim::str_method", str_method, 0, kAnyCount, 1},
};

}  // namespace

const PrimOp* find_prim(const std::string& kind) {
  static const std::unordered_map<std::string, const PrimOp*> table = [] {
    std::unordered_map<std::string, const PrimOp*> t;
    for (const PrimOp& p : kPrims) t[p.kind] = &p;
    return t;
  }();
  auto it = table.find(kind);
  return it == table.end() ? nullptr : it->second;
}

void set_python_op_handler(PythonOpHandler handler) { python_op_handler() = handler; }

std::string prim_shape_error(const PrimOp& p, size_t inputs, size_t outputs) {
  bool ins_ok = p.inputs == kAnyCount || (p.inputs == kEvenCount && inputs % 2 == 0) ||
                (p.inputs == kOptionalOne && inputs <= 1) || (p.inputs >= 0 && inputs == static_cast<size_t>(p.inputs));
  if (!ins_ok || outputs != static_cast<size_t>(p.outputs))
    return str(p.kind, " takes ", p.inputs >= 0 ? std::to_string(p.inputs) : std::string("another number of"),
               " inputs and gives ", p.outputs, " outputs, the node has ", inputs, " and ", outputs);
  return "";
}

std::vector<std::string> prim_kinds() {
  std::vector<std::string> out;
  for (const PrimOp& p : kPrims) out.push_back(p.kind);
  return out;
}

}  // namespace tl::jit
