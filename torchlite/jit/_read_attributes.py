"""`scripted.threshold = 0.7` (or `scripted.sub.scale = 2`) from Python on an attribute that compiled code only
reads: a plain int/float/bool/str/tuple/list/dict attribute, which script folds as a constant of the compilation.

torch reads such attributes at run time, so the next call sees the new value. Here the set casts the value as torch
does (the attribute's type is its class annotation, or the type of its value at scripting time; torch's "Could not
cast attribute ..." otherwise) and makes the attribute a run-time one from then on, as if compiled code assigned it
(_script/attributes.py: read with prim::GetAttr, copied into the interpreter's module object on each call): the
module's methods are compiled again once, at the set, and later sets cost only the cast. Only attributes set from
Python pay this: reading every attribute at run time from the start would make every attribute of every module (a
Linear's `in_features`...) state to copy into the interpreter on each call and lose the constant folding of shapes
and flags. An attribute whose type the module object cannot carry (a dtype, an enum), or whose run-time read does
not compile, stays a constant: the set drops the compiled methods and the next call compiles them with the new
value, through the concrete-type cache (whose key holds the attributes' values).

A `Final` or `__constants__` attribute raises torch's "Can't set constant 'c' which has value:4". A value script has
no type for (an empty list, a function) is stored as it is, as torch stores its "failed" attributes on the Python
object (the next compilation reads it)."""
from __future__ import annotations

import math
import weakref

# a scripted module's submodule copy -> weakref to the ScriptedModule compiling it (whose methods a set drops)
_owners = weakref.WeakKeyDictionary()


def watch(module, scripted):
    """Records that `module` (a submodule of scripted's copied tree) is compiled by `scripted`."""
    _owners[module] = weakref.ref(scripted)


def read_names(module, attrs):
    """Names of `module`'s plain attributes that compiled code reads but never assigns (attrs: AttributeState)."""
    from torchlite.jit import _object_attributes

    return tuple(sorted(n for n, v in module.__dict__.items()
                        if not n.startswith("_") and n != "training" and attrs.type_of(module, n) is None
                        and _object_attributes.type_of(module, n) is None))


def _constant_str(v) -> str:
    """A value as torch prints an IValue (its message for a constant): `2.` for an integral float, 17 digits else,
    strings unquoted, tuples and lists by their elements."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and abs(v) < 1e10 and float(int(v)) == v:
            return ("-" if v == 0 and math.copysign(1, v) < 0 else "") + f"{int(v)}."
        return format(v, ".17g")
    if isinstance(v, tuple):
        items = [_constant_str(x) for x in v]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_constant_str(x) for x in v) + "]"
    return str(v)


def record(module, names):
    """Fixes the types of `module`'s read attributes `names` from their values now (at scripting time, as torch
    types its attributes once): a later set casts to these, whatever the value set before."""
    table = _types.get(module)
    if table is None:
        table = _types[module] = {}
    for name in names:
        if name not in table:
            table[name] = _type_of(module, name)


_types = weakref.WeakKeyDictionary()  # module -> {name: static type, or None when script has none}


def _type_of(module, name):
    from torchlite.jit._script import types as T
    from torchlite.jit._script.attributes import declared_type

    try:
        t = declared_type(module, name, _refuse)
    except Exception:  # an annotation script cannot read: torch fails to type it too, and stores the value
        return None
    if t is None or not isinstance(t, T.T) or t.kind in ("Module", "Any", "None"):
        return None
    return t


def cast(module, name, value):
    """value as attribute `name` of `module` takes it (cast to the attribute's type), or torch's error."""
    from torchlite.jit._attribute_cast import cast_attribute
    from torchlite.jit._script.attributes import is_final

    if is_final(module, name):
        raise RuntimeError(f"Can't set constant '{name}' which has value:{_constant_str(module.__dict__[name])}")
    table = _types.get(module) or {}
    t = table[name] if name in table else _type_of(module, name)
    return value if t is None else cast_attribute(name, t, value)


def _refuse(msg):
    raise ValueError(msg)


_RUNTIME_KINDS = frozenset(("int", "float", "bool", "str", "Tensor", "List", "Dict", "Tuple", "Optional"))


def _runtime_type(t) -> bool:
    return t.kind in _RUNTIME_KINDS and all(_runtime_type(e) for e in t.elems)


def set_read_attribute(module, name, value, scripted=None):
    """Casts and stores the value; the scripted module compiling `module` then reads the attribute at run time
    from its next call on (its methods are compiled again once, so later sets cost only the cast), or, when the
    attribute's type is not one the module object carries (or compiling so fails), compiles with the new value."""
    module.__dict__[name] = cast(module, name, value)
    if scripted is None:
        ref = _owners.get(module)
        scripted = ref() if ref is not None else None
    if scripted is None:
        return
    t = (_types.get(module) or {}).get(name)
    if t is not None and _runtime_type(t):
        scripted._read_at_run_time(module, name, t)
    else:
        scripted._drop_compiled()
