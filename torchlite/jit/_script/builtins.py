"""Python builtins in script (len, int, float, bool, min, max, list, tuple, isinstance, hasattr,
getattr; range and enumerate only as a for loop's iterable): folded on constants, else prim:: ops."""
from __future__ import annotations

import math

import torchlite as _tl
from torchlite.jit._script import types as T
from torchlite.jit._script.values import SV, const_sv


def _convert(kind, t, pyf):
    def conv(c, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise c.error(node, f"{pyf.__name__}() takes one argument")
        (x,) = args
        if x.is_const and not isinstance(x.const, _tl.Tensor):
            try:
                return SV(t, const=pyf(x.const))
            except (TypeError, ValueError) as e:
                raise c.error(node, str(e))
        if x.type is None or x.type.kind not in ("Tensor", "int", "float", "bool", "Number"):
            raise c.error(node, f"{pyf.__name__}() cannot convert a value of type {x.type}")
        return SV(t, value=c.insert(kind, [c.value(x, node)], [t]).output())
    return conv


def _minmax(kind, pyf):
    def mm(c, args, kwargs, node):
        if len(args) != 2:
            raise c.error(node, f"{pyf.__name__}() takes two numbers in script")
        a, b = args
        if a.is_const and b.is_const:
            return const_sv(pyf(a.const, b.const))
        if any(x.type is None or x.type.kind not in ("int", "float") for x in args):
            if any(x.type is not None and x.type.kind == "Tensor" for x in args):
                return c.call_op("maximum" if pyf is max else "minimum", args, {}, node)
            raise c.error(node, f"{pyf.__name__}() takes numbers, got {a.type} and {b.type}")
        t = T.FLOAT if T.FLOAT in (a.type, b.type) else T.INT
        return SV(t, value=c.insert(kind, [c.value(a, node), c.value(b, node)], [t]).output())
    return mm


def _range(c, args, kwargs, node):
    raise c.unsupported(node, "range() can only be used as the iterable of a for loop")


def _list(c, args, kwargs, node):
    if len(args) != 1:
        raise c.error(node, "list() takes one argument in script")
    (x,) = args
    if x.is_const and isinstance(x.const, (list, tuple)):
        return SV(T.of_value(list(x.const)) or T.ANY, const=list(x.const))
    t = x.type.kind if x.type is not None else None
    if t == "List":
        return SV(x.type, value=c.insert("prim::list_copy", [c.value(x, node)], [x.type]).output())
    if t == "Tuple" and x.type.elems and all(e == x.type.elems[0] for e in x.type.elems):
        lt = T.List(x.type.elems[0])
        items = c.static_items(x, node)
        return SV(lt, value=c.insert("prim::ListConstruct", [c.value(i, node) for i in items], [lt]).output())
    raise c.error(node, f"list() of a {x.type} is not supported in script")


def _tuple(c, args, kwargs, node):
    if len(args) != 1:
        raise c.error(node, "tuple() takes one argument in script")
    (x,) = args
    if x.is_const and isinstance(x.const, (list, tuple)):
        return const_sv(tuple(x.const))
    t = x.type.kind if x.type is not None else None
    if x.items is not None or t == "Tuple":
        items = c.static_items(x, node)
        return SV(T.Tuple([i.type for i in items]), items=items)
    raise c.error(node, f"tuple() of a {x.type} is not supported in script (its length is not static)")


def _isinstance(c, args, kwargs, node):
    obj, cls = args

    def classes(sv):
        if sv.items is not None:
            return tuple(k for i in sv.items for k in classes(i))
        if sv.fn is not None:
            return (sv.fn,)
        if sv.is_const:
            return sv.const if isinstance(sv.const, tuple) else (sv.const,)
        raise c.error(node, "isinstance() needs a type")
    kinds = classes(cls)
    if obj.is_const:
        return SV(T.BOOL, const=isinstance(obj.const, kinds))
    if obj.type is None:
        raise c.error(node, "isinstance() needs a value")
    names = {"Tensor": (_tl.Tensor,), "int": (int,), "float": (float,), "bool": (bool, int), "str": (str,),
             "List": (list,), "Tuple": (tuple,), "Dict": (dict,), "None": (type(None),)}
    return SV(T.BOOL, const=any(k in names.get(obj.type.kind, ()) for k in kinds))


def _hasattr(c, args, kwargs, node):
    obj, name = args
    if not (name.is_const and isinstance(name.const, str)):
        raise c.error(node, "hasattr() takes a constant attribute name in script")
    if obj.module is not None:
        m = obj.module
        return SV(T.BOOL, const=name.const in m._parameters or name.const in m._buffers or
                  name.const in m._modules or hasattr(m, name.const))
    if obj.is_const:
        return SV(T.BOOL, const=hasattr(obj.const, name.const))
    raise c.error(node, "hasattr() takes a module or a Python object in script")


def _getattr(c, args, kwargs, node):
    if len(args) != 2 or not (args[1].is_const and isinstance(args[1].const, str)):
        raise c.error(node, "getattr() takes an object and a constant attribute name in script")
    return c.attribute(args[0], args[1].const, node)


def _unsupported_builtin(name):
    def f(c, args, kwargs, node):
        raise c.unsupported(node, f"Python builtin {name}() is currently not supported in script")
    return f


BUILTINS = {len: lambda c, a, k, n: c.builtin_len(a, n), int: _convert("prim::Int", T.INT, int),
             float: _convert("prim::Float", T.FLOAT, float), bool: _convert("prim::Bool", T.BOOL, bool),
             min: _minmax("prim::min", min), max: _minmax("prim::max", max), range: _range, list: _list, tuple: _tuple,
             isinstance: _isinstance, print: _unsupported_builtin("print"), enumerate: _unsupported_builtin("enumerate"),
             zip: _unsupported_builtin("zip"), getattr: _getattr, hasattr: _hasattr,
             math.sqrt: _unsupported_builtin("math.sqrt")}
