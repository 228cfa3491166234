"""TorchScript class instances held by module attributes (`self.acc = Acc(3)` in `__init__`), as torch keeps
them: an attribute of the module's type, holding an object the graphs read (prim::GetAttr), call methods on,
and assign (prim::SetAttr on the object's fields, or a new object for the attribute).

When a module is scripted, each such instance in the copied module tree (torchlite/jit/_script_copy.py) is
converted once into an interpreter Object (a copy: the original module's instance is not changed by calls, as
torch's copy at script time), which the scripted module then holds. The attribute is registered as one compiled
code assigns (torchlite/jit/_script/attributes.py, typed `Object(cls)`), so reads are prim::GetAttr, assignments
type-checked, the value kept in step with the module object on each call (_module_state.py), and saved in the
archive as an `object` constant (format version 5). From Python, `scripted.acc` is a new instance of the class
with the object's attributes (torch's conversion), and assigning an instance converts it; another value raises
torch's "Could not cast attribute 'acc' to type ...". A loaded module holds the interpreter's Object."""
from __future__ import annotations

from torchlite._C import _jit

_KEY = "_jit_object_attributes"  # in a copied module's __dict__: {name: class} of the attributes converted here


def convert_tree(root):
    """Converts the script-class instances held by the modules of `root` (a script copy) into Objects."""
    from torchlite.jit._script import _object_in, classes

    for m in root.modules():
        found = {}
        for name, v in list(m.__dict__.items()):
            if classes.is_script_class(type(v)):
                found[name] = type(v)
                m.__dict__[name] = _object_in(v, classes.object_type(type(v)))
        if found:
            m.__dict__[_KEY] = found


def register(module, attrs):
    """Registers the converted attributes of `module`'s tree as assigned state of the compilation (idempotent)."""
    from torchlite.jit._script import classes

    for m in module.modules():
        for name, cls in (m.__dict__.get(_KEY) or {}).items():
            if attrs.type_of(m, name) is None:
                attrs.add(m, name, classes.object_type(cls))


def class_of(module, name):
    """The class of a converted attribute, or None."""
    return (module.__dict__.get(_KEY) or {}).get(name)


def to_python(module, name, value):
    """`scripted.acc`: a new Python instance holding the object's attributes (torch's conversion)."""
    from torchlite.jit._script import _object_out, classes

    cls = class_of(module, name)
    if cls is None or not isinstance(value, _jit.Object):
        return value
    return _object_out(value, classes.object_type(cls))


def from_python(module, name, value):
    """`scripted.acc = Acc(1)`: the instance converted; another value raises torch's error."""
    from torchlite.jit._script import _object_in, classes
    from torchlite.jit._script.types import class_name

    cls = class_of(module, name)
    if isinstance(value, cls):
        return _object_in(value, classes.object_type(cls))
    if isinstance(value, _jit.Object) and value.type_name == class_name(cls):
        return value
    raise RuntimeError(f"Could not cast attribute '{name}' to type {class_name(cls)}: a value of type "
                       f"'{type(value).__name__}' is not an instance of {cls.__qualname__}")
