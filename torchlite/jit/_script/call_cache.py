"""Compiled bodies of inlined calls, kept per (function, argument types, self's concrete type) so that a
function or method called at several sites (a TransformerDecoder's four MultiheadAttention calls, every
Linear's forward) is compiled once and copied into the graph at each site (Graph.insertGraph), in one
script() call and across calls.

Script inlines calls and folds what is known at compile time into the callee's body: constant arguments
(`need_weights=False`), static tuples, the module's non-tensor attributes and training flag, the types of
the other arguments. So the key holds, per argument, its static type (a run-time value), its value (a
constant: compared as concrete_type compares attribute values) or the keys of its items (a static tuple),
and for a module (self, or a module passed along) its concrete-type key (concrete_type.key_of: the module
tree as the compiler reads it). What cannot be keyed that way compiles at the call site as before: a
module whose subtree has attributes that compiled code assigns (their state is registered per module
object), a callable bound to another object, a tensor constant, a list being typed by its first append,
a TorchScript class's __init__ (it types the attributes) or a class whose attributes are not all typed
yet, and a result that holds a module or function.

The fragment is the callee compiled into a graph of its own whose inputs are the call's run-time values
(a value passed twice is one input: the compiler folds `q is k` when it is one value). No pass runs on a
fragment: constant propagation and CSE would not see the writes that follow the call in the caller's graph
(a list the caller appends to, a tensor it changes in place), and even DCE and If simplification, which
would be safe, cost more than they save, as they would run again at each level of nesting; script's
pipeline runs once on the whole graph, as before."""
from __future__ import annotations

from torchlite.jit._script import concrete_type
from torchlite.jit._script import types as T

_MAX_ENTRIES = 1024
_cache = {}
enabled = True  # False: every call site compiles its callee (the benchmark's "before")
stats = {"hits": 0, "misses": 0, "uncacheable": 0}


class Uncacheable(Exception):
    pass


class _NoAttrs:
    types = {}


def module_key(module, attrs, memo):
    """The concrete-type key of a module used as self or as an argument, memoized per compilation (attributes
    cannot change while one compiles: an assigned one found later restarts it)."""
    got = memo.get(id(module))
    if got is None:
        key = concrete_type.key_of(module, attrs if attrs is not None else _NoAttrs)
        if key is None or key[1]:  # not cacheable, or attributes of this tree are assigned by compiled code
            raise Uncacheable
        got = memo[id(module)] = (module, key)
    return got[1]


def _type_ok(t):
    """Types a fragment may take: a TorchScript class's instance only once all its attributes are typed."""
    if t is None:
        return
    if t.kind == "Object":
        from torchlite.jit._script import classes
        info = classes.info(t.cls)
        if any(f not in info.types for f in info.fields):
            raise Uncacheable
    for e in t.elems:
        _type_ok(e)


def _first(sv, seen):
    """Which earlier run-time argument is the same IR value as sv (the compiler folds `q is k` when it is), or
    None; the fragment takes such a value once."""
    return seen.setdefault(sv.value.unique(), len(seen)) if sv.value is not None else None


def arg_key(sv, attrs, memo, open_lists, seen):
    """The part of the key an argument gives (raises Uncacheable)."""
    if id(sv) in open_lists:
        raise Uncacheable
    if sv.module is not None:
        if sv.value is None:
            raise Uncacheable
        return ("m", module_key(sv.module, attrs, memo), _first(sv, seen))
    if sv.items is not None:
        return ("t", tuple(arg_key(i, attrs, memo, open_lists, seen) for i in sv.items))
    if sv.is_const:
        if type(sv.const) in (list, dict) and id(sv.const) in getattr(attrs, "containers", ()):
            raise Uncacheable  # a module's list or dict: the callee may change it (attribute_containers.py)
        try:
            value = concrete_type._value(sv.const, {})
        except concrete_type._Uncacheable:
            raise Uncacheable from None
        return ("c", None if sv.type is None else sv.type, value)
    if sv.fn is not None:
        if sv.self_sv is not None:
            raise Uncacheable
        return ("f", concrete_type._Ident(sv.fn))
    if sv.value is not None and sv.type is not None and sv.type.kind != "Module":
        _type_ok(sv.type)
        return ("v", sv.type, _first(sv, seen))
    raise Uncacheable


def key(fn, args, kwargs, self_sv, attrs, memo, open_lists):
    from torchlite.jit._passes import script_optimization
    try:
        defaults = concrete_type._value(getattr(fn, "__defaults__", None), {})
    except concrete_type._Uncacheable:
        raise Uncacheable from None
    seen = {}
    return (concrete_type._Ident(fn), defaults, script_optimization._enabled[-1],
            None if self_sv is None else arg_key(self_sv, attrs, memo, open_lists, seen),
            tuple(arg_key(a, attrs, memo, open_lists, seen) for a in args),
            tuple((k, arg_key(kwargs[k], attrs, memo, open_lists, seen)) for k in sorted(kwargs)))


def lookup(k):
    if not enabled:
        return None
    got = _cache.get(k)
    stats["hits" if got is not None else "misses"] += 1
    return got


def store(k, entry):
    if len(_cache) >= _MAX_ENTRIES:
        _cache.pop(next(iter(_cache)))
    _cache[k] = entry


def clear():
    _cache.clear()


def abstract(sv, graph, inputs, made):
    """The fragment's stand-in for an argument: its run-time values become the fragment graph's inputs (the
    caller's SVs collected in `inputs`, in order; a value passed twice is one input, `made` maps it), constants
    and functions stay as they are. With graph None: only collects the caller's values, in the same order."""
    from torchlite.jit._script.values import SV
    if sv.items is not None:
        return SV(sv.type, items=[abstract(i, graph, inputs, made) for i in sv.items])
    if sv.is_const or (sv.fn is not None and sv.module is None):
        return sv
    u = sv.value.unique()
    if u not in made:
        inputs.append(sv)
        made[u] = None
        if graph is not None:
            made[u] = graph.addInput("self" if len(inputs) == 1 and sv.module is not None else "")
            made[u].setType(sv.value.type())
    if graph is None:
        return sv
    return SV(sv.type, value=made[u], module=sv.module)


def template(sv, outputs, open_lists):
    """How to rebuild the callee's result at a call site: ("v", type, output index), ("c", type, const) or
    ("t", type, [templates]); the result's run-time values are appended to `outputs` (SVs of the fragment)."""
    if id(sv) in open_lists or sv.module is not None or sv.fn is not None:
        raise Uncacheable
    if sv.items is not None:
        return ("t", sv.type, [template(i, outputs, open_lists) for i in sv.items])
    if sv.is_const:
        return ("c", sv.type, sv.const)
    outputs.append(sv)
    return ("v", sv.type, len(outputs) - 1)


def rebuild(tpl, values):
    from torchlite.jit._script.values import SV
    kind, t, x = tpl
    if kind == "v":
        return SV(t, value=values[x])
    if kind == "c":
        return SV(t, const=x)
    return SV(t, items=[rebuild(i, values) for i in x])
