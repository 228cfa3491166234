"""Common-subexpression elimination: a node with the same kind, overload, inputs and attributes as
an earlier node in the same block reuses that node's outputs. Nodes that write, are random
(tagged `random` in the YAML), own blocks, or read or return values whose alias set is written
anywhere are never merged: a write between the two could make them differ."""
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
    return (node.kind(), node.schema(), tuple(v.unique() for v in node.inputs()), _attr_key(node))


def _mergeable(node, db) -> bool:
    if node.blocks() or node.hasSideEffects() or node.isNondeterministic():
        return False
    if node.kind() in ("prim::Param", "prim::Return"):
        return False
    return not any(db.has_writers(v) for v in list(node.inputs()) + list(node.outputs()))


def _run(block, db, seen) -> int:
    merged = 0
    for node in block.nodes():
        for sub in node.blocks():
            merged += _run(sub, db, dict(seen))
        if not _mergeable(node, db):
            continue
        key = _key(node)
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = node
            continue
        for old, new in zip(node.outputs(), earlier.outputs()):
            old.replaceAllUsesWith(new)
        node.destroy()
        merged += 1
    return merged


def eliminate_common_subexpression(graph) -> int:
    """Merges repeated computations; returns how many nodes were removed."""
    return _run(graph.block(), AliasDb(graph), {})
