"""Python builtins in script (len, int, float, bool, min, max, list, tuple, isinstance, hasattr,
getattr, type, all, any, print; warnings.warn, math's functions, torchlite.Size; range, enumerate and zip
only as a for loop's or comprehension's iterable): folded on constants, else prim:: ops."""
from __future__ import annotations

import ast
import math
import numbers
import typing
import warnings

import torchlite as _tl
from torchlite.jit._script import types as T
from torchlite.jit._script.script_str import script_str
from torchlite.jit._script.values import SV, const_sv


def _convert(kind, t, pyf):
    def conv(c, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise c.error(node, f"{pyf.__name__}() takes one argument")
        (x,) = args
        if pyf is not bool:  # int(a), float(a) of a Union[int, float] (torch: aten::Int.Scalar); bool(a) is refused
            x = c.number(x)
        if x.is_const and not isinstance(x.const, _tl.Tensor):
            try:
                return SV(t, const=pyf(x.const))
            except (TypeError, ValueError) as e:
                raise c.error(node, str(e))
        if x.type is not None and x.type.kind == "str" and pyf in (int, float):  # int("12"), float("1.5")
            from torchlite.jit._script import str_methods
            return str_methods.emit(c, pyf.__name__, [x], t, node)
        if x.type is None or x.type.kind not in ("Tensor", "int", "float", "bool", "Number"):
            raise c.error(node, f"{pyf.__name__}() cannot convert a value of type {x.type}")
        return SV(t, value=c.insert(kind, [c.value(x, node)], [t]).output())
    return conv


def _minmax(kind, pyf):
    def mm(c, args, kwargs, node):
        if len(args) != 2:
            return _seq_minmax(c, kind, pyf.__name__, args, kwargs, node)
        a, b = c.number(args[0]), c.number(args[1])
        args = (a, b)
        if a.is_const and b.is_const:
            return const_sv(pyf(a.const, b.const))
        kinds = [x.type.kind if x.type is not None else None for x in args]
        if kinds.count("Tensor") == 1 and any(k in _NUM_KINDS for k in kinds):
            # a tensor and a number: torch converts the tensor to the number's type (its Int/Float/ScalarImplicit)
            num = a if kinds[0] != "Tensor" else b
            conv = _implicit(c, b if num is a else a, num.type, node)
            a, b = (num, conv) if num is a else (conv, num)
            args = (a, b)
        elif any(k not in _NUM_KINDS for k in kinds):
            if "Tensor" in kinds:
                return c.call_op("maximum" if pyf is max else "minimum", args, {}, node)
            raise c.error(node, f"{pyf.__name__}() takes numbers, got {a.type} and {b.type}")
        t = T.FLOAT if T.FLOAT in (a.type, b.type) else T.NUMBER if T.NUMBER in (a.type, b.type) else T.INT
        return SV(t, value=c.insert(kind, [c.value(a, node), c.value(b, node)], [t]).output())
    return mm


_NUM_KINDS = ("int", "float", "Number")


def _seq_minmax(c, kind, name, args, kwargs, node):
    """max(xs) of a List[int/float/bool], and max(a, b, c, ...) of one such type (a list built of them), as torch's
    prim::max.self_int/self_float/self_bool: prim::list_max / list_min; an empty list raises when run."""
    if len(args) == 1 and not kwargs and args[0].type is not None and args[0].type.kind == "List":
        xs, et = args[0], args[0].type.elems[0]
    elif len(args) > 2 and not kwargs and all(a.type is not None for a in args) \
            and len({a.type.kind for a in args}) == 1:
        et = args[0].type
        xs = SV(T.List(et), value=c.insert("prim::ListConstruct", [c.value(a, node) for a in args],
                                           [T.List(et)]).output())
    else:
        raise c.error(node, f"Arguments for call are not valid.\n{name}() takes two numbers, a list of numbers or "
                            f"several values of one type in script, got ({', '.join(str(a.type) for a in args)})")
    if et.kind not in ("int", "float", "bool"):
        raise c.error(node, f"Arguments for call are not valid.\n{name}() of a {xs.type}: torch has it for lists of "
                            "int, float and bool")
    return SV(et, value=c.insert(kind.replace("prim::", "prim::list_"), [c.value(xs, node)], [et]).output())


def _implicit(c, t, want, node):
    """A tensor where a number of type `want` is expected: prim::implicit_num (torch's IntImplicit, FloatImplicit,
    ScalarImplicit: a 0-d tensor's value, else the RuntimeError torch raises when run)."""
    to = {"int": "int", "float": "float"}.get(want.kind, "number")
    out = want if to != "number" else T.NUMBER
    n = c.insert("prim::implicit_num", [c.value(t, node)], [out])
    n.s_("to", to)
    return SV(out, value=n.output())


def _round(c, args, kwargs, node):
    """round(x): a tensor's aten::round; a number's nearest integral value (halves to even) as a float, as torch's
    aten::round.int/float/Scalar (typed float, or Scalar for a Union[int, float]). round(x, n) of a number is
    torch's error (no such overload)."""
    x = c.number(args[0]) if len(args) == 1 and not kwargs else None
    k = x.type.kind if x is not None and x.type is not None else None
    if k not in _NUM_KINDS:
        return c.call_op("round", list(args), dict(kwargs), node)
    if x.is_const and isinstance(x.const, (int, float)) and math.isfinite(x.const):
        return const_sv(float(round(x.const)))
    out = T.NUMBER if k == "Number" else T.FLOAT
    return SV(out, value=c.insert("prim::math", [c.value(x, node)], [out]).s_("fn", "round").output())


def _divmod(c, args, kwargs, node):
    """divmod(a, b) of ints (ints) or of floats and ints (floats), as torch's aten::divmod: prim::divmod (not folded
    here: constant propagation runs the op, whose float quotient is torch's (a - rem) / b, not Python's)."""
    kinds = [a.type.kind if a.type is not None else None for a in args]
    if len(args) != 2 or kwargs or any(k not in ("int", "float") for k in kinds):
        raise c.error(node, "Arguments for call are not valid.\nThe following variants are available:\n  \n"
                            "  aten::divmod.int(int x, int y) -> (int, int):\n  divmod() takes two ints or floats, "
                            f"got ({', '.join(str(a.type) for a in args)})")
    t = T.INT if kinds == ["int", "int"] else T.FLOAT
    n = c.insert("prim::divmod", [c.value(a, node) for a in args], [t, t])
    return SV(T.Tuple([t, t]), items=[SV(t, value=n.outputs()[0]), SV(t, value=n.outputs()[1])])


def _int_base(pyf, base):
    """hex(a) / oct(a) / bin(a) of an int: prim::int_base (torch's aten::hex/oct/bin), folded on constants."""
    def f(c, args, kwargs, node):
        if len(args) != 1 or kwargs or args[0].type is None or args[0].type.kind not in ("int", "bool"):
            got = ", ".join(str(a.type) for a in args)
            raise c.error(node, f"Arguments for call are not valid.\n{pyf.__name__}() takes an int in script, got ({got})")
        if args[0].is_const:
            return SV(T.STR, const=pyf(args[0].const))
        n = c.insert("prim::int_base", [c.value(args[0], node)], [T.STR])
        n.i_("base", base)
        return SV(T.STR, value=n.output())
    return f


def _pow(c, args, kwargs, node):
    """pow(a, b): `a ** b` (numbers: torch's aten::pow.int/float, a float; tensors: aten::pow)."""
    if len(args) != 2 or kwargs:
        return c.call_op("pow", list(args), dict(kwargs), node)  # torch's schema error (no 3-argument pow)
    return c.binop(ast.Pow(), args[0], args[1], node)


def _abs(c, args, kwargs, node):
    """abs(x): a tensor's aten::abs; a number's absolute value of its own type (int, float, or a Union[int, float]'s
    number), as torch's aten::abs.int/float/Scalar."""
    if len(args) != 1 or kwargs:
        raise c.error(node, "abs() takes one argument")
    x = c.number(args[0])
    if x.is_const and isinstance(x.const, (int, float)):
        return const_sv(abs(x.const))
    k = x.type.kind if x.type is not None else None
    if k == "float":
        return SV(T.FLOAT, value=c.insert("prim::math", [c.value(x, node)], [T.FLOAT]).s_("fn", "fabs").output())
    if k in ("int", "Number"):  # x < 0 ? -x : x
        neg = c.compare_op(__import__("ast").Lt(), x, SV(T.INT, const=0), node)
        return c.emit_if(neg, node, lambda e: ("return", e, SV(x.type, value=c.insert(
            "prim::neg", [c.value(x, node)], [x.type]).output())), lambda e: ("return", e, x), {})[2]
    return c.call_op("abs", [args[0]], {}, node)


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
    if t == "List":  # a tuple of run-time length stays a list (a copy), compared with tuples as one
        return SV(x.type, value=c.insert("prim::list_copy", [c.value(x, node)], [x.type]).output())
    raise c.error(node, f"tuple() of a {x.type} is not supported in script")


def _size(c, args, kwargs, node):
    """torchlite.Size(sizes): the list of ints itself (script's sizes are List[int], as TorchScript's)."""
    if len(args) != 1 or kwargs:
        raise c.error(node, "Size() takes one argument in script")
    return _list(c, args, kwargs, node)


_ISINSTANCE_NAMES = {"Tensor": (_tl.Tensor,), "int": (int, numbers.Integral, numbers.Real, numbers.Number),
                     "float": (float, numbers.Real, numbers.Number), "bool": (bool, int, numbers.Integral, numbers.Number),
                     "str": (str,), "List": (list,), "Tuple": (tuple,), "Dict": (dict,), "None": (type(None),),
                     "Device": (_tl.device,)}


def _isinstance_classes(c, cls, node):
    """isinstance's second argument as a tuple: Python classes, and static types for typing's generics
    (`List[int]`, `Dict[str, int]`), which torch tests element types of."""
    if cls.items is not None:
        return tuple(k for i in cls.items for k in _isinstance_classes(c, i, node))
    if cls.fn is not None:
        return (cls.fn,)
    if cls.is_const:
        out = []
        for k in cls.const if isinstance(cls.const, tuple) else (cls.const,):
            if typing.get_origin(k) is not None:
                k = T.from_annotation(k, c.where_at(node))
            out.append(k)
        return tuple(out)
    raise c.error(node, "isinstance() needs a type")


def _member_matches(m, k) -> bool:
    """Whether every value of static type m is an instance of k (a Python class or a static type)."""
    if isinstance(k, T.T):
        return T.is_subtype(m, k)
    if m.cls is not None and m.kind in ("Object", "Enum", "Tuple"):  # a class: known statically
        return isinstance(k, type) and issubclass(m.cls, k)
    return k in _ISINSTANCE_NAMES.get(m.kind, ())


def _class_type(k, c, node):
    """The static type a value is refined to where isinstance(x, k) holds (x of type Any)."""
    if isinstance(k, T.T):
        return k
    simple = {_tl.Tensor: T.TENSOR, int: T.INT, float: T.FLOAT, bool: T.BOOL, str: T.STR, type(None): T.NONE,
              _tl.device: T.DEVICE, list: T.List(T.ANY), tuple: None, dict: None}
    if k in simple and simple[k] is not None:
        return simple[k]
    from torchlite.jit._script.classes import is_script_class
    if is_script_class(k):
        return T.T("Object", cls=k)
    raise c.error(node, f"isinstance() of a value of type Any against {getattr(k, '__name__', k)} is not supported "
                        "in script")


def isinstance_split(c, t, kinds, node):
    """isinstance(x, kinds) for x of static type t: (constant result or None, the type x has where it holds, where
    it does not, the IR type names prim::isinstance tests). A Union or Optional splits into its members; Any is
    tested against the classes."""
    if t.kind == "Any":
        yes = T.Union([_class_type(k, c, node) for k in kinds])
        return None, yes, t, [_tested_name(m) for m in T.members(yes)]
    ms = T.members(t)
    hit = [m for m in ms if any(_member_matches(m, k) for k in kinds)]
    miss = [m for m in ms if m not in hit]
    if not miss or not hit:
        return bool(hit), t if hit else None, t if miss else None, []
    return None, T.Union(hit), T.Union(miss), [_tested_name(m) for m in hit]


def _tested_name(m):
    """What prim::isinstance tests a value against for member m: a named tuple by its class (its values carry the
    class: IValue::named_tuple), anything else by its IR type."""
    if m.kind == "Tuple" and m.cls is not None:
        return T.class_name(m.cls)
    return str(T.ir_type(m))


def _isinstance(c, args, kwargs, node):
    obj, cls = args
    kinds = _isinstance_classes(c, cls, node)
    if obj.is_const:
        if any(isinstance(k, T.T) for k in kinds):
            t = T.of_value(obj.const)
            return SV(T.BOOL, const=t is not None and any(_member_matches(t, k) for k in kinds))
        return SV(T.BOOL, const=isinstance(obj.const, kinds))
    if obj.type is None:
        raise c.error(node, "isinstance() needs a value")
    const, yes, no, names = isinstance_split(c, obj.type, kinds, node)
    if const is not None:
        return SV(T.BOOL, const=const)
    if no is not None and yes is not None and T.NONE in (yes, no) and obj.type.kind == "Optional":
        # known at run time only by whether it is None (refined by the caller's if)
        kind = "prim::is" if yes == T.NONE else "prim::isnot"
        return SV(T.BOOL, value=c.insert(kind, [c.value(obj, node), c.value(SV(T.NONE, const=None), node)],
                                         [T.BOOL]).output())
    n = c.insert("prim::isinstance", [c.value(obj, node)], [T.BOOL])
    n.ival_("types", list(names))
    return SV(T.BOOL, value=n.output())


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
    if len(args) not in (2, 3) or not (args[1].is_const and isinstance(args[1].const, str)):
        raise c.error(node, "getattr() takes an object and a constant attribute name in script")
    if len(args) == 3 and not _hasattr(c, args[:2], {}, node).const:
        return args[2]
    return c.attribute(args[0], args[1].const, node)


_PY_CLASSES = {"Tensor": _tl.Tensor, "int": int, "float": float, "bool": bool, "str": str, "None": type(None),
               "List": list, "Tuple": tuple, "Dict": dict, "dtype": _tl.dtype, "Device": _tl.device}


def _type(c, args, kwargs, node):
    """type(x): the Python class of x's static type, a constant (for messages: f"... {type(x)}")."""
    if len(args) != 1 or kwargs:
        raise c.error(node, "type() takes one argument in script")
    (x,) = args
    if x.is_const:
        return SV(None, const=type(x.const))
    cls = _PY_CLASSES.get(x.type.kind if x.type is not None else None)
    if cls is None:
        raise c.error(node, f"type() of a {x.type} in script")
    return SV(None, const=cls)


def _all_any(pyf):
    """all()/any() of a static sequence (a generator over a tuple, a constant): folded, else and/or of the items."""
    def f(c, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise c.error(node, f"{pyf.__name__}() takes one argument")
        (x,) = args
        if x.is_const and isinstance(x.const, (list, tuple)):
            return SV(T.BOOL, const=pyf(x.const))
        if x.type is not None and x.type.kind == "List" and x.items is None:  # a run-time list: a loop, inlined
            from torchlite.jit._script import sequence_reductions as R
            if x.type.elems[0] != T.BOOL:
                raise c.error(node, f"{pyf.__name__}() takes a List[bool] in script, got {x.type}")
            return c.inline(R.any_list if pyf is any else R.all_list, [x], {}, node)
        if x.items is None and (x.type is None or x.type.kind != "Tuple"):
            raise c.unsupported(node, f"{pyf.__name__}() of a {x.type} (only of static sequences) in script")
        result = SV(T.BOOL, const=pyf is all)
        for item in c.static_items(x, node):
            b = c.truth(item, node)
            if b.is_const:
                if b.const != (pyf is all):
                    return SV(T.BOOL, const=pyf is not all)
                continue
            if result.is_const:
                result = b
            else:
                result = c.emit_if(result, node, (lambda e, b=b: ("return", e, b)) if pyf is all else
                                   (lambda e: ("return", e, SV(T.BOOL, const=True))),
                                   (lambda e: ("return", e, SV(T.BOOL, const=False))) if pyf is all else
                                   (lambda e, b=b: ("return", e, b)), {})[2]
        return result
    return f


def _sum(c, args, kwargs, node):
    """sum(xs) of a list of ints or floats (a run-time loop), or of a static sequence of numbers (folded or added)."""
    if len(args) != 1 or kwargs:
        raise c.error(node, "sum() takes one argument in script")
    (x,) = args
    if x.is_const and isinstance(x.const, (list, tuple)):
        return const_sv(sum(x.const))
    if x.type is not None and x.type.kind == "List" and x.items is None:
        from torchlite.jit._script import sequence_reductions as R
        et = x.type.elems[0].kind
        if et not in ("int", "float"):
            raise c.error(node, f"sum() takes a List[int] or List[float] in script, got {x.type}")
        return c.inline(R.sum_int if et == "int" else R.sum_float, [x], {}, node)
    if x.items is not None or (x.type is not None and x.type.kind == "Tuple"):
        total = SV(T.INT, const=0)
        for item in c.static_items(x, node):
            total = c.binop(__import__("ast").Add(), total, item, node)
        return total
    raise c.error(node, f"sum() of a {x.type} is not supported in script")


def _warn(c, args, kwargs, node):
    """warnings.warn(message, category, stacklevel): prim::warn, a UserWarning when the graph runs (the category
    and stack level are not kept)."""
    if not args:
        raise c.error(node, "warn() takes a message")
    msg = args[0]
    if msg.type is None or msg.type.kind != "str":
        raise c.error(node, f"warn() takes a str message in script, got {msg.type}")
    c.insert("prim::warn", [c.value(msg, node)], [], n_out=0)
    return SV(T.NONE, const=None)


def _math(name, out):
    pyf = getattr(math, name)

    def f(c, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise c.error(node, f"math.{name}() takes one argument")
        x = c.number(args[0])  # a Union[int, float] too, as torch
        if x.is_const:
            try:
                return const_sv(pyf(x.const))
            except (TypeError, ValueError, OverflowError) as e:
                raise c.error(node, f"math.{name}: {e}")
        if x.type is None or x.type.kind not in ("int", "float", "Number", "bool"):
            raise c.error(node, f"math.{name}() takes a number in script, got {x.type}")
        return SV(out, value=c.insert("prim::math", [c.value(x, node)], [out]).s_("fn", name).output())
    return f


def _math2(name, out):
    """math.fmod/copysign/atan2/pow/gcd(a, b) and math.log(x, base): prim::math2 (torch's aten ops on numbers)."""
    pyf = getattr(math, name)
    one = _math(name, out) if name == "log" else None

    def f(c, args, kwargs, node):
        if one is not None and len(args) == 1:
            return one(c, args, kwargs, node)
        if len(args) != 2 or kwargs:
            raise c.error(node, f"math.{name}() takes two arguments")
        a, b = c.number(args[0]), c.number(args[1])
        want = ("int",) if name == "gcd" else ("int", "float", "Number")
        if any(x.type is None or x.type.kind not in want for x in (a, b)):
            raise c.error(node, f"math.{name}() takes {'ints' if name == 'gcd' else 'numbers'} in script, got "
                                f"{a.type} and {b.type}")
        if a.is_const and b.is_const:
            try:
                return const_sv(pyf(a.const, b.const))
            except (ValueError, ZeroDivisionError, OverflowError):
                pass  # the op's own result when run, as torch's
        return SV(out, value=c.insert("prim::math2", [c.value(a, node), c.value(b, node)], [out])
                  .s_("fn", name).output())
    return f


def _math_const(name):
    pyf = getattr(math, name)

    def f(c, args, kwargs, node):
        if not all(a.is_const for a in args) or not all(v.is_const for v in kwargs.values()):
            raise c.unsupported(node, f"math.{name}() of values known only at run time")
        return const_sv(pyf(*[a.const for a in args], **{k: v.const for k, v in kwargs.items()}))
    return f


def _print(c, args, kwargs, node):
    """print(a, b, ...): prim::print, the values' str() joined by spaces on stdout when the graph runs."""
    if kwargs:
        raise c.error(node, "print doesn't accept any keyword arguments")  # torch's (sep=, end=, file=)
    parts = []
    for a in args:
        if a.type is not None and a.type.kind == "Enum":
            a = c.enum_str(a, node)
        if a.is_const and script_str(a.const) is not None:
            parts.append(SV(T.STR, const=script_str(a.const)))
        elif a.type is None:
            raise c.error(node, "print() of a module or function")
        else:
            parts.append(a)
    c.insert("prim::print", [c.value(p, node) for p in parts], [], n_out=0)
    return SV(T.NONE, const=None)


def _unsupported_builtin(name):
    def f(c, args, kwargs, node):
        raise c.unsupported(node, f"Python builtin {name}() is currently not supported in script")
    return f


def _str(c, args, kwargs, node):
    """str(x): the value's Python str (prim::format of one part, as an f-string `f"{x}"`)."""
    if len(args) != 1 or kwargs:
        raise c.error(node, "str() takes one argument in script")
    (x,) = args
    if x.type is not None and x.type.kind == "Enum":
        return c.enum_str(x, node)
    if x.is_const and script_str(x.const) is not None:
        return SV(T.STR, const=script_str(x.const))
    if x.type is None:
        raise c.error(node, "str() needs a value")
    if x.type.kind == "str":
        return x
    return SV(T.STR, value=c.insert("prim::format", [c.value(x, node)], [T.STR]).output())


def _ord_chr(pyf, want, out):
    """ord(c) / chr(i): folded on constants, else prim::str_method (chr of ASCII code points, as torch's)."""
    def f(c, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise c.error(node, f"{pyf.__name__}() takes one argument")
        (x,) = args
        if x.type is None or x.type.kind != want.kind:
            raise c.error(node, f"{pyf.__name__}() expected a {want}, got {x.type}")
        if x.is_const:
            try:
                return SV(out, const=pyf(x.const))
            except (TypeError, ValueError) as e:
                raise c.error(node, str(e))
        from torchlite.jit._script import str_methods
        return str_methods.emit(c, pyf.__name__, [x], out, node)
    return f


BUILTINS = {len: lambda c, a, k, n: c.builtin_len(a, n), int: _convert("prim::Int", T.INT, int),
             float: _convert("prim::Float", T.FLOAT, float), str: _str, bool: _convert("prim::Bool", T.BOOL, bool),
             min: _minmax("prim::min", min), max: _minmax("prim::max", max), range: _range, list: _list, tuple: _tuple,
             isinstance: _isinstance, print: _print, enumerate: _unsupported_builtin("enumerate"),
             zip: _unsupported_builtin("zip"), getattr: _getattr, hasattr: _hasattr,
             type: _type, all: _all_any(all), any: _all_any(any), warnings.warn: _warn, _tl.Size: _size,
             math.sqrt: _math("sqrt", T.FLOAT), math.floor: _math("floor", T.INT), math.ceil: _math("ceil", T.INT),
             math.isinf: _math("isinf", T.BOOL), math.isnan: _math("isnan", T.BOOL),
             math.isfinite: _math("isfinite", T.BOOL), math.exp: _math("exp", T.FLOAT),
             math.log: _math2("log", T.FLOAT), math.fabs: _math("fabs", T.FLOAT), math.prod: _math_const("prod"),
             math.pow: _math2("pow", T.FLOAT), math.fmod: _math2("fmod", T.FLOAT),
             math.copysign: _math2("copysign", T.FLOAT), math.atan2: _math2("atan2", T.FLOAT),
             math.gcd: _math2("gcd", T.INT), math.log10: _math("log10", T.FLOAT),
             math.degrees: _math("degrees", T.FLOAT), math.radians: _math("radians", T.FLOAT),
             sum: _sum, abs: _abs, round: _round, divmod: _divmod, pow: _pow, ord: _ord_chr(ord, T.STR, T.INT),
             chr: _ord_chr(chr, T.INT, T.STR), hex: _int_base(hex, 16), oct: _int_base(oct, 8), bin: _int_base(bin, 2)}
