"""Constant pooling, as torch's ConstantPooling: equal prim::Constant nodes of a block become one
(the first), so that CSE can then merge the nodes that read them. Tensors are equal when dtype,
shape, device and every element agree (NaN matching NaN; 0.0 matches -0.0, as torch's tensor
equality); other values by type and value. Pooling looks at each block's own constants (a
constant inside a block stays there)."""
from __future__ import annotations

import torchlite as _tl


def _key(value):
    if isinstance(value, _tl.Tensor):
        return ("tensor", value.dtype, tuple(value.shape), str(value.device))
    if isinstance(value, float) and value != value:
        return ("nan",)
    return (type(value).__name__, repr(value))


def _same(a, b) -> bool:
    if isinstance(a, _tl.Tensor):
        if a.is_meta or b.is_meta:
            return a is b
        if a.is_floating_point():  # NaN matches NaN for constants
            return bool(((a == b) | (a.isnan() & b.isnan())).all())
        return bool(_tl.equal(a, b))
    return True  # the key already holds the value


def _pool(block) -> int:
    pooled = 0
    seen: dict = {}
    for node in block.nodes():
        for sub in node.blocks():
            pooled += _pool(sub)
        if node.kind() != "prim::Constant":
            continue
        value = node.output().toIValue()
        candidates = seen.setdefault(_key(value), [])
        for first in candidates:
            if str(first.output().type()) == str(node.output().type()) and _same(first.output().toIValue(), value):
                node.output().replaceAllUsesWith(first.output())
                node.destroy()
                pooled += 1
                break
        else:
            candidates.append(node)
    return pooled


def constant_pooling(graph) -> int:
    """Merges equal constants of each block; returns how many were removed."""
    return _pool(graph.block())
