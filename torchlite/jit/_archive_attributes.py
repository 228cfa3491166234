"""Every attribute of every module in a scripted module's archive (format version 6), as torch.jit.save writes them.

A scripted module runs graphs in which the attributes compiled code only reads (plain numbers, strings, lists,
dicts, tuples, Optionals, the training flag) are constants of the compilation (_read_attributes.py says why).
torch's archive has them all as attributes of the module's type, read at run time, so its loaded module reads
and sets them (cast to their type) and the next call sees the new value; `loaded.eval()` changes what code
reading `self.training` does. So the archive is written from graphs compiled once more for it, with every such
attribute (and every module's `training`) read with prim::GetAttr, and carries each with its type and value;
`Final` / `__constants__` attributes stay folded and are written as the module's `constants` (torch's loaded
module reads them and refuses a set with "Can't set constant").

An attribute whose run-time read does not compile here (found by compiling with halves of the candidates
dropped) stays folded and is written as a constant too: setting it on the loaded module raises, where torch
would read it at run time. Attributes script cannot type (an empty list, a function, a dtype, an Enum member) are
not saved, as torch saves none of its "failed" attributes (dtypes it saves as ints: not done here).

The loaded side (RecursiveScriptModule): `cast` (torch's casting rules, _attribute_cast.py, from the archive's
type), `constant_error`, and `fill_object`, which puts the attributes and training flags into the module object
the graphs read when it is built (so only attributes a graph may change are copied in and out per call)."""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _jit

# what every nn.Module's __dict__ holds (hooks, the parameter tables): never attributes of the archive
_MODULE_INTERNALS = None


def _internals():
    global _MODULE_INTERNALS
    if _MODULE_INTERNALS is None:
        _MODULE_INTERNALS = frozenset(_tl.nn.Module().__dict__) - {"training"}
    return _MODULE_INTERNALS


def _holds_owned_tensors(module, v) -> bool:
    """A list/tuple of the module's own parameters or buffers (an RNN's _flat_weights): script reads each by name;
    as an attribute the loaded module would hold copies the optimizer never updates."""
    if not isinstance(v, (list, tuple)):
        return False
    owned = {id(t) for t in list(module._parameters.values()) + list(module._buffers.values()) if t is not None}
    return any(isinstance(x, _tl.Tensor) and id(x) in owned for x in v)


def constant_names(module):
    """The module's `__constants__` and `Final` attributes that it has (torch's constants_set)."""
    from torchlite.jit._script.attributes import _class_annotations, is_final

    names = set(getattr(type(module), "__constants__", ()))
    names |= {n for n in _class_annotations(type(module)) if is_final(module, n)}
    return sorted(n for n in names if hasattr(module, n) and n not in module._parameters and
                  n not in module._buffers and n not in module._modules)


def _constant_value(v):
    """A constant as torch keeps it (lists become tuples), or raises ValueError for a type it cannot hold."""
    if v is None or type(v) in (bool, int, float, str):
        return v
    if isinstance(v, (list, tuple)) and not (isinstance(v, tuple) and hasattr(v, "_fields")):
        return tuple(_constant_value(x) for x in v)
    raise ValueError(type(v).__name__)


def constants_of(module):
    """[(name, IR type, value)] of the module's constants that the archive can hold (numbers, strings, None and
    tuples of them; torch's `_get_valid_constant` also takes dtypes and devices: not written here)."""
    from torchlite.jit._script import types as T

    out = []
    for name in constant_names(module):
        try:
            value = _constant_value(getattr(module, name))
        except ValueError:
            continue
        t = T.of_value(value)
        if t is not None:
            out.append((name, ir_type(t), value))
    return out


def ir_type(t):
    """The archive's type of an attribute of static type t (NoneType as such: T.ir_type gives Any for it)."""
    from torchlite.jit._object_attributes import ir_type as of

    return _jit.Type.none() if t.kind == "None" else of(t)


_RUNTIME_KINDS = frozenset(("int", "float", "bool", "str", "Tensor", "List", "Dict", "Tuple", "Optional", "None"))


def _runtime(t) -> bool:
    return t.kind in _RUNTIME_KINDS and all(_runtime(e) for e in t.elems)


def candidates(root, state):
    """[(module, name, static type)] of the attributes the archive's graphs read at run time that `state` (the
    scripted module's AttributeState: those compiled code assigns) does not hold yet: every module's training
    flag, and each plain attribute script can type, but constants."""
    from torchlite.jit import _object_attributes, _read_attributes
    from torchlite.jit._script import types as T
    from torchlite.jit._script_module import ScriptModule

    internals = _internals()
    out = []
    seen = set()
    for m in root.modules():
        if id(m) in seen or (m is not root and isinstance(m, ScriptModule)):
            continue  # (a scripted, traced or loaded submodule is compiled from elsewhere)
        seen.add(id(m))
        if state.type_of(m, "training") is None:
            out.append((m, "training", T.BOOL))
        constants = set(constant_names(m))
        recorded = _read_attributes._types.get(m) or {}
        for name, v in m.__dict__.items():
            if name in internals or name == "training" or name.startswith("__") or name.startswith("_jit") or \
                    name in constants or state.type_of(m, name) is not None or \
                    _object_attributes.type_of(m, name) is not None or _holds_owned_tensors(m, v):
                continue
            if isinstance(v, _tl.nn.Module) or callable(v) and not isinstance(v, _tl.Tensor):
                continue
            t = recorded.get(name) if name in recorded else _read_attributes._type_of(m, name)
            if t is None and v is None:
                t = T.NONE
            if t is not None and _runtime(t):
                out.append((m, name, t))
    return out


def _attempt(scripted, base, extra):
    from torchlite.jit._script.attributes import AttributeState

    attrs = AttributeState()
    attrs.types, attrs.modules = dict(base.types), dict(base.modules)
    for m, name, t in extra:
        if t.kind != "None":  # (a NoneType attribute only ever holds None: the folded None reads the same)
            attrs.add(m, name, t)
    module = scripted._traced_from
    saved_training = module.training
    scripted.__dict__["_attrs"] = attrs  # (_compile_methods compiles with the scripted module's state)
    module.training = scripted.training
    try:
        found, _ = scripted._compile_methods(module)
    finally:
        module.training = saved_training
        scripted.__dict__["_attrs"] = base
    for m, name, t in extra:
        if t.kind == "None":
            attrs.add(m, name, t)
    return found, attrs


def save_graphs(scripted):
    """({method: (graph, signature)}, AttributeState, folded) for the archive: the scripted module's methods
    compiled with every candidate attribute read at run time; `folded`: [(module, name)] of those whose run-time
    read did not compile, left as constants of the graphs."""
    base = scripted.__dict__["_attrs"]
    cands = candidates(scripted._traced_from, base)
    key = tuple((id(m), name, repr(t)) for m, name, t in cands)
    memo = scripted.__dict__.get("_archive_folded")  # (key, folded) of the last save: the search is not redone
    dropped = set(memo[1]) if memo is not None and memo[0] == key else set()
    try:
        found, attrs = _attempt(scripted, base, [c for c in cands if (id(c[0]), c[1]) not in dropped])
        return found, attrs, [(m, n) for m, n, _ in cands if (id(m), n) in dropped]
    except Exception:  # noqa: BLE001 (some attribute's run-time read does not compile: find which)
        pass
    kept = []

    def add(group, fails=False):  # keeps what of `group` compiles beside `kept` (fails: known not to, as a whole)
        if not fails:
            try:
                _attempt(scripted, base, kept + group)
                kept.extend(group)
                return
            except Exception:  # noqa: BLE001
                pass
        if len(group) > 1:
            half = len(group) // 2
            add(group[:half])
            add(group[half:])

    add(cands, fails=True)
    found, attrs = _attempt(scripted, base, kept)
    kept_ids = {(id(m), n) for m, n, _ in kept}
    folded = [(m, n) for m, n, _ in cands if (id(m), n) not in kept_ids]
    scripted.__dict__["_archive_folded"] = (key, [(id(m), n) for m, n in folded])
    return found, attrs, folded


def folded_constants(module, folded):
    """[(name, IR type, value)] of `module`'s attributes in `folded` (save_graphs' third result), as constants."""
    from torchlite.jit._script import types as T

    out = []
    for m, name in folded:
        if m is module and name != "training":
            try:
                value = _constant_value(module.__dict__[name])
            except ValueError:
                continue
            t = T.of_value(value)
            if t is not None:
                out.append((name, ir_type(t), value))
    return out


# ---- the loaded module ------------------------------------------------------------------------------------

def static_type(ir_type):
    """The static type (types.T) of an archive's attribute type, for torch's casting rules."""
    from torchlite.jit import _archive_signature as sig
    from torchlite.jit._script import types as T

    def of(node):
        k = node[0]
        if k == "list":
            return T.List(of(node[1]))
        if k == "opt":
            return T.Optional(of(node[1]))
        if k == "dict":
            return T.Dict(of(node[1]), of(node[2]))
        if k == "tuple":
            return T.Tuple([of(e) for e in node[1]])
        if k == "leaf":
            name = node[1]
            return {"Tensor": T.TENSOR, "int": T.INT, "float": T.FLOAT, "bool": T.BOOL, "str": T.STR,
                    "NoneType": T.NONE}.get(name, T.ANY)
        return T.ANY
    return of(sig.tree(ir_type, {}))


def cast(name, ir_type, value):
    """`value` as the loaded module's attribute `name` of archive type `ir_type` holds it (torch's rules), or
    torch's RuntimeError."""
    from torchlite.jit._attribute_cast import cast_attribute

    t = static_type(ir_type)
    if t.kind == "None":
        if value is not None:
            raise RuntimeError(f"Could not cast attribute '{name}' to type NoneType: Cannot cast {value!r} to None")
        return None
    out = cast_attribute(name, t, value)
    return float(out) if t.kind == "float" else out


def holds_objects(ir_type) -> bool:
    """Whether the type holds TorchScript class instances (cast by _loaded_objects, not by torch's rules here)."""
    from torchlite.jit import _archive_signature as sig

    return sig._has(sig.tree(ir_type, {}), ("obj",))


def constant_error(name, value):
    from torchlite.jit._read_attributes import _constant_str

    return RuntimeError(f"Can't set constant '{name}' which has value:{_constant_str(value)}")


def fill_object(root, obj):
    """Puts the attributes of `root`'s loaded tree and every module's training flag into `obj`, the module
    object the graphs read (built by _trace._module_object: parameters, buffers, submodules)."""
    from torchlite.jit._module_state import attribute_store

    for path, m in root.named_modules(remove_duplicate=False):
        sub = obj
        for p in path.split(".") if path else ():
            sub = sub.getattr(p)
        sub.setattr("training", bool(m.training))
        for name, t in (m.__dict__.get("_jit_attributes") or {}).items():
            v = attribute_store(m, name)[name]
            if type(v) is int and str(t) == "float":
                v = float(v)
            sub.setattr(name, v)
