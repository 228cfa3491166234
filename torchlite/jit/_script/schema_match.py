"""Overload resolution for calls of YAML ops, from the registry's FunctionSchemas (no per-op code):
positional and keyword arguments are bound to each overload's arguments in YAML order, defaults
filled in, and the first overload whose argument types accept the call's static types is taken,
as PyTorch's schema matching does (a number matches `Scalar`, not `Tensor`)."""
from __future__ import annotations

import ast

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._script import types as T

_SCHEMAS = {}


def schemas(name):
    found = _SCHEMAS.get(name)
    if found is None:
        found = _SCHEMAS[name] = list(_jit._jit_get_schemas_for_operator(name))
    return found


def default_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    if hasattr(_tl, text):
        return getattr(_tl, text)
    raise ValueError(f"unknown schema default {text!r}")


def accepts(schema_type: str, t: T.T) -> bool:
    """Whether a value of static type t can be passed as an argument of the schema type."""
    if schema_type.endswith("?"):
        inner = schema_type[:-1]
        if t.kind == "None":
            return True
        if t.kind == "Optional":
            return accepts(inner, t.elems[0])
        return accepts(inner, t)
    if t.kind == "Optional":
        return False
    base, _, rest = schema_type.partition("[")
    if rest:  # a list type: int[], int[2], Tensor[], Tensor?[], float[], bool[3]
        fixed = rest[:-1]
        if base in ("int", "SymInt") and fixed and t.kind == "int":
            return True
        if t.kind == "List":
            return accepts(base, t.elems[0]) or (base == "float" and t.elems[0].kind == "int")
        if t.kind == "Tuple":
            return all(accepts(base, e) or (base == "float" and e.kind == "int") for e in t.elems)
        return False
    k = t.kind
    if base == "Tensor":
        return k == "Tensor"
    if base == "Scalar":
        return k in ("int", "float", "bool", "Number") or T.is_number_union(t)
    if base in ("int", "SymInt"):
        return k == "int"
    if base == "float":
        return k in ("float", "int")
    if base == "bool":
        return k == "bool"
    if base == "str":
        return k == "str"
    if base == "ScalarType":
        return k == "dtype"
    if base == "Device":
        return k in ("Device", "str")
    return k == "Any"  # Layout, MemoryFormat, Generator: only constants of their kind (typed Any)


def return_type(schema):
    rets = [_ret(r.type) for r in schema.returns]
    if not rets:
        return T.NONE
    return rets[0] if len(rets) == 1 else T.Tuple(rets)


def _ret(t):
    if t.endswith("[]"):
        return T.List(_ret(t[:-2]))
    if t.endswith("?"):
        return T.Optional(_ret(t[:-1]))
    return {"Tensor": T.TENSOR, "int": T.INT, "SymInt": T.INT, "float": T.FLOAT, "bool": T.BOOL, "str": T.STR,
            "Scalar": T.NUMBER, "ScalarType": T.DTYPE}.get(t, T.ANY)


def bind(schema, args, kwargs):
    bound = _bind(schema, args, kwargs)
    if bound is not None:
        return bound
    # As PyTorch: an int list that is the last positional argument also takes varargs (zeros(2, 3), x.view(2, 3)).
    positional = [a for a in schema.arguments if not a.kwarg_only]
    k = len(positional) - 1
    if k >= 0 and positional[k].type.split("[")[0] in ("int", "SymInt") and positional[k].type.endswith("]") \
            and len(args) > k and all(a.type.kind == "int" for a in args[k:]):
        from torchlite.jit._script.values import SV
        packed = SV(T.Tuple([T.INT] * (len(args) - k)), items=list(args[k:]))
        if all(a.is_const for a in args[k:]):
            packed = SV(T.Tuple([T.INT] * (len(args) - k)), const=tuple(a.const for a in args[k:]))
        return _bind(schema, list(args[:k]) + [packed], kwargs)
    return None


def _bind(schema, args, kwargs):
    """[(schema argument, SV or ('default', value))] in schema order, or None when the call does
    not fit this overload (arity, names, types)."""
    params = list(schema.arguments)
    positional = [a for a in params if not a.kwarg_only]
    if len(args) > len(positional):
        return None
    if any(a.alias_info is not None and a.alias_info.is_write and a.name not in kwargs and a.name != "self"
           for a in params):
        return None  # out= overloads only when out= is given
    bound = {}
    for a, sv in zip(positional, args):
        bound[a.name] = sv
    for name, sv in kwargs.items():
        if name in bound or not any(a.name == name for a in params):
            return None
        bound[name] = sv
    out = []
    for a in params:
        if a.name in bound:
            sv = bound[a.name]
            empty = sv.is_const and isinstance(sv.const, (list, tuple)) and not sv.const and "[" in a.type
            if not empty and not accepts(a.type, sv.type):  # an empty constant list fits any list type
                return None
            out.append((a, sv))
        elif a.default_value is not None:
            out.append((a, ("default", default_value(a.default_value))))
        else:
            return None
    return out


def describe(name, args, kwargs):
    parts = [repr(a.type) for a in args] + [f"{k}={v.type!r}" for k, v in kwargs.items()]
    lines = [f"Arguments for call are not valid.\nThe following variants are available for aten::{name} "
             f"(called with ({', '.join(parts)})):"]
    for s in schemas(name):
        lines.append(f"  {s}")
    return "\n".join(lines)
