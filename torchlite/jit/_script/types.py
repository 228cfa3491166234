"""The script compiler's static types (TorchScript's: Tensor, int, float, bool, str, None,
Optional[T], List[T], Tuple[...], Dict[K, V], module objects), read from Python annotations, and
their IR types (torchlite._C._jit.Type) for the graph's values."""
from __future__ import annotations

import enum as _enum
import types as _pytypes
import typing

import torchlite as _tl
from torchlite._C import _jit


class T:
    """A static type: `kind` ('Tensor', 'int', 'float', 'bool', 'str', 'None', 'Number', 'Device',
    'dtype', 'Optional', 'Union', 'List', 'Tuple', 'Dict', 'Module', 'Object', 'Enum', 'Any'), `elems` for containers
    and a Union's members, `module`
    (the nn.Module instance) for a module object, `cls` (the typing.NamedTuple class) for a named tuple (a
    'Tuple' whose elements are its fields) or the class of an 'Object' (a TorchScript class's instance)."""
    __slots__ = ("kind", "elems", "module", "cls")

    def __init__(self, kind, elems=(), module=None, cls=None):
        self.kind, self.elems, self.module, self.cls = kind, tuple(elems), module, cls

    def __eq__(self, other):
        return (isinstance(other, T) and self.kind == other.kind and self.elems == other.elems
                and self.module is other.module and self.cls is other.cls)

    def __hash__(self):
        return hash((self.kind, self.elems))

    def __repr__(self):
        if self.kind == "Module":
            return f"__torch__.{type(self.module).__qualname__}"
        if self.kind == "Enum":
            return f"Enum<{class_name(self.cls)}>"
        if self.kind == "Union":  # torch's annotation_str: Union[Tensor, int, NoneType]
            return f"Union[{', '.join('NoneType' if e.kind == 'None' else repr(e) for e in self.elems)}]"
        if self.cls is not None:
            return class_name(self.cls)
        if self.kind == "Tuple":
            return f"Tuple[{', '.join(map(repr, self.elems))}]"
        if self.elems:
            return f"{self.kind}[{', '.join(map(repr, self.elems))}]"
        if self.kind == "Number":  # torch's annotation_str of its NumberType (schemas say Scalar)
            return "number"
        return self.kind


TENSOR, INT, FLOAT, BOOL, STR, NONE, NUMBER, ANY = (T(k) for k in ("Tensor", "int", "float", "bool", "str", "None",
                                                                      "Number", "Any"))
DTYPE, DEVICE = T("dtype"), T("Device")


def Optional(t):
    if t.kind == "Union":
        return Union([t, NONE])
    return t if t.kind in ("Optional", "None") else T("Optional", [t])


# torch's TypeKind order, in which a Union lists its members (Union[int, Tensor] is `Union(Tensor, int)`)
_UNION_ORDER = {k: i for i, k in enumerate(("Enum", "Tensor", "Tuple", "List", "Dict", "Number", "float", "int",
                                            "dtype", "None", "str", "bool", "Device", "Object", "Module"))}


def Union(members):
    """typing.Union as torch types it: nested Unions and Optionals flattened, duplicates dropped, members in
    torch's kind order; one member is that type, a member and None is Optional[member]."""
    flat = []
    for m in members:
        for e in (m.elems if m.kind == "Union" else (m.elems[0], NONE) if m.kind == "Optional" else (m,)):
            if e not in flat:
                flat.append(e)
    if any(e.kind == "Any" for e in flat):
        return ANY
    flat.sort(key=lambda e: _UNION_ORDER.get(e.kind, len(_UNION_ORDER)))
    if len(flat) == 1:
        return flat[0]
    if len(flat) == 2 and NONE in flat:
        return T("Optional", [flat[0] if flat[1] == NONE else flat[1]])
    return T("Union", flat)


def is_number_union(t) -> bool:
    """Union[int, float] (torch's Scalar in all but name): arithmetic, comparisons and Scalar arguments take it as a
    Number (bool is not a member of torch's Number, so Union[int, bool] is not one)."""
    return t is not None and t.kind == "Union" and all(e.kind in ("int", "float") for e in t.elems)


def members(t):
    """The types a value of static type t may have at run time (a Union's members, an Optional's and None)."""
    if t.kind == "Union":
        return list(t.elems)
    if t.kind == "Optional":
        return [t.elems[0], NONE]
    return [t]


def List(t):
    return T("List", [t])


def Tuple(ts):
    return T("Tuple", ts)


def Dict(k, v):
    return T("Dict", [k, v])


DICT_KEYS = ("str", "int", "float", "bool", "Tensor", "Device")  # torch's (less complex): a Tensor key by identity


def check_key(key, where):
    """torch's refusal of a dict key type other than int, float, complex, Tensor, device, string (and bool)."""
    if key is None or key.kind not in DICT_KEYS:
        where(f"Cannot create dict for key type '{schema_str(key)}', only int, float, complex, Tensor, device and "
              "string keys are supported")


def schema_str(t) -> str:
    """A static type as torch spells it in schema messages (int[], Tensor?)."""
    if t is None:
        return "Any"
    if t.kind == "List":
        return schema_str(t.elems[0]) + "[]"
    if t.kind == "Optional":
        return schema_str(t.elems[0]) + "?"
    return repr(t)


def is_enum_class(c) -> bool:
    return isinstance(c, type) and issubclass(c, _enum.Enum)


def Enum(cls, where):
    """The static type of an Enum class: its values' type is the IR's (torch requires one type for all of them:
    int, float or str); a value runs as its `.value`, the class is known statically."""
    kinds = {type(m.value) for m in cls}
    vt = {int: INT, float: FLOAT, str: STR}.get(next(iter(kinds))) if len(kinds) == 1 else None
    if vt is None:
        where(f"Enum {cls.__qualname__}: all values must be of one type, int, float or str (got "
              f"{', '.join(sorted(k.__name__ for k in kinds)) or 'no values'})")
    return T("Enum", [vt], cls=cls)


def is_namedtuple_class(c) -> bool:
    return isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields")


def class_name(cls) -> str:
    """A class's TorchScript name: `__torch__.` and its module path (none for `__main__`), as torch names it."""
    path = cls.__qualname__ if cls.__module__ == "__main__" else f"{cls.__module__}.{cls.__qualname__}"
    return "__torch__." + path


def NamedTuple(cls, where):
    """The static type of a NamedTuple class: a tuple of its fields' types (unannotated fields are Tensors,
    as torch types a collections.namedtuple)."""
    hints = getattr(cls, "__annotations__", {})
    if hints:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:
            pass
    elems = [from_annotation(hints[f], where) if f in hints else TENSOR for f in cls._fields]
    from torchlite.jit import _named_tuple
    _named_tuple.register(class_name(cls), cls)  # a module loaded in this process gives this class back
    return T("Tuple", elems, cls=cls)


def is_subtype(have: T, want: T) -> bool:
    if want.kind == "Any" or have == want:
        return True
    if have.kind == "Union" or (have.kind == "Optional" and want.kind == "Union"):
        return all(is_subtype(m, want) for m in members(have))
    if want.kind == "Union":
        return any(is_subtype(have, m) for m in want.elems)
    if want.kind == "Optional":
        return have.kind == "None" or is_subtype(have, want.elems[0]) or (
            have.kind == "Optional" and is_subtype(have.elems[0], want.elems[0]))
    if want.kind == "Number":
        return have.kind in ("int", "float", "bool", "Number")
    if want.kind == "Tuple" and have.kind == "Tuple":
        if want.cls is not None and have.cls is not want.cls:
            return False  # a named tuple is a tuple, not the other way round
        return len(have.elems) == len(want.elems) and all(map(is_subtype, have.elems, want.elems))
    return False


def unify(a: T, b: T):
    """The type both a and b are (at an if's join), or None: T and None give Optional[T]."""
    if is_subtype(a, b):
        return b
    if is_subtype(b, a):
        return a
    if a.kind == "None":
        return Optional(b)
    if b.kind == "None":
        return Optional(a)
    if a.kind == "Tuple" and b.kind == "Tuple" and len(a.elems) == len(b.elems) and a.cls is b.cls:
        elems = [unify(x, y) for x, y in zip(a.elems, b.elems)]
        return None if None in elems else Tuple(elems)
    return None


def ir_type(t: T):
    """The IR type of a value of static type t (dicts, numbers and modules as Any/Object)."""
    k = t.kind
    if k in ("Tensor", "int", "float", "bool", "str"):
        return _jit.Type.parse(k)
    if k == "None":
        return _jit.Type.parse("NoneType")
    if k == "Number":
        return _jit.Type.parse("Scalar")
    if k == "dtype":
        return _jit.Type.parse("ScalarType")
    if k == "Device":
        return _jit.Type.parse("Device")
    if k == "Optional" and t.elems[0].kind in ("Dict", "Object"):  # (Dict(str, int)?, __torch__.Acc?)
        return _jit.Type.optional(ir_type(t.elems[0]))
    if k == "Union":  # printed Union(Tensor, int); Any to the interpreter and archives
        return _jit.Type.union([_jit.Type.none() if e.kind == "None" else ir_type(e) for e in t.elems])
    if k == "Dict":  # printed Dict(K, V); Any to the interpreter and archives
        return _jit.Type.dict(ir_type(t.elems[0]), ir_type(t.elems[1]))
    if k == "Optional":  # T? where the IR spells it (int[]? too); otherwise Any? (a loaded module fills None)
        spelled = str(ir_type(t.elems[0])) + "?"
        try:
            parsed = _jit.Type.parse(spelled)
        except Exception:
            parsed = None
        return parsed if parsed is not None and str(parsed) == spelled else _jit.Type.parse("Any?")
    if k == "List":
        return _jit.Type.list(ir_type(t.elems[0]))
    if k == "Tuple":
        if t.cls is not None:
            return _jit.Type.named_tuple(class_name(t.cls), list(t.cls._fields), [ir_type(e) for e in t.elems])
        return _jit.Type.tuple([ir_type(e) for e in t.elems])
    if k == "Module":
        from torchlite.jit._trace import _module_type_name
        return _jit.Type.object(_module_type_name(t.module))
    if k == "Enum":  # a member runs as its value
        return ir_type(t.elems[0])
    if k == "Object":  # an instance of a TorchScript class
        return _jit.Type.object(class_name(t.cls))
    return _jit.Type.parse("Any")


def from_annotation(ann, where):
    """The static type of a Python annotation (typing.List[int], list[int], Optional[Tensor], ...);
    raises where(message) for one script does not take."""
    if ann is None:
        return NONE
    if ann is _tl.Tensor or ann is _tl.nn.Parameter:
        return TENSOR
    simple = {int: INT, float: FLOAT, bool: BOOL, str: STR, type(None): NONE, _tl.dtype: DTYPE,
              _tl.device: DEVICE}
    if ann in simple:
        return simple[ann]
    if is_namedtuple_class(ann):
        return NamedTuple(ann, where)
    if is_enum_class(ann):
        return Enum(ann, where)
    from torchlite.jit._script.classes import is_script_class
    if is_script_class(ann):
        return T("Object", cls=ann)
    if ann is typing.Any:
        return ANY
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (typing.Union, _pytypes.UnionType):  # Optional[X], Union[int, Tensor], `int | None`
        return Union([from_annotation(a, where) for a in args])
    if origin is list and len(args) == 1:
        return List(from_annotation(args[0], where))
    if origin is tuple and args and args[-1] is not Ellipsis:
        return Tuple([from_annotation(a, where) for a in args])
    if origin is dict and len(args) == 2:
        key = from_annotation(args[0], where)
        check_key(key, where)
        return Dict(key, from_annotation(args[1], where))
    if origin is typing.Final or (hasattr(typing, "Final") and origin is getattr(typing, "Final")):
        return from_annotation(args[0], where) if args else ANY
    where(f"Unknown type annotation: '{getattr(ann, '__name__', ann)}'")


def of_value(v):
    """The static type of a Python constant (a module attribute or a global)."""
    if v is None:
        return NONE
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return INT
    if isinstance(v, float):
        return FLOAT
    if isinstance(v, str):
        return STR
    if isinstance(v, _tl.Tensor):
        return TENSOR
    if isinstance(v, _tl.dtype):
        return DTYPE
    if isinstance(v, _tl.device):
        return DEVICE
    if isinstance(v, _enum.Enum):
        try:
            return Enum(type(v), _no_type)
        except ValueError:
            return None
    if isinstance(v, tuple):
        elems = [of_value(e) for e in v]
        if None in elems:
            return None
        return T("Tuple", elems, cls=type(v)) if is_namedtuple_class(type(v)) else Tuple(elems)
    if isinstance(v, list):
        elems = [of_value(e) for e in v]
        if None in elems or not elems or any(e != elems[0] for e in elems):
            return None
        return List(elems[0])
    return None


def _no_type(msg):
    raise ValueError(msg)
