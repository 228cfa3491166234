"""Calls of @ignore'd functions and methods from script: prim::PythonOp nodes, as torch keeps them.

A free function is called as it is. A module's method takes the module's interpreter Object as its first input
(so a graph shared by instances of one concrete type, or a body copied by the call cache, calls each instance's own
method); at run time the Object is mapped back to the Python module it stands for: the scripted module itself for
the root (as torch passes its RecursiveScriptModule: `self.k` reads what Python set), the scripted copy of the
submodule otherwise. The map is filled when a scripted module whose graphs call ignored methods builds its Object
tree (`register_tree`); it keeps each Object's Python wrapper alive, so the interpreter hands back the same wrapper.

The result is checked against the return annotation (a Tensor when there is none), as torch does when it converts
the Python value (its message); `@unused` functions and methods compile to torch's run-time error instead."""
from __future__ import annotations

import typing
import weakref

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._script import types as T

UNUSED_MESSAGE = "This Python function is annotated to be ignored and cannot be run"

_owners = {}  # id(Object wrapper) -> (wrapper, weakref to the Python module, its _Tree)
_trees = weakref.WeakKeyDictionary()  # scripted module -> its registered _Tree


def is_ignored(fn) -> bool:
    return getattr(fn, "_torchlite_jit_ignore", False)


def is_unused(fn) -> bool:
    """@torchlite.jit.unused (or ignore(drop=True)): compiled to a raise, never called."""
    return getattr(fn, "_torchlite_jit_unused", False)


def register_function(fn, rt):
    """The fn_id of a prim::PythonOp calling the free function fn (its result checked against rt)."""
    def call(*args):
        return checked(fn(*args), rt)
    return _jit._register_python_op(call)


def register_method(fn, rt):
    """The fn_id of a prim::PythonOp calling the method fn on the module its first input (an Object) stands for."""
    name = fn.__name__

    def call(obj, *args):
        entry = _owners.get(id(obj))
        module = entry[1]() if entry is not None and entry[0] is obj else None
        if module is None:
            raise RuntimeError(f"{name}: the ignored method's module is not known here (it is called only from the "
                               "scripted module that compiled it)")
        tree = entry[2]
        state = tree.state
        if state:  # what the graph assigned so far is Python's while the method runs, and what it assigns the graph's
            state.pull(tree.root, {}, tree.slots)
        try:
            return checked(fn(module, *args), rt)
        finally:
            if state:
                state.push(tree.root)
    return _jit._register_python_op(call)


def register_class_method(fn, rt, self_type):
    """The fn_id of a prim::PythonOp calling the ignored method fn of a TorchScript class on its instance: the Object
    as a Python instance of the class, whose fields are written back after the call (torch passes the object itself,
    so what the method assigns is the script's)."""
    def call(obj, *args):
        from torchlite.jit._script import _object_out, _to_input
        from torchlite.jit._script import classes
        inst = _object_out(obj, self_type)
        try:
            return checked(fn(inst, *args), rt)
        finally:
            info = classes.info(self_type.cls)
            for f in info.fields:
                ft = info.types.get(f)
                if ft is not None and hasattr(inst, f):
                    obj.setattr(f, _to_input(getattr(inst, f), ft))
    return _jit._register_python_op(call)


class _Tree:
    """A registered Object tree: its root and the module state kept in step around a call (_module_state.py)."""
    __slots__ = ("root", "state", "slots", "ids", "__weakref__")

    def __init__(self, root):
        self.root, self.state, self.slots, self.ids = root, None, None, []


def register_tree(obj, scripted, state=None, slots=None):
    """Maps the scripted module's Object tree to its modules (the root to the scripted module itself); `state` (a
    StateSync or None) and `slots` are what a call keeps in step, for the methods to see the current values."""
    tree = _trees.get(scripted)
    if tree is None or tree.root is not obj:
        if tree is not None:
            _forget(tree.ids)
        tree = _Tree(obj)

        def walk(o, module, python_self):
            _owners[id(o)] = (o, weakref.ref(python_self), tree)
            tree.ids.append(id(o))
            for name, sub in module._modules.items():
                if sub is not None and o.hasattr(name):
                    child = o.getattr(name)
                    if isinstance(child, _jit.Object):
                        walk(child, sub, sub)
        walk(obj, scripted._traced_from, scripted)
        _trees[scripted] = tree
        weakref.finalize(scripted, _forget, tree.ids)
    tree.state, tree.slots = state, slots


def _forget(ids):
    for i in ids:
        _owners.pop(i, None)


def calls_methods(graphs) -> bool:
    """Whether any of the graphs calls an ignored method (a PythonOp marked `method`)."""
    for g in graphs:
        for n in g.findAllNodes("prim::PythonOp"):
            if "method" in n.attributeNames():
                return True
    return False


def checked(value, rt):
    """value when it fits the return type rt; else torch's RuntimeError."""
    if _fits(value, rt):
        return float(value) if rt.kind == "float" and type(value) is int else value
    raise RuntimeError(f" expected value of type {_torch_name(rt)} for return value but instead got value of type "
                       f"{type(value).__name__}.\nValue: {value!r}")


def _fits(v, t) -> bool:
    k = t.kind
    if k == "Any":
        return True
    if k == "Tensor":
        return isinstance(v, _tl.Tensor)
    if k == "None":
        return v is None
    if k == "bool":
        return isinstance(v, bool)
    if k == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if k == "float":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if k == "Number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if k == "str":
        return isinstance(v, str)
    if k == "Optional":
        return v is None or _fits(v, t.elems[0])
    if k == "Union":
        return any(_fits(v, m) for m in t.elems)
    if k == "List":
        return isinstance(v, list) and all(_fits(e, t.elems[0]) for e in v)
    if k == "Tuple":
        return isinstance(v, tuple) and len(v) == len(t.elems) and all(map(_fits, v, t.elems))
    if k == "Dict":
        return isinstance(v, dict) and all(_fits(a, t.elems[0]) and _fits(b, t.elems[1]) for a, b in v.items())
    return True  # devices, dtypes, objects: converted (or refused) by the interpreter


def _torch_name(t) -> str:
    """A type as torch's message names it (Tensor, int, Optional[Tensor], List[int], Tuple[Tensor, int])."""
    if t.kind == "Optional":
        return f"Optional[{_torch_name(t.elems[0])}]"
    if t.kind == "None":
        return "NoneType"
    return repr(t)


def return_type(fn, where):
    """The static return type of an ignored function or method: its annotation, a Tensor when it has none."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 (unresolvable annotations: read them as written)
        hints = getattr(fn, "__annotations__", {})
    if "return" not in hints:
        return T.TENSOR
    return T.from_annotation(hints["return"], where)
