"""Enum members crossing a saved archive (format version 4). A scripted graph runs a member as its value;
the archive names, per method, the Enum class of each argument and of the return (qualified name, member
names and values; also the elements of a returned tuple: aten/jit/Serialization.h, Method::EnumClass), so a loaded module converts as the scripted
one did, and as torch.jit.load's does:

- an argument must be an Enum member (torch reads any member's value; an int raises torch's "Expected a
  value of type 'Enum<__torch__.Color>' for argument 'c' but instead found type 'int'.");
- a returned value becomes the member of the class when this process has it (a class of that qualified
  name in an already imported module, with the saved members: nothing is imported), else torch's
  RuntimeError "Unknown reference to ScriptClass __torch__.Color. (Did you forget to import it?)", which
  torch.jit.load's module raises in a process that has not scripted the class."""
from __future__ import annotations

import enum
import sys


def _enum_of(t):
    """The Enum class of a static type (Enum or Optional[Enum]), or None."""
    if t is None:
        return None
    if t.kind == "Optional" and t.elems:
        t = t.elems[0]
    return t.cls if t.kind == "Enum" else None


def enum_table(sig):
    """Method.enums of a compiled signature: [(position, qualified name, [(member, value)])]."""
    from torchlite.jit._script.types import class_name

    where = list(enumerate(sig.types)) + [(-1, sig.ret)]
    if sig.ret is not None and sig.ret.kind == "Tuple":  # element k of a returned tuple: -2 - k
        where += [(-2 - k, e) for k, e in enumerate(sig.ret.elems)]
    out = []
    for pos, t in where:
        cls = _enum_of(t)
        if cls is not None:
            out.append((pos, class_name(cls), [(m.name, m.value) for m in cls]))
    return out


def find_class(qualname, members):
    """The Enum class named `qualname` (`__torch__.` and its module path, none for __main__) in a module this
    process has imported, if its members are the saved ones; else None."""
    parts = qualname.split(".")
    if parts[0] != "__torch__" or len(parts) < 2:
        return None
    parts = parts[1:]
    candidates = [(".".join(parts[:i]), parts[i:]) for i in range(len(parts) - 1, 0, -1)] + [("__main__", parts)]
    for mod_name, attrs in candidates:
        obj = sys.modules.get(mod_name)
        for a in attrs:
            obj = getattr(obj, a, None) if obj is not None else None
        if isinstance(obj, type) and issubclass(obj, enum.Enum) and [(m.name, m.value) for m in obj] == \
                [tuple(m) for m in members]:
            return obj
    return None


class Converter:
    """Per method: members in, members out."""

    def __init__(self, method, name):
        self.name = name
        self.arg_names = list(method.arg_names)
        self.args = {}
        self.ret = None
        self.elems = {}  # element k of a returned tuple -> (qualname, members)
        for pos, qualname, members in method.enums:
            if pos == -1:
                self.ret = (qualname, members)
            elif pos < -1:
                self.elems[-2 - pos] = (qualname, members)
            else:
                self.args[pos] = qualname

    def _value(self, v, pos):
        if v is None or isinstance(v, enum.Enum):
            return None if v is None else v.value
        found = "Tensor" if type(v).__name__ == "Tensor" else type(v).__name__
        raise RuntimeError(f"{self.name}() Expected a value of type 'Enum<{self.args[pos]}>' for argument "
                           f"'{self.arg_names[pos]}' but instead found type '{found}'.")

    def inputs(self, args, kwargs):
        args = list(args)
        for pos in self.args:
            if pos < len(args):
                args[pos] = self._value(args[pos], pos)
            elif kwargs and pos < len(self.arg_names) and self.arg_names[pos] in kwargs:
                kwargs = dict(kwargs)
                kwargs[self.arg_names[pos]] = self._value(kwargs[self.arg_names[pos]], pos)
        return tuple(args), kwargs

    @staticmethod
    def _member(value, spec):
        if value is None:
            return None
        qualname, members = spec
        cls = find_class(qualname, members)
        if cls is None:
            raise RuntimeError(f"Unknown reference to ScriptClass {qualname}. (Did you forget to import it?)")
        return cls(value)

    def output(self, value):
        if self.ret is not None:
            return self._member(value, self.ret)
        if self.elems and isinstance(value, tuple):
            items = [self._member(v, self.elems[k]) if k in self.elems else v for k, v in enumerate(value)]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        return value
