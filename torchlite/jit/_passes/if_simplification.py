"""prim::If simplification, for script's graphs (whose structured form nests everything after an
`if ...: raise` in the branch that goes on; MultiheadAttention's argument checks nest ten deep and
pass eight values out of each level):

- an If on a constant condition becomes the nodes of the branch it takes;
- an If with one branch that always raises (a prim::RaiseException at its top level) and one that
  does not: the latter's nodes move after the If, which keeps only the check (`if c: raise`); the If's
  outputs are the other branch's, since when the raising branch runs nothing after it does;
- an output that is the same value in both branches (defined before the If) is that value.

The order of what runs is unchanged (a moved branch runs right after the check, as before), so are
the values and the errors: only the outputs' plumbing and the nesting go, which lets CSE see the
moved nodes beside the rest of the block."""
from __future__ import annotations


def _always_raises(block) -> bool:
    return any(n.kind() == "prim::RaiseException" for n in block.nodes())


def _drop_outputs(node, keep):
    """Replaces each output of the If by keep[i] (a value visible where the output is used) and erases
    them, with the blocks' outputs."""
    for i, out in enumerate(node.outputs()):
        out.replaceAllUsesWith(keep[i])
    for i in reversed(range(len(node.outputs()))):
        for b in node.blocks():
            b.eraseOutput(i)
        node.eraseOutput(i)


def _constant_condition(node):
    cond = node.input()
    if not cond.isConstant():
        return None
    value = cond.toIValue()
    return value if isinstance(value, bool) else None


def _simplify(node):
    """One If. Returns (changed, gone, the node to visit next in its block or None for node.next())."""
    then_b, else_b = node.blocks()
    taken = _constant_condition(node)
    if taken is not None:
        block = then_b if taken else else_b
        moved = list(block.nodes())
        keep = list(block.outputs())
        for inner in moved:  # in order, before the If
            inner.moveBefore(node)
        following = node.next()
        _drop_outputs(node, keep)
        node.destroy()
        return True, True, (moved[0] if moved else following)
    raises = (_always_raises(then_b), _always_raises(else_b))
    if raises[0] != raises[1]:
        goes_on = else_b if raises[0] else then_b
        moved = list(goes_on.nodes())
        if not moved and not node.outputs():
            return False, False, None  # already `if c: raise`
        _drop_outputs(node, list(goes_on.outputs()))
        last = node
        for inner in moved:  # in order, right after the If
            inner.moveAfter(last)
            last = inner
        return True, False, None
    changed = False
    for i in reversed(range(len(node.outputs()))):
        if then_b.outputs()[i].unique() == else_b.outputs()[i].unique():  # one value, so defined before the If
            node.outputs()[i].replaceAllUsesWith(then_b.outputs()[i])
            then_b.eraseOutput(i)
            else_b.eraseOutput(i)
            node.eraseOutput(i)
            changed = True
    return changed, False, None


def _run(block) -> int:
    changes = 0
    node = next(iter(block.nodes()), None)
    while node is not None and node.kind() != "prim::Return":
        if node.kind() == "prim::If" and len(node.blocks()) == 2 and len(node.inputs()) == 1:
            changed, gone, following = _simplify(node)
            changes += changed
            if gone:
                node = following
                continue
        for sub in node.blocks():
            changes += _run(sub)
        node = node.next()
    return changes


def simplify_ifs(graph) -> int:
    """Simplifies every prim::If (nested ones included); returns how many were changed."""
    return _run(graph.block())
