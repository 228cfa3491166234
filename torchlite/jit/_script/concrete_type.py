"""The compiled methods of a scripted module, kept per "concrete type" (torch's name for it) so that
scripting a second instance of a class reuses them instead of compiling its source again.

A module's graphs depend on more than its class: script reads non-tensor attributes (numbers, strings,
tuples, `Final`s, functions), the training flags and the submodules' classes as constants of the
compilation, and a parameter registered as None compiles differently from a tensor. So the key is the
module tree as the compiler sees it: per module (in `named_modules` order, shared submodules named by
their first path) its class, training flag, which parameters and buffers are set, its submodules and
every other attribute's value. Values are compared by value where script folds them (numbers, strings,
dtypes, containers of those), functions and classes by identity; a tensor attribute that is not a
parameter or buffer is a constant of the graph (the tensor itself), and anything script has no value
rule for could be read in ways the key cannot see: a module holding either is not cached (None key).

The cache holds a pristine copy of each compiled graph and hands out copies (a graph edited by a pass
from Python must not reach the next instance); the attributes compiled code assigns are kept by their
submodule paths and re-registered on the new instance's modules."""
from __future__ import annotations

import enum
import types as pytypes
import weakref

import torchlite as _tl

_MAX_ENTRIES = 256  # classes x configurations per process: beyond this the oldest entry goes
_cache = {}
enabled = True  # False: every script() compiles (benchmarks measure the cache's effect with it)
stats = {"hits": 0, "misses": 0, "uncacheable": 0}


class _Uncacheable(Exception):
    pass


class _Ident:
    """A function, class or Python module: equal when it is the same object."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Ident) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _value(v, owned, depth=0):
    if depth > 20:
        raise _Uncacheable
    if type(v) in _SCALARS:
        return (type(v), repr(v) if type(v) is float else v)  # repr: -0.0 and 0.0 differ, nan equals nan
    if isinstance(v, (_tl.dtype, _tl.device, _tl.layout, _tl.memory_format)):
        return (type(v), str(v))
    if isinstance(v, enum.Enum):
        return _Ident(v)
    if isinstance(v, _tl.Tensor):
        name = owned.get(id(v))
        if name is None:  # a plain tensor attribute: the graph holds it as a constant
            raise _Uncacheable
        return ("owned", name)
    if isinstance(v, (tuple, list)):
        return (type(v), tuple(_value(x, owned, depth + 1) for x in v))
    if isinstance(v, (set, frozenset)):
        return (type(v), frozenset(_value(x, owned, depth + 1) for x in v))
    if isinstance(v, dict):
        return (type(v), tuple((_value(k, owned, depth + 1), _value(x, owned, depth + 1)) for k, x in v.items()))
    if isinstance(v, (pytypes.FunctionType, pytypes.BuiltinFunctionType, type, pytypes.ModuleType)):
        return _Ident(v)
    if isinstance(v, _tl.nn.Module):  # a module held outside _modules (not a submodule): script does not read it
        raise _Uncacheable
    raise _Uncacheable


def _module_entry(m, index, owned, state):
    from torchlite.jit._script_module import ScriptModule
    if isinstance(m, ScriptModule):  # a scripted, traced or loaded submodule: compiled from elsewhere
        raise _Uncacheable
    attrs = []
    for name, v in m.__dict__.items():
        if name in ("_parameters", "_buffers", "_modules", "training"):
            continue
        t = state.get((id(m), name))  # assigned by compiled code: read at run time, only its type matters
        attrs.append((name, ("state", repr(t)) if t is not None else _value(v, owned)))
    from torchlite.jit._attribute_cast import base_class
    return (base_class(type(m)), m.training,
            tuple((n, p is None, type(p)) for n, p in m._parameters.items()),
            tuple((n, b is None) for n, b in m._buffers.items()),
            tuple((n, None if s is None else index[id(s)]) for n, s in m._modules.items()),
            tuple(attrs))


def key_of(module, attrs):
    """The concrete-type key of `module` (its training flags as they are now), or None when its graphs must not
    be shared (see the module docstring). `attrs`: the assigned attributes known before compiling (found by
    the prescan of the class's methods), part of the key since they change how reads compile."""
    from torchlite.jit._passes import script_optimization
    if not enabled:
        return None
    index = {}
    order = []
    for m in module.modules():  # each distinct module once, in a fixed order
        index[id(m)] = len(order)
        order.append(m)
    try:
        entries = []
        for m in order:
            owned = {id(t): n for n, t in list(m._parameters.items()) + list(m._buffers.items()) if t is not None}
            entries.append(_module_entry(m, index, owned, attrs.types))
    except _Uncacheable:
        stats["uncacheable"] += 1
        return None
    paths = _paths(module)
    known = tuple(sorted((paths[mid], name, repr(t)) for (mid, name), t in attrs.types.items() if mid in paths))
    return (script_optimization._enabled[-1], known, tuple(entries))


def _paths(module):
    paths = {}
    for path, m in module.named_modules(remove_duplicate=False):
        paths.setdefault(id(m), path)
    return paths


def lookup(key, module, attrs):
    """The compiled methods {name: (graph, signature)} for `key` (copies of the graphs), with the assigned
    attributes registered in `attrs` on `module`'s own submodules; None when not compiled yet."""
    if key is None:
        return None
    entry = _cache.get(key)
    if entry is None:
        stats["misses"] += 1
        return None
    stats["hits"] += 1
    found, assigned = entry
    by_path = dict((p, m) for p, m in module.named_modules(remove_duplicate=False))
    for path, name, t in assigned:
        attrs.add(by_path[path], name, t)
    return {name: (graph.copy(), sig) for name, (graph, sig) in found.items()}


def store(key, module, found, attrs):
    if key is None:
        return
    paths = _paths(module)
    assigned = [(paths[mid], name, t) for (mid, name), t in attrs.types.items() if mid in paths]
    if len(_cache) >= _MAX_ENTRIES:
        _cache.pop(next(iter(_cache)))
    _cache[key] = ({name: (graph.copy(), sig) for name, (graph, sig) in found.items()}, assigned)


def clear():
    from torchlite.jit._script import call_cache
    _cache.clear()
    _functions.clear()
    call_cache.clear()  # compiled call-site bodies are keyed by concrete types too


# Scripted functions: `script(f)` again (or of a function a decorator already scripted) reuses f's graph, as
# torch's cache of compiled functions. Keyed by the function object (weakly: a function that goes away takes
# its entry), its defaults and the pipeline switch; globals are read at the first compilation only (torch's too).
_functions = weakref.WeakKeyDictionary()


def _function_key(fn):
    from torchlite.jit._passes import script_optimization
    try:
        return (script_optimization._enabled[-1], _value(fn.__defaults__, {}), _value(fn.__kwdefaults__, {}))
    except _Uncacheable:
        return None


def lookup_function(fn):
    """(graph copy, signature) of fn compiled before with the same defaults, or None."""
    if not enabled:
        return None
    try:
        entry = _functions.get(fn)
    except TypeError:  # not weakly referenceable
        return None
    key = _function_key(fn) if entry is not None else None
    if entry is None or key is None or entry[0] != key:
        stats["misses"] += 1
        return None
    stats["hits"] += 1
    return entry[1].copy(), entry[2]


def store_function(fn, graph, sig):
    if not enabled:
        return
    key = _function_key(fn)
    if key is None:
        return
    try:
        _functions[fn] = (key, graph.copy(), sig)
    except TypeError:
        pass
