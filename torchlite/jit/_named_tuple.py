"""Named tuples (typing.NamedTuple) at the edges of compiled code (and, through classes.converter, instances
of TorchScript classes). In the graph a named tuple is a tuple
whose IR type carries the class name and field names (`NamedTuple(x : Tensor, y : int)`, saved in
archives); Python gets instances of the class back. The class is the one script compiled when this
process has seen it (as torch.jit.load in the process that scripted it), otherwise a
collections.namedtuple made from the saved type (as torch does in a fresh process)."""
from __future__ import annotations

import collections

_classes = {}  # TorchScript class name -> the NamedTuple class script compiled
_made = {}  # (class name, fields) -> a namedtuple made for a loaded archive


def register(name, cls):
    _classes[name] = cls
    _mark(cls, name)


def _mark(cls, name):
    """Instances of cls become tuples tagged with the class when they enter the interpreter (python_ivalue.cpp
    reads the mark), so a Union's run-time isinstance tells named tuples of different classes apart."""
    if cls.__dict__.get("_torchlite_jit_name") != name:
        try:
            cls._torchlite_jit_name = name
        except (AttributeError, TypeError):  # a class that takes no attributes: its instances go in untagged
            pass


def tagged(name, values):
    """A tuple tagged with class `name` coming out of the interpreter: an instance of the class compiled in this
    process (or made for a loaded archive) with that name and as many fields, else the plain tuple (the return
    type's converter makes it an instance where the type names the class)."""
    cls = _classes.get(name)
    if cls is None or len(cls._fields) != len(values):
        cls = next((c for (n, f), c in _made.items() if n == name and len(f) == len(values)), None)
    return values if cls is None else cls(*values)


def class_for(name, fields):
    cls = _classes.get(name)
    if cls is not None and tuple(cls._fields) == tuple(fields):
        return cls
    key = (name, tuple(fields))
    cls = _made.get(key)
    if cls is None:
        short = name.rsplit(".", 1)[-1]
        cls = _made[key] = collections.namedtuple(short if short.isidentifier() else "NamedTuple", fields,
                                                  rename=True)
        _mark(cls, name)
    return cls


def converter(ir_type):
    """A function turning a run_graph value of IR type `ir_type` into Python's (named tuples made
    instances of their classes, at any depth of tuples), or None when nothing needs converting."""
    elems = ir_type.containedTypes()
    inner = [converter(e) for e in elems]
    fields = ir_type.fields()
    if not fields and not elems and ir_type.class_name():  # an object: a TorchScript class's instance
        from torchlite.jit._script import classes
        return classes.converter(ir_type.class_name())
    if fields:
        cls = class_for(ir_type.class_name(), fields)

        def named(v):
            return cls(*[f(x) if f is not None else x for f, x in zip(inner, v)])
        return named
    if str(ir_type).startswith("(") and any(f is not None for f in inner):
        def plain(v):
            return tuple(f(x) if f is not None else x for f, x in zip(inner, v))
        return plain
    if str(ir_type).endswith("?") and inner and inner[0] is not None:
        f0 = inner[0]
        return lambda v: None if v is None else f0(v)
    if str(ir_type).endswith("[]") and inner and inner[0] is not None:
        f0 = inner[0]
        return lambda v: [f0(x) for x in v]
    return None
