"""Module attributes holding lists or dicts that compiled code changes in place through something else than
`self.<name>.append(...)`: a helper function, another method, a submodule's method it is passed to (any number
of calls deep), an alias (`l = self.lst`, `[self.lst][0]`, an `if` choosing it), or an op whose schema writes
a list argument (`(a!)`).

Script reads a module's non-tensor attributes as constants of the compilation. A list or dict constant is
one box in the graph, so a change made to it would be repeated by every call, and Python would never see it.
torch reads such an attribute at run time (the changes persist across calls and Python sees them), so here
it must become a run-time attribute (_script/attributes.py: prim::GetAttr, kept in step by the module state
copy). The prescan (`attributes.plain_assignments`) finds `self.lst.append(x)` in a module's own methods from
their source; this finds every other way, from the graph itself:

1. `containers(module, attrs)`: every list or dict a module of the tree holds in a public attribute (and the
   lists and dicts inside it, or inside a tuple attribute), by identity, with the module and the attribute's name.
2. The compiler records each prim::Constant it makes of one of those objects (`Compiler.container_constants`).
   A call site's cached body (call_cache.py) is not reused for one: a fragment that made such a constant is
   compiled at its call site instead, and such a constant passed as an argument is never part of a key.
3. `written(graph, constants)`: after a method is compiled, which of those constants may be written, by an
   alias analysis over the values of mutable types (lists, dicts, tuples, Optionals, Any, objects): a value
   is written when a node writes its alias set (prim::append, setitem, pop, update..., a schema argument
   marked `(a!)`), or when it escapes where the graph cannot follow it (stored by prim::SetAttr, passed to a
   Python function). The containers such constants came from become run-time attributes and the module's
   methods are compiled again (attributes.Recompile), as for an assignment.

The rule is conservative (an alias set merged through a container that is written counts as written), so a
list only read stays a constant and costs nothing per call; a list this rule makes run-time is copied into
the interpreter's module object on each call (the cost measured in docs/jit.md). An empty list or dict with no
class annotation has no type (torch refuses it as an attribute); it stays a constant."""
from __future__ import annotations

from torchlite._C import _jit

_CONTAINERS = (list, dict)
_HOLDERS = (list, dict, tuple)  # attributes whose values may hold such containers


def containers(module, attrs):
    """{id(obj): (obj, [(module, name)])} of the lists and dicts held by public attributes of `module`'s tree that
    compiled code does not already read at run time (nested ones map to the attribute holding them; one object
    held by several attributes maps to all of them: which one a constant was read through is not known)."""
    from torchlite.jit._script.attributes import is_final

    out = {}

    def walk(v, m, name, depth):
        if depth > 8:
            return
        if type(v) is tuple:  # a tuple cannot change, the lists and dicts it holds can
            for x in v:
                walk(x, m, name, depth + 1)
            return
        if type(v) not in _CONTAINERS:
            return
        entry = out.get(id(v))
        if entry is not None:
            if (m, name) not in entry[1]:
                entry[1].append((m, name))
            return
        out[id(v)] = (v, [(m, name)])
        for x in (v.values() if type(v) is dict else v):
            walk(x, m, name, depth + 1)

    for m in module.modules():
        for name, v in m.__dict__.items():
            if type(v) in _HOLDERS and not name.startswith("_") and attrs.type_of(m, name) is None \
                    and not is_final(m, name):
                walk(v, m, name, 0)
    return out


_IMMUTABLE = frozenset(("int", "float", "bool", "str", "NoneType", "Scalar", "ScalarType", "Device", "Layout",
                        "MemoryFormat", "Generator", "number"))


def _mutable(v) -> bool:
    t = v.type()
    return not t.isTensor() and str(t) not in _IMMUTABLE


# prim ops whose output is (an element of, or a view of) their first input
_ALIASING = frozenset(("prim::getitem", "prim::dict_getitem", "prim::dict_get", "prim::pop", "prim::unchecked_cast",
                       "prim::list_slice", "prim::dict_values", "prim::dict_items", "prim::dict_pop",
                       "prim::dict_pop_default", "prim::ListUnpack", "prim::TupleUnpack", "prim::TupleIndex"))
# prim ops that make a new container of their inputs
_HOLDING = frozenset(("prim::ListConstruct", "prim::TupleConstruct", "prim::DictConstruct"))
# prim ops whose outputs hold nothing of their inputs that a write could reach here (an attribute read: a value
# stored into an object's field escapes at its prim::SetAttr already)
_FRESH = frozenset(("prim::GetAttr", "prim::len", "prim::dict_len", "prim::dict_contains", "prim::format"))
# prim ops that hand their inputs to code the graph cannot see
_ESCAPING = frozenset(("prim::PythonOp", "prim::SetAttr"))


class _Sets:
    def __init__(self):
        self.parent = {}

    def find(self, u):
        p = self.parent
        root = u
        while p.get(root, root) != root:
            root = p[root]
        while u != root:
            p[u], u = root, p[u]
        return root

    def union(self, a, b):
        if _mutable(a) and _mutable(b):
            ra, rb = self.find(a.unique()), self.find(b.unique())
            if ra != rb:
                self.parent[ra] = rb


def written(graph, constants):
    """The attributes [(module, name)] holding `constants` [(Value, (obj, [(module, name)]))] whose values the
    graph may change (see the module docstring)."""
    sets = _Sets()
    writes = []  # values whose alias set is written
    for node in graph.allNodes():
        kind = node.kind()
        ins, outs = node.inputs(), node.outputs()
        if kind == "prim::If":
            for b in node.blocks():
                for o, bo in zip(outs, b.outputs()):
                    sets.union(o, bo)
            continue
        if kind == "prim::Loop":
            body = node.blocks()[0]
            for i, o in enumerate(outs):
                sets.union(ins[2 + i], body.inputs()[1 + i])
                sets.union(body.inputs()[1 + i], body.outputs()[1 + i])
                sets.union(body.outputs()[1 + i], o)
            continue
        if kind in _ESCAPING:
            writes.extend(v for v in ins[1 if kind == "prim::SetAttr" else 0:] if _mutable(v))
            continue
        if kind in _FRESH:
            continue
        if kind in _HOLDING:
            for v in ins:
                sets.union(outs[0], v)
            continue
        if kind in _ALIASING:
            for o in outs:
                sets.union(o, ins[0])
            continue
        schema = node.fn_schema()
        if schema is None:
            if _jit._prim_writes_first_input(kind):
                writes.append(ins[0])
                for v in ins[1:]:  # the container now holds the value
                    sets.union(ins[0], v)
            else:  # another prim op: its outputs may hold its inputs (conservative)
                for o in outs:
                    for v in ins:
                        sets.union(o, v)
            continue
        by_set = {}
        for arg, v in zip(schema.arguments, ins):
            info = arg.alias_info
            if info is None:
                continue
            by_set.setdefault(info.before_set, []).append(v)
            if info.is_write and _mutable(v):
                writes.append(v)
        for ret, o in zip(schema.returns, outs):
            info = ret.alias_info
            for v in by_set.get(info.before_set, []) if info is not None else []:
                sets.union(o, v)
    hit = {sets.find(v.unique()) for v in writes}
    out = {}
    for v, (_, holders) in constants:
        if sets.find(v.unique()) in hit:
            for m, name in holders:
                out[(id(m), name)] = (m, name)
    return list(out.values())
