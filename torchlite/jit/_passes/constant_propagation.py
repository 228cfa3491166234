"""Constant propagation and folding: a node whose inputs are all prim::Constant runs once, in the
interpreter (the boxed op, so exactly eager's result), and its outputs become constants. Nodes that
write ((a!) in the schema), return nothing, are random (tagged `random`) or own blocks are left;
so are list/tuple constructions of tensors, kept visible to later passes."""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _jit

_FOLDABLE_PRIMS = ("prim::ListConstruct", "prim::TupleConstruct", "prim::ListUnpack", "prim::TupleUnpack")


def _foldable(node, db, prims) -> bool:
    if node.kind() in ("prim::ListConstruct", "prim::DictConstruct") and db.has_writers(node.output()):
        return False  # a list script appends to (a dict it sets items of): a constant would be shared by every run
    if node.blocks() or node.hasSideEffects() or node.isNondeterministic():
        return False
    if node.kind() == "prim::TupleConstruct" and node.output().type().fields():
        return False  # a named tuple: the constant's type would be a plain tuple's, losing the class (its tag)
    if node.fn_schema() is None and node.kind() not in _FOLDABLE_PRIMS and node.kind() not in prims:
        return False
    return all(v.isConstant() for v in node.inputs())


def _makes_tensor(node) -> bool:
    return any("Tensor" in str(o.type()) for o in node.outputs())


def constant_propagation(graph, tensors=True, prims=False) -> int:
    """Folds every foldable node (repeatedly: a folded result may make its users foldable);
    returns how many nodes were folded. An op that raises on its constant inputs is left to raise
    when the graph runs. `tensors=False` leaves nodes that give tensors (script's graphs: a folded
    factory call would hand every run the same tensor); `prims=True` also folds script's pure prim
    ops (int/str/list arithmetic, dims of constant tensors)."""
    from torchlite.jit._passes.alias import AliasDb

    folded = 0
    db = AliasDb(graph)
    prim_kinds = frozenset(_jit._prim_kinds()) if prims else frozenset()
    for node in graph.allNodes():
        if not _foldable(node, db, prim_kinds) or (not tensors and _makes_tensor(node)):
            continue
        try:
            with _tl.no_grad():
                values = _jit.run_node(node, [v.toIValue() for v in node.inputs()])
        except Exception:  # the error belongs to the run of the graph, not to the pass
            continue
        graph.setInsertPoint(node)
        for out, value in zip(node.outputs(), values):
            const = graph.insertConstant(value)
            if isinstance(value, _tl.Tensor):
                const.setType(_jit.Type.of(value))
            elif str(out.type()).startswith("Dict("):
                const.setType(out.type())  # a dict's value is a list of keys and values: the type tells (str())
            out.replaceAllUsesWith(const)
        graph.setInsertPoint(graph.return_node())
        node.destroy()
        folded += 1
    return folded
