"""What a loaded module's method converts at its Python call, read from the archive alone (no class of the model
is needed): dicts, which run as lists of alternating keys and values (their `Dict[K, V]` types are saved since
format version 5), and Enum members, which run as their values (the archive names each Enum class and where it
sits in an argument's or the return's type: aten/jit/Serialization.h, Method::EnumClass), at any depth of
Lists, Dicts, Optionals and tuples, as torch.jit.load's module gives and takes them:

- an argument holding dicts, members or TorchScript class instances is checked against its type as torch checks
  it ("forward() Expected a value of type 'Dict[str, List[Tensor]]' for argument 'd' but instead found type
  'dict'."), then converted; any Enum's member is taken for its value (as torch reads it), an instance of a class
  this process scripted becomes an Object holding its attributes, an Object of the class is passed as it is;
- a result becomes dicts, members (the class when this process has it: _enum_archive.find_class; else torch's
  RuntimeError "Unknown reference to ScriptClass ..."), named tuples and TorchScript class instances
  (_named_tuple.converter's rules).

A type is a small tree of tuples: ("enum", qualname, members), ("dict", key, value), ("list", elem),
("opt", elem), ("tuple", elems, class name, fields), ("obj", class name), ("leaf", IR type string)."""
from __future__ import annotations

import enum

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._dict_list import DictList, refuse_empty
from torchlite.jit._enum_archive import find_class


def _kind(ir_type) -> str:
    s = str(ir_type)  # (the suffixes first: `Dict(str, int)[]` is a list)
    if s.endswith("[]"):
        return "list"
    if s.endswith("?"):
        return "opt"
    if s.startswith("Dict("):
        return "dict"
    if s.startswith("Union("):
        return "union"
    if s.startswith("(") or s.startswith("NamedTuple("):
        return "tuple"
    if ir_type.class_name() and not ir_type.containedTypes():
        return "obj"
    return "leaf"


def tree(ir_type, enums, path=()):
    """The conversion tree of an IR type; `enums`: {path: (qualname, members)} of this argument or return."""
    k = _kind(ir_type)
    spec = enums.get(path)
    if spec is not None:
        node = ("enum", spec[0], spec[1])
        if k == "opt":  # (a version 4 archive named an Optional[Enum] at its own place)
            return ("opt", node)
        return node
    elems = ir_type.containedTypes()
    if k == "dict":
        return ("dict", tree(elems[0], enums, path + (0,)), tree(elems[1], enums, path + (1,)))
    if k in ("list", "opt"):
        return (k, tree(elems[0], enums, path + (0,)))
    if k == "union":
        return ("union", tuple(tree(e, enums, path + (i,)) for i, e in enumerate(elems)))
    if k == "tuple":
        return ("tuple", tuple(tree(e, enums, path + (i,)) for i, e in enumerate(elems)), ir_type.class_name(),
                tuple(ir_type.fields()))
    if k == "obj":
        return ("obj", ir_type.class_name())
    s = str(ir_type)
    return ("leaf", "Tensor" if ir_type.isTensor() else s)


def _has(node, kinds) -> bool:
    if node[0] in kinds:
        return True
    if node[0] == "dict":
        return _has(node[1], kinds) or _has(node[2], kinds)
    if node[0] in ("list", "opt"):
        return _has(node[1], kinds)
    if node[0] == "tuple":
        return (bool(node[3]) and "named" in kinds) or any(_has(e, kinds) for e in node[1])
    if node[0] == "union":
        return any(_has(e, kinds) for e in node[1])
    return False


def type_str(node, top=True) -> str:
    """The type as torch's argument errors write it: `Enum<__torch__.Color>` alone, `__torch__.Color` inside."""
    k = node[0]
    if k == "enum":
        return f"Enum<{node[1]}>" if top else node[1]
    if k == "dict":
        return f"Dict[{type_str(node[1], False)}, {type_str(node[2], False)}]"
    if k == "list":
        return f"List[{type_str(node[1], False)}]"
    if k == "opt":
        return f"Optional[{type_str(node[1], False)}]"
    if k == "tuple":
        return node[2] if node[3] else f"Tuple[{', '.join(type_str(e, False) for e in node[1])}]"
    if k == "union":
        return f"Union[{', '.join(type_str(e, False) for e in node[1])}]"
    return node[1]


# as torch checks values inside containers: an int (a bool too) is taken for an int, a float or a bool
_LEAF = {"Tensor": lambda v: isinstance(v, _tl.Tensor), "int": lambda v: isinstance(v, int),
         "float": lambda v: isinstance(v, (int, float)), "bool": lambda v: isinstance(v, int),
         "str": lambda v: isinstance(v, str), "NoneType": lambda v: v is None}


def matches(v, node) -> bool:
    """Whether a Python value fits the type (torch's check of an argument that holds dicts or members)."""
    k = node[0]
    if k == "enum":
        return isinstance(v, enum.Enum)
    if k == "opt":
        return v is None or matches(v, node[1])
    if k == "list":
        return isinstance(v, (list, tuple)) and all(matches(x, node[1]) for x in v)
    if k == "dict":  # (an empty list is taken for an empty dict, as torch takes it)
        return isinstance(v, dict) and all(matches(a, node[1]) and matches(b, node[2]) for a, b in v.items()) or \
            (type(v) is list and not v)
    if k == "tuple":
        return isinstance(v, tuple) and len(v) == len(node[1]) and all(map(matches, v, node[1]))
    if k == "union":
        return any(fits(v, m) for m in node[1])
    if k == "obj":  # an instance of the class (this process scripted it), or the interpreter's Object of it
        return _class_name_of(v) == node[1]
    check = _LEAF.get(node[1]) if k == "leaf" else None
    return check is None or check(v)


# a Union's members are told apart exactly, as torch's: an int is not a float member, a bool not an int member
_EXACT = {"Tensor": lambda v: isinstance(v, _tl.Tensor), "int": lambda v: type(v) is not bool and isinstance(v, int),
          "float": lambda v: isinstance(v, float), "bool": lambda v: isinstance(v, bool),
          "str": lambda v: isinstance(v, str), "NoneType": lambda v: v is None}


def fits(v, node) -> bool:
    """Whether a Python value is of a Union member's type (what the scripted module's _fits tests)."""
    k = node[0]
    if k == "leaf":
        check = _EXACT.get(node[1])
        return check is None or check(v)
    if k == "list":
        return isinstance(v, list) and all(fits(x, node[1]) for x in v)
    if k == "dict":
        return isinstance(v, dict) and all(fits(a, node[1]) and fits(b, node[2]) for a, b in v.items())
    if k == "tuple":
        return isinstance(v, tuple) and len(v) == len(node[1]) and all(map(fits, v, node[1]))
    if k == "opt":
        return v is None or fits(v, node[1])
    if k == "union":
        return any(fits(v, m) for m in node[1])
    return matches(v, node)


def _class_name_of(v):
    """The TorchScript class name of a script class's instance or of an interpreter Object; None for others."""
    if isinstance(v, _jit.Object):
        return v.type_name
    if type(v).__dict__.get("_torchlite_script_class", False):  # (classes.is_script_class)
        from torchlite.jit._script.types import class_name
        return class_name(type(v))
    return None


def to_graph(v, node):
    """A (checked) Python value in the graph's form: dicts as alternating lists, members as their values."""
    k = node[0]
    if v is None:
        return None
    if k == "enum":
        return v.value
    if k == "opt":
        return to_graph(v, node[1])
    if k == "dict":
        to_float = node[1] == ("leaf", "float")
        flat = DictList()  # (marked as a dict in the interpreter: _dict_list.py)
        # (an int key of a Dict[float, V] becomes a float, as torch converts it)
        for a, b in (v.items() if isinstance(v, dict) else ()):
            flat += [float(a) if to_float and type(a) is int else to_graph(a, node[1]), to_graph(b, node[2])]
        return flat
    if k == "list":
        return [to_graph(x, node[1]) for x in v]
    if k == "tuple":
        items = tuple(to_graph(x, e) for x, e in zip(v, node[1]))
        if node[3]:  # a named tuple: an instance of its class, so that it enters the graph tagged with it
            from torchlite.jit._named_tuple import class_for
            return class_for(node[2], node[3])(*items)
        return items
    if k == "union":  # converted as its own named-tuple class, or the first member it fits, as a scripted module
        mark = type(v).__dict__.get("_torchlite_jit_name") or _class_name(type(v))
        member = next((m for m in node[1] if m[0] == "tuple" and m[3] and m[2] == mark), None) if mark else None
        member = member or next((m for m in node[1] if fits(v, m)), None)
        return v if member is None else to_graph(v, member)
    if k == "leaf" and node[1] == "float" and type(v) is int:
        return float(v)
    if k == "obj" and not isinstance(v, _jit.Object):  # a Python instance: an Object holding its attributes
        from torchlite.jit._script import _object_in, classes
        return _object_in(v, classes.object_type(type(v)))
    return v


def _class_name(cls):
    """A NamedTuple class's TorchScript name (one this process has not compiled: a fresh process's), else None."""
    from torchlite.jit._script import types as T
    return T.class_name(cls) if T.is_namedtuple_class(cls) else None


def from_graph(v, node):
    """A graph value as Python gets it from torch.jit.load's module."""
    k = node[0]
    if v is None:
        return None
    if k == "enum":
        cls = find_class(node[1], node[2])
        if cls is None:
            raise RuntimeError(f"Unknown reference to ScriptClass {node[1]}. (Did you forget to import it?)")
        return cls(v)
    if k == "opt":
        return from_graph(v, node[1])
    if k == "dict" and isinstance(v, list):
        return {from_graph(v[i], node[1]): from_graph(v[i + 1], node[2]) for i in range(0, len(v) - 1, 2)}
    if k == "list" and isinstance(v, list):
        return [from_graph(x, node[1]) for x in v]
    if k == "tuple" and isinstance(v, tuple):
        items = [from_graph(x, e) for x, e in zip(v, node[1])]
        if node[3]:
            from torchlite.jit._named_tuple import class_for
            return class_for(node[2], node[3])(*items)
        return tuple(items)
    if k == "union":  # a dict (a list marked as a dict, or any list where no list could be) is the Dict member
        dicts = [m for m in node[1] if m[0] == "dict"]
        lists = [m for m in node[1] if m[0] == "list"]
        if isinstance(v, list) and dicts and (isinstance(v, DictList) or not lists):
            member = next((m for m in dicts if all(matches(v[i], m[1 + i % 2]) for i in range(len(v)))), dicts[0])
            return from_graph(v, member)
        if isinstance(v, list) and lists:
            return from_graph(v, next((m for m in lists if all(matches(x, m[1]) for x in v)), lists[0]))
        tuples = [m for m in node[1] if m[0] == "tuple"]
        if isinstance(v, tuple) and len(tuples) == 1:
            return from_graph(v, tuples[0])
        return v
    if k == "obj":
        from torchlite.jit._script import classes
        conv = classes.converter(node[1])
        return conv(v) if conv is not None else v
    return v


class Signature:
    """Per loaded method: the arguments that hold dicts or members (checked and converted) and the return's
    conversion; None from `of` when the method needs neither."""

    def __init__(self, name, arg_names, args, ret):
        self.name, self.arg_names = name, arg_names
        self.args = args  # {index: tree}
        self.ret = ret  # tree, or None when the result is passed as run_graph gives it

    @staticmethod
    def of(method, name):
        graph = method.graph
        inputs = graph.inputs()[1 if method.takes_self else 0:]
        enums = {}
        for pos, path, qualname, members in method.enums:
            enums.setdefault(pos, {})[tuple(path)] = (qualname, [tuple(m) for m in members])
        args = {}
        if method.arg_names:  # a scripted method (traced graphs take flattened tensors)
            for i, v in enumerate(inputs):
                t = tree(v.type(), enums.get(i, {}))
                if _has(t, ("dict", "enum", "obj", "union")):  # (objects: instances of the class converted)
                    args[i] = t
        outs = graph.outputs()
        ret = tree(outs[0].type(), enums.get(-1, {})) if len(outs) == 1 else None
        if ret is not None and not _has(ret, ("dict", "enum")):
            ret = None  # named tuples and objects only: RecursiveScriptModule._converted gives them
        if not args and ret is None:
            return None
        return Signature(name, list(method.arg_names), args, ret)

    def _in(self, v, i):
        node = self.args[i]
        if node[0] == "union":
            refuse_empty(v)
        if not matches(v, node):
            found = "Tensor" if isinstance(v, _tl.Tensor) else type(v).__name__
            raise RuntimeError(f"{self.name}() Expected a value of type '{type_str(node)}' for argument "
                               f"'{self.arg_names[i]}' but instead found type '{found}'.")
        return to_graph(v, node)

    def inputs(self, args, kwargs):
        args = list(args)
        for i in self.args:
            if i < len(args):
                args[i] = self._in(args[i], i)
            elif kwargs and i < len(self.arg_names) and self.arg_names[i] in kwargs:
                kwargs = dict(kwargs)
                kwargs[self.arg_names[i]] = self._in(kwargs[self.arg_names[i]], i)
        return tuple(args), kwargs

    def output(self, value):
        return value if self.ret is None else from_graph(value, self.ret)
