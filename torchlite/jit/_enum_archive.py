"""Enum members crossing a saved archive (format version 4; inside containers since version 5). A scripted graph
runs a member as its value; the archive names, per method, each Enum class in the types of its arguments and of
its return (where: the argument and the path through its containers; the qualified name, member names and
values: aten/jit/Serialization.h, Method::EnumClass), so a loaded module converts as the scripted one did, and as
torch.jit.load's does (the conversion itself: _archive_signature.py):

- an argument must be an Enum member (torch reads any member's value; an int raises torch's "Expected a
  value of type 'Enum<__torch__.Color>' for argument 'c' but instead found type 'int'.");
- a returned value becomes the member of the class when this process has it (a class of that qualified
  name in an already imported module, with the saved members: nothing is imported), else torch's
  RuntimeError "Unknown reference to ScriptClass __torch__.Color. (Did you forget to import it?)", which
  torch.jit.load's module raises in a process that has not scripted the class."""
from __future__ import annotations

import enum
import sys


def _sites(t, path=()):
    """(path, Enum class) of each Enum inside a static type: the steps through Optional (0), List (0), Dict (0 the
    key, 1 the value) and Tuple (k) to it."""
    if t is None:
        return []
    if t.kind == "Enum":
        return [(path, t.cls)]
    if t.kind in ("Optional", "List", "Dict", "Tuple"):
        return [s for i, e in enumerate(t.elems) for s in _sites(e, path + (i,))]
    return []


def enum_table(sig):
    """Method.enums of a compiled signature: [(position, path, qualified name, [(member, value)])], position the
    argument's index (-1: the return)."""
    from torchlite.jit._script.types import class_name

    out = []
    for pos, t in list(enumerate(sig.types)) + [(-1, sig.ret)]:
        for path, cls in _sites(t):
            out.append((pos, list(path), class_name(cls), [(m.name, m.value) for m in cls]))
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
