"""Dead-code elimination: removes nodes whose outputs are unused, unless they write something
(in-place and out= ops, (a!) in their schema) or return nothing (ops run for their effect)."""
from __future__ import annotations


def _removable(node) -> bool:
    if node.kind() in ("prim::Param", "prim::Return"):
        return False
    if node.hasSideEffects():
        return False
    if any(o.hasUses() for o in node.outputs()):
        return False
    return all(_block_removable(b) for b in node.blocks())


def _block_removable(block) -> bool:
    return all(not n.hasSideEffects() and all(_block_removable(b) for b in n.blocks()) for n in block.nodes())


def _sweep(block) -> int:
    removed = 0
    for node in reversed(block.nodes()):
        for sub in node.blocks():
            removed += _sweep(sub)
        if _removable(node):
            node.destroy()
            removed += 1
    return removed


def eliminate_dead_code(graph) -> int:
    """Removes dead nodes (walking backwards, so whole dead chains go); returns how many."""
    return _sweep(graph.block())
