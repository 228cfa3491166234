"""Module attributes that scripted code assigns (`self.count += 1`, `self.state = x`, `self.sub.flag =
True`): which ones there are and their types, fixed at compile time as TorchScript fixes them.

Script treats a module's non-tensor attributes as constants of the compilation. An attribute that a
compiled method assigns cannot be one: it becomes state, read with prim::GetAttr and written with
prim::SetAttr on the module object. The compiler learns of such an attribute when it reaches the
assignment, possibly after it compiled reads of it as constants, so it then raises `Recompile` and
the module's methods are compiled again with the attribute known (each round adds one, so this
ends). A buffer is already read with prim::GetAttr: assigning one needs no recompilation."""
from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import typing

from torchlite.jit._script import types as T


class Recompile(BaseException):
    """Raised by the compiler when it met an assignment to an attribute it compiled reads of as a
    constant (a BaseException: no `except Exception` on the way may swallow it)."""


def type_name(t) -> str:
    """A static type as torch's messages print it (None is NoneType)."""
    return "NoneType" if t.kind == "None" else repr(t)


def _class_annotations(cls):
    out = {}
    for klass in reversed(cls.__mro__):
        ann = klass.__dict__.get("__annotations__", {})
        glb = getattr(sys.modules.get(klass.__module__), "__dict__", {})
        for name, a in ann.items():
            if isinstance(a, str):
                try:
                    a = eval(a, dict(glb))  # noqa: S307 (the class's own annotation)
                except Exception:
                    continue
            out[name] = a
    return out


def is_final(module, name) -> bool:
    """A `Final` (or `__constants__`) attribute: a constant, never assignable."""
    if name in getattr(type(module), "__constants__", ()):
        return True
    ann = _class_annotations(type(module)).get(name)
    return ann is not None and (ann is typing.Final or typing.get_origin(ann) is typing.Final)


def declared_type(module, name, where):
    """The attribute's static type: its class annotation if it has one (`opt: Optional[Tensor]`), else
    the type of its value now (None for a value script has no type for)."""
    ann = _class_annotations(type(module)).get(name)
    if ann is not None:
        return T.from_annotation(ann, where)
    v = module.__dict__[name]
    return T.NONE if v is None else T.of_value(v) or dict_type(v)


def dict_type(v):
    """A non-empty dict's Dict[K, V] (keys of one type, values of one type), as torch infers an attribute's."""
    if not isinstance(v, dict) or not v:
        return None
    keys = {repr(T.of_value(k)) for k in v}
    values = [T.of_value(x) for x in v.values()]
    k = T.of_value(next(iter(v)))
    if len(keys) != 1 or k is None or k.kind not in T.DICT_KEYS or None in values or \
            any(x != values[0] for x in values):
        return None
    return T.Dict(k, values[0])


# methods of lists and dicts that change the container: `self.lst.append(x)` makes `lst` state (torch: a run-time
# attribute whose changes persist across calls), not a constant of the compilation
_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "update",
                       "setdefault", "popitem"))


def plain_assignments(fn):
    """The names `self.<name>` that fn's body assigns (`=`, `+=`, annotated) or changes in place
    (`self.lst.append(x)`, `self.d[k] = v`, `self.lst[i] += 1`), fn's first argument being self; empty when
    its source cannot be read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return set()
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or not fdef.args.args:
        return set()
    me = fdef.args.args[0].arg

    def self_attr(e):
        return e.attr if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me else None

    # local names bound to `self.<name>` (`lst = self.lst`): changing them in place changes the attribute
    aliases = {n.targets[0].id: self_attr(n.value) for n in ast.walk(fdef) if isinstance(n, ast.Assign)
               and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and self_attr(n.value)}

    def container(e):  # the attribute whose container `e` is: self.<name>, or a local alias of it
        return aliases.get(e.id) if isinstance(e, ast.Name) else self_attr(e)

    out = set()
    for node in ast.walk(fdef):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                name = container(e.value) if isinstance(e, ast.Subscript) else self_attr(e)  # self.d[k] = v too
                if name:
                    out.add(name)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
            name = container(node.func.value)
            if name:
                out.add(name)
    return out


class AttributeState:
    """The assignable attributes found while compiling one scripted module (shared by its methods
    and training modes): (id(module), name) -> static type, and the modules themselves."""

    def __init__(self):
        self.types = {}
        self.modules = {}
        self.containers = {}  # the lists and dicts attributes hold, by id (attribute_containers.containers)

    def add(self, module, name, t):
        self.types[(id(module), name)] = t
        self.modules[id(module)] = module

    def type_of(self, module, name):
        return self.types.get((id(module), name))

    def prescan(self, module, methods):
        """Registers the attributes that `methods` of `module` plainly assign (`self.count += 1`), so that
        one compilation usually suffices; the compiler finds the others (a submodule's attribute, one
        assigned in a helper) by recompiling, and raises the errors (wrong type, Final, ...)."""
        for fn in methods:
            for name in plain_assignments(fn):
                if name in module.__dict__ and name != "training" and not is_final(module, name) \
                        and (id(module), name) not in self.types:
                    try:
                        t = declared_type(module, name, _refuse)
                    except ValueError:
                        continue
                    if t is not None and t.kind not in ("Module", "Any"):
                        self.add(module, name, t)

    def of_module(self, module):
        """[(name, static type)] of one module's assignable attributes."""
        return [(n, t) for (mid, n), t in self.types.items() if mid == id(module)]


def _refuse(msg):
    raise ValueError(msg)
