"""TorchScript classes: `@torchlite.jit.script` on a plain class makes it usable inside scripted code, as
torch's. Its attributes are those `__init__` assigns (`self.total = x`), each typed by its class annotation
or by the first value `__init__` assigns; its methods are compiled (inlined) where they are called. An
instance is an interpreter Object made by `prim::CreateObject` (its class name and fields as attributes),
filled by `__init__`'s prim::SetAttr nodes, read with prim::GetAttr. Instances cross into Python as arguments
and results (converted: torchlite/jit/_script/__init__.py), also inside lists, dicts and Optionals, and as
attributes of other instances; static methods are called on the class; as torch, class-level values and
classmethods are refused."""
from __future__ import annotations

import inspect

from torchlite.jit._script import types as T
from torchlite.jit._script.attributes import _class_annotations, plain_assignments


def is_script_class(c) -> bool:
    return isinstance(c, type) and c.__dict__.get("_torchlite_script_class", False)


def script_class(cls):
    """What `script(cls)` does for a plain class: marks it (its methods compile where script code uses it)
    and returns it unchanged, so Python keeps using it as before."""
    import torchlite as _tl
    if issubclass(cls, _tl.nn.Module):
        raise RuntimeError(f"script of a class ({cls.__name__}) is not supported for nn.Module subclasses: script an "
                           "instance")
    init = cls.__dict__.get("__init__")
    if not inspect.isfunction(init):
        raise RuntimeError(f"TorchScript class {cls.__qualname__} must define __init__ (its attributes are those "
                           "__init__ assigns)")
    try:
        inspect.getsource(cls)
    except (OSError, TypeError) as e:
        raise OSError(f"Can't get source for {cls}. TorchScript requires source access in order to carry out "
                      "compilation, make sure original .py files are available.") from e
    cls._torchlite_script_class = True
    _by_name[T.class_name(cls)] = cls
    return cls


_by_name = {}  # TorchScript class name -> the class script(cls) marked in this process


def converter(name):
    """For a loaded module's result of class `name`: a function making the interpreter's Object a Python instance
    of the class when this process scripted it (as torch.jit.load in that process); None otherwise (Python gets
    the Object: its attributes by getattr, as torch gives a ScriptObject in a fresh process)."""
    cls = _by_name.get(name)
    if cls is None:
        return None
    from torchlite.jit._script import _object_out
    t = object_type(cls)

    def convert(v):
        return _object_out(v, t) if isinstance(v, _jit_object()) else v
    return convert


def _jit_object():
    from torchlite._C import _jit
    return _jit.Object


class ClassInfo:
    """One script class's attributes: `fields` (the names __init__ assigns, and annotated ones), `types` (name ->
    static type, from the class annotations, then from __init__'s first assignment of each)."""

    def __init__(self, cls):
        self.cls = cls
        ann = {k: v for k, v in _class_annotations(cls).items()}
        self.fields = sorted(set(ann) | plain_assignments(cls.__init__))
        self.types = {}
        for name, a in ann.items():
            def where(msg):
                raise RuntimeError(f"{cls.__qualname__}.{name}: {msg}")
            self.types[name] = T.from_annotation(a, where)


_infos = {}


def info(cls) -> ClassInfo:
    got = _infos.get(cls)
    if got is None:
        got = _infos[cls] = ClassInfo(cls)
    return got


def object_type(cls):
    return T.T("Object", cls=cls)
