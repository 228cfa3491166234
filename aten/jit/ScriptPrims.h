// Script's prim ops on types and strings, beside PrimOps.cpp's table (which lists them):
// `prim::isinstance` (a value's run-time type test, for Union/Any values) and `prim::str_method`
// (Python's str methods that TorchScript takes: split, strip, find, replace, is*, ...).
#pragma once
#include <string_view>
#include <vector>

#include "aten/jit/IValue.h"

namespace tl::jit {

class Node;

// Whether v is a value of the type written `t` as the IR prints types ("int", "Tensor", "str[]", "(int, str)",
// "Dict(str, int)", "Union(int, str)", "int?", "NoneType", "__torch__.Acc"). A list's elements are all tested
// (the interpreter's lists carry no element type: an empty list is a list of any type).
bool value_has_type(const IValue& v, std::string_view t);

// prim::isinstance[types=[...]](x) -> bool: whether x is of one of the attribute's types.
std::vector<IValue> isinstance_op(Stack& s, const Node& n);

// prim::str_method[fn="split"](self, args...) -> result: the str method named by the attribute, with the
// arguments the compiler filled in (its defaults included), following TorchScript's (byte-wise, ASCII) rules.
std::vector<IValue> str_method(Stack& s, const Node& n);

}  // namespace tl::jit
