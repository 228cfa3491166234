"""Common-subexpression elimination: a node with the same kind, overload, inputs and attributes as
an earlier node in the same block reuses that node's outputs. Nodes that write, are random
(tagged `random` in the YAML), own blocks, or read or return values whose alias set is written
anywhere are never merged: a write between the two could make them differ. Nothing is merged across
a grad-mode switch or a call of Python (script's prim::set_grad_enabled, prim::PythonOp)."""
from __future__ import annotations

from torchlite.jit._passes.alias import AliasDb


class _Same:
    """A tensor attribute in a key: equal only to itself (kept alive, so its id is not reused)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self):
        return id(self.value)


def _attr_key(node):
    key = []
    for name in node.attributeNames():
        v = node.ival(name)
        # Constants compare by type and value (1, 1.0 and True differ); tensors by identity.
        key.append((name, type(v).__name__, _Same(v) if hasattr(v, "data_ptr") else repr(v)))
    return tuple(key)


def _key(node):
    key = (node.kind(), node.schema(), tuple(v.unique() for v in node.inputs()), _attr_key(node))
    if node.kind() == "prim::TupleConstruct":  # named tuples of two classes from the same values are two values
        key += (node.output().type().class_name(),)
    return key


def _draws(node) -> bool:
    """An op taking a Generator draws random numbers even when its YAML entry is not tagged `random`
    (rrelu in training)."""
    schema = node.fn_schema()
    return schema is not None and any(str(a.type).startswith("Generator") for a in schema.arguments)


def _mergeable(node, db) -> bool:
    if node.blocks() or node.hasSideEffects() or node.isNondeterministic() or _draws(node):
        return False
    if node.kind() in ("prim::Param", "prim::Return"):
        return False
    return not any(db.has_writers(v) for v in list(node.inputs()) + list(node.outputs()))


# Nodes after which an equal node may compute something else: script's grad-mode switches (a tensor
# op's result differs in requires_grad) and calls of Python functions (they may change any tensor).
_BARRIERS = ("prim::set_grad_enabled", "prim::PythonOp")


def _has_barrier(node) -> bool:
    return node.kind() in _BARRIERS or any(_has_barrier(n) for b in node.blocks() for n in b.nodes())


def _find(scopes, floor, key):
    for seen in reversed(scopes[floor:]):
        node = seen.get(key)
        if node is not None:
            return node
    return None


def _run(block, db, scopes, floor, barriers) -> int:
    """scopes: the nodes seen in each enclosing block (innermost last; a block adds its own rather than
    copying its parent's), of which those from scopes[floor] on are still valid."""
    merged = 0
    scopes.append({})
    for node in block.nodes():
        barrier = barriers and _has_barrier(node)
        for sub in node.blocks():
            # a loop body runs again after its own barrier: it starts from nothing known; so does a `with`
            # block's exit (prim::Enter's block), which runs when an error leaves the block, when values of the
            # graph it could share may be gone
            fresh = node.kind() == "prim::Enter" or (barrier and node.kind() == "prim::Loop")
            merged += _run(sub, db, scopes, len(scopes) if fresh else floor, barriers)
        if barrier:
            scopes[-1].clear()
            floor = len(scopes) - 1
            continue
        if not _mergeable(node, db):
            continue
        key = _key(node)
        earlier = _find(scopes, floor, key)
        if earlier is None:
            scopes[-1][key] = node
            continue
        for old, new in zip(node.outputs(), earlier.outputs()):
            old.replaceAllUsesWith(new)
        node.destroy()
        merged += 1
    scopes.pop()
    return merged


def eliminate_common_subexpression(graph) -> int:
    """Merges repeated computations; returns how many nodes were removed."""
    barriers = any(n.kind() in _BARRIERS for n in graph.allNodes())
    return _run(graph.block(), AliasDb(graph), [], 0, barriers)
