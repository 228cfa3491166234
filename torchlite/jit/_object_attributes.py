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

_KEY = "_jit_object_attributes"  # in a copied module's __dict__: {name: static type} of the attributes converted here


def _holds_objects(t) -> bool:
    return t is not None and (t.kind == "Object" or any(_holds_objects(e) for e in t.elems))


def _type_of(m, name, v):
    """The static type of an attribute holding script-class instances: its class annotation when it has one
    (`acc: Optional[Acc]`), else from the value (an instance; a list or tuple of instances of one class; a dict of
    them, its keys of one type)."""
    from torchlite.jit._script import classes
    from torchlite.jit._script import types as T
    from torchlite.jit._script.attributes import _class_annotations

    ann = _class_annotations(type(m)).get(name)
    if ann is not None:
        try:
            t = T.from_annotation(ann, _refuse)
        except ValueError:
            return None
        return t if _holds_objects(t) else None
    if classes.is_script_class(type(v)):
        return classes.object_type(type(v))
    if isinstance(v, (list, tuple)) and v and all(type(x) is type(v[0]) for x in v) and \
            classes.is_script_class(type(v[0])):
        t = classes.object_type(type(v[0]))
        return T.List(t) if isinstance(v, list) else T.Tuple([t] * len(v))
    if isinstance(v, dict) and v:  # {"a": Acc(1)}: keys of one dict key type, values instances of one class
        keys, values = list(v), list(v.values())
        key = T.of_value(keys[0])
        if key is None or key.kind not in T.DICT_KEYS or any(T.of_value(k) != key for k in keys):
            return None
        if all(type(x) is type(values[0]) for x in values) and classes.is_script_class(type(values[0])):
            return T.Dict(key, classes.object_type(type(values[0])))
    return None


def _refuse(msg):
    raise ValueError(msg)


def convert_tree(root):
    """Converts the script-class instances held by the modules of `root` (a script copy) into Objects."""
    from torchlite.jit._script import _matches, _to_input

    for m in root.modules():
        found = {}
        for name, v in list(m.__dict__.items()):
            if name.startswith("_") or name == "training":
                continue
            t = _type_of(m, name, v)
            if t is not None and _matches(v, t):
                found[name] = t
                m.__dict__[name] = _to_input(v, t)
        if found:
            m.__dict__[_KEY] = found
            m.__class__ = _viewing(type(m), frozenset(found))


# `scripted.sub.acc`: a submodule of a scripted module is its plain copy (an instance of the user's class), whose
# __dict__ holds the Object the graphs use. So that Python reads it as torch's scripted submodule gives it (a new
# instance of the class) and assigns it the same way (converted, or torch's error), the copy's class becomes a
# subclass with a property for each converted attribute; the subclass keeps the class's name, module and
# qualified name (the module's TorchScript type name and the compiled-graph cache see the same class), and is
# made once per (class, names).
_views = {}


def _viewing(cls, names):
    key = (cls, names)
    view = _views.get(key)
    if view is None:
        def prop(name):
            def get(self):
                return to_python(self, name, self.__dict__[name])

            def set_(self, value):
                self.__dict__[name] = from_python(self, name, value)
            return property(get, set_)
        ns = {n: prop(n) for n in names}
        ns.update(__module__=cls.__module__, __qualname__=cls.__qualname__, _jit_object_view_of=cls)
        view = _views[key] = type(cls.__name__, (cls,), ns)
    return view


def register(module, attrs):
    """Registers the converted attributes of `module`'s tree as assigned state of the compilation (idempotent)."""
    for m in module.modules():
        for name, t in (m.__dict__.get(_KEY) or {}).items():
            if attrs.type_of(m, name) is None:
                attrs.add(m, name, t)


def type_of(module, name):
    """The static type of a converted attribute, or None."""
    return (module.__dict__.get(_KEY) or {}).get(name)


def classes_of(module):
    """The static types of `module`'s converted attributes."""
    return list((module.__dict__.get(_KEY) or {}).values())


def to_python(module, name, value):
    """`scripted.acc`: new Python instances holding the objects' attributes (torch's conversion)."""
    from torchlite.jit._script import _from_output

    t = type_of(module, name)
    return value if t is None else _from_output(value, t)


def from_python(module, name, value):
    """`scripted.acc = Acc(1)`: the instance converted; another value raises torch's error."""
    from torchlite.jit._script import _matches, _py_type_str, _to_input

    t = type_of(module, name)
    if isinstance(value, _jit.Object) and t.kind == "Object" and value.type_name == repr(t):
        return value
    if not _matches(value, t):
        raise RuntimeError(f"Could not cast attribute '{name}' to type {_py_type_str(t)}: a value of type "
                           f"'{type(value).__name__}' does not fit it")
    return _to_input(value, t)


def ir_type(t):
    """The archive's type of an attribute (T.ir_type, but an Optional or container of objects keeps the class:
    `Optional Object "__torch__.Acc"`, where the graphs' IR spells it `Any?`)."""
    from torchlite.jit._script import types as T

    if not _holds_objects(t):
        return T.ir_type(t)
    if t.kind == "Object":
        return _jit.Type.object(repr(t))
    if t.kind == "Optional":
        return _jit.Type.optional(ir_type(t.elems[0]))
    if t.kind == "List":
        return _jit.Type.list(ir_type(t.elems[0]))
    if t.kind == "Dict":
        return _jit.Type.dict(ir_type(t.elems[0]), ir_type(t.elems[1]))
    if t.kind == "Tuple" and t.cls is None:
        return _jit.Type.tuple([ir_type(e) for e in t.elems])
    return T.ir_type(t)
