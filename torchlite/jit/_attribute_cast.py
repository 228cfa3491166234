"""`scripted.count = v` from Python on an attribute compiled code assigns: the value cast to the attribute's
static type as torch casts it (its toIValue, through pybind11's casters), or torch's RuntimeError
"Could not cast attribute 'count' to type int: <why>". What torch takes:

- int: any number but a float (`True` -> 1, a one-element tensor -> int(t)); float: any number (`True` -> 1.0,
  `tensor(2.5)` -> 2.5); bool: anything with a truth value of its own (`1.5` -> True, None -> False; not a str or
  a list); str: a str, or bytes (decoded);
- Tensor: a tensor ("Unable to cast 1 to Tensor", the value's str()); Optional[T]: None, or T's cast;
- List[T]: a list or tuple, each element cast (a failure names the container's class, as pybind's list caster);
  Tuple[...]: a tuple or list of the right length, a failure naming the element's class; Dict[K, V]: a dict (an
  empty list for an empty dict), a failure naming the key's or value's class.

torch's words for a failure of pybind's casters are kept ("Unable to cast Python instance of type <class
'float'> to C++ type '?' ..."). Other types (Union, Any) take the value as it is. Instances of TorchScript
classes are _object_attributes.py's."""
from __future__ import annotations

import torchlite as _tl

_PYBIND_TAIL = "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"


class _CastError(Exception):
    pass


def _pybind_fail(value):
    raise _CastError(f"Unable to cast Python instance of type {type(value)!r} to C++ type '?' {_PYBIND_TAIL}")


def _is_number(v) -> bool:  # CPython's PyNumber_Check: int(), float() or an index of its own
    t = type(v)
    return any(hasattr(t, m) for m in ("__index__", "__int__", "__float__")) and not isinstance(v, (str, bytes))


def _int(v):
    if isinstance(v, float) or not _is_number(v):
        _pybind_fail(v)
    try:
        return int(v.__index__()) if hasattr(type(v), "__index__") and not isinstance(v, _tl.Tensor) else int(v)
    except Exception:
        _pybind_fail(v)


def _float(v):
    if not _is_number(v):
        _pybind_fail(v)
    try:
        return float(v)
    except Exception:
        _pybind_fail(v)


def _bool(v):
    if v is None:
        return False
    if isinstance(v, bool):
        return v
    if not hasattr(type(v), "__bool__"):  # pybind's bool caster reads nb_bool only (a str or list has none)
        _pybind_fail(v)
    try:
        return bool(v)
    except Exception:
        _pybind_fail(v)


def _str(v):
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode()
    _pybind_fail(v)


def _tensor(v):
    if not isinstance(v, _tl.Tensor):
        raise _CastError(f"Unable to cast {v} to Tensor")
    return v


_LEAVES = {"int": _int, "float": _float, "bool": _bool, "str": _str, "Tensor": _tensor}


def _cast(value, t):
    k = t.kind
    if k in _LEAVES:
        return _LEAVES[k](value)
    if k == "Optional":
        return None if value is None else _cast(value, t.elems[0])
    if k == "List":
        if not isinstance(value, (list, tuple)):
            _pybind_fail(value)
        try:
            return [_cast(v, t.elems[0]) for v in value]
        except _CastError:
            _pybind_fail(value)
    if k == "Tuple":
        if not isinstance(value, (list, tuple)) or len(value) != len(t.elems):
            _pybind_fail(value)
        out = tuple(_cast(v, e) for v, e in zip(value, t.elems))
        return t.cls(*out) if t.cls is not None else out
    if k == "Dict":
        if type(value) is list and not value:
            return {}
        if not isinstance(value, dict):
            _pybind_fail(value)
        return {_cast(a, t.elems[0]): _cast(v, t.elems[1]) for a, v in value.items()}
    return value


def cast_attribute(name, t, value):
    """value as attribute `name` of static type t holds it (see the module's docstring), or torch's error."""
    from torchlite.jit._script import _py_type_str

    try:
        return _cast(value, t)
    except _CastError as e:
        raise RuntimeError(f"Could not cast attribute '{name}' to type {_py_type_str(t)}: {e}") from None


# `scripted.sub.count = v`: a submodule of a scripted module is the plain copy of the user's class (the scripted
# module's own __setattr__ casts only its own attributes). So each submodule copy with attributes compiled code
# assigns becomes an instance of a subclass (made once per class and attributes; the class's name, module and
# qualified name kept) with a property per attribute: reads give the value, writes cast it as above.
_checked = {}


def check_submodules(root, attrs):
    """Gives the submodules of `root` (a scripted module's copy) with assigned attributes (attrs: AttributeState)
    their casting subclass; attributes holding TorchScript class instances are _object_attributes.py's."""
    from torchlite.jit import _object_attributes

    by_module = {}
    for (mid, name), t in attrs.types.items():
        m = attrs.modules.get(mid)
        if m is None or m is root or _object_attributes.type_of(m, name) is not None:
            continue
        by_module.setdefault(mid, (m, {}))[1][name] = t
    for m, types in by_module.values():
        have = type(m).__dict__.get("_jit_attribute_types", {})
        if any(repr(have.get(n)) != repr(t) for n, t in types.items()):
            m.__class__ = _casting(type(m), {**have, **types})


def _casting(cls, types):
    base = cls.__dict__.get("_jit_attribute_base", cls)
    key = (base, tuple(sorted((n, repr(t)) for n, t in types.items())))
    view = _checked.get(key)
    if view is None:
        def prop(name):
            def get(self):
                try:
                    return self.__dict__[name]
                except KeyError:
                    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'") from None

            def set_(self, value):
                self.__dict__[name] = cast_attribute(name, type(self)._jit_attribute_types[name], value)
            return property(get, set_)
        ns = {n: prop(n) for n in types}
        ns.update(__module__=base.__module__, __qualname__=base.__qualname__, _jit_attribute_types=dict(types),
                  _jit_attribute_base=base)
        view = _checked[key] = type(base.__name__, (base,), ns)
    return view
