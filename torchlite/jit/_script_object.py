"""TorchScript class instances that a loaded module gives Python in a process that never scripted the class: the
interpreter's `_jit.Object`, made to behave as torch's ScriptObject: its attributes read as Python attributes
(`obj.n`) and its methods called (`obj.add(x)`), when the archive carries them.

Saving a scripted module (or function) compiles the methods of every TorchScript class its methods take, return
or hold in a module attribute (and of the classes those classes' attributes hold), each into a graph whose first
input is the object (`self`), and writes them in the archive's `classes` record (format version 5: one Module
per class, named after it, with those methods: aten/jit/Serialization.h, Module::classes). Loading registers
them by class name; a method a class cannot compile on its own (one that would fail torch's script(cls) too) is
left out. In the process that scripted the class, results are instances of the class itself
(classes.converter) and none of this is used."""
from __future__ import annotations

import inspect

from torchlite._C import _jit

_methods = {}  # class name -> {method name: _jit.Method}: what loaded archives carried


def register(cpp_classes):
    for c in cpp_classes:
        _methods[c.type_name] = dict(c.methods)


def _call(obj, name, method, args, kwargs):
    from torchlite.jit._archive_signature import Signature
    from torchlite.jit._named_tuple import converter
    from torchlite.jit._script_module import _bind

    sig = Signature.of(method, name)
    if sig is not None:
        args, kwargs = sig.inputs(args, kwargs)
    args = _bind(name, method, tuple(args), kwargs or {})
    params = method.graph.inputs()[1:]
    args = [float(a) if type(a) is int and str(v.type()) == "float" else a for a, v in zip(args, params)]
    out = _jit.run_graph(method.graph, [obj, *args])[0]
    outs = method.graph.outputs()
    conv = converter(outs[0].type()) if len(outs) == 1 else None
    out = conv(out) if conv is not None else out
    return sig.output(out) if sig is not None else out


def _getattr(obj, name):
    """`obj.name` on an interpreter Object: its attribute, else a method the loaded archive carried."""
    if obj.hasattr(name):
        return obj.getattr(name)
    method = _methods.get(obj.type_name, {}).get(name)
    if method is None or name.startswith("__"):
        raise AttributeError(f"'{obj.type_name}' object has no attribute or method '{name}'")

    def bound(*args, **kwargs):
        return _call(obj, name, method, args, kwargs)
    bound.__name__ = name
    return bound


_jit.Object.__getattr__ = _getattr


# ---- saving ---------------------------------------------------------------------------------------------------

def _classes_of(t, found):
    from torchlite.jit._script import classes
    if t is None:
        return
    if t.kind == "Object" and t.cls is not None and t.cls not in found:
        found.append(t.cls)
        for ft in classes.info(t.cls).types.values():
            _classes_of(ft, found)
    for e in t.elems:
        _classes_of(e, found)


def class_modules(sigs, root=None):
    """The archive's classes (Module::classes) for compiled signatures and the object attributes of `root`'s
    modules: [ _jit.Module(class name) holding the class's methods ]."""
    from torchlite.jit._object_attributes import classes_of
    found = []
    for sig in sigs:
        for t in list(sig.types) + [sig.ret]:
            _classes_of(t, found)
    if root is not None:
        for m in root.modules():
            for t in classes_of(m):
                _classes_of(t, found)
    return [_class_module(cls) for cls in found]


_compiled = {}  # class -> its Module (compiled once per process)


def _class_module(cls):
    got = _compiled.get(cls)
    if got is not None:
        return got
    from torchlite.jit._script import SV, _compile, _method, classes
    from torchlite.jit._script.types import class_name
    methods = []
    for name, fn in cls.__dict__.items():
        if name.startswith("__") or not inspect.isfunction(fn):
            continue
        try:
            graph, sig = _compile(fn, SV(classes.object_type(cls)))
        except Exception:  # noqa: BLE001 (a method that does not compile on its own is left out, see above)
            continue
        methods.append((name, _method(graph, sig)))
    m = _jit.Module(class_name(cls), False)
    m.methods = methods
    _compiled[cls] = m
    return m
