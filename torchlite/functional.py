"""The shape functions PyTorch keeps in Python (torch/functional.py): variadic front ends of
broadcast_tensors, meshgrid and atleast_1d/2d/3d over their YAML-declared ops, and
broadcast_shapes, which needs no tensors."""
from __future__ import annotations

import warnings as _warnings
from collections.abc import Sequence

from torchlite import _C
from torchlite._size import Size as _Size

_ops = _C._ops

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "meshgrid"]


def _as_list(tensors):
    """f(a, b) and f([a, b]) both mean the list [a, b]."""
    return tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors


def broadcast_tensors(*tensors):
    """Views of `tensors` broadcast to their common shape (a tuple). Like PyTorch, only separate
    arguments: one list is a TypeError (element 0 is not a Tensor)."""
    return tuple(_ops.broadcast_tensors(tensors))


def broadcast_shapes(*shapes):
    """The shape that tensors of `shapes` (ints or sequences of ints) broadcast to, as a Size;
    RuntimeError when they do not broadcast."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    if not shapes:
        return _Size([])
    common = [1] * max(len(s) for s in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            size = shape[i]
            if size == common[i]:
                continue
            if common[i] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = size
            if size != 1 and size != common[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {i}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return _Size(common)


_meshgrid_warned = False


def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids of 0-d/1-D tensors, given as arguments or one list: `indexing="ij"` (the
    default) or `"xy"`. Leaving `indexing` out warns once per process, as PyTorch's TORCH_WARN_ONCE."""
    global _meshgrid_warned
    tensors = _as_list(tensors)
    if indexing is None:
        if not _meshgrid_warned:
            _meshgrid_warned = True
            _warnings.warn("torchlite.meshgrid: in an upcoming release, it will be required to pass the indexing "
                          "argument.", UserWarning, stacklevel=2)
        return tuple(_ops.meshgrid(tensors))
    return tuple(_ops.meshgrid(tensors, indexing=indexing))


def _atleast(op, tensors):
    result = op(_as_list(tensors) if len(tensors) != 1 or isinstance(tensors[0], (list, tuple)) else tensors[0])
    return tuple(result) if isinstance(result, list) else result


def atleast_1d(*tensors):
    """Each tensor with at least one dimension: one tensor for one argument, else a tuple."""
    return _atleast(_ops.atleast_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions: one tensor for one argument, else a tuple."""
    return _atleast(_ops.atleast_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions: one tensor for one argument, else a tuple."""
    return _atleast(_ops.atleast_3d, tensors)


def _tensor_args(tensors):
    """PyTorch's varargs-of-tensors check (its C binding's): each argument must be a Tensor, so one
    list or tuple of tensors is a TypeError, as in torch.block_diag([a, b])."""
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def block_diag(*tensors):
    """The block-diagonal matrix of the tensors (0-d, 1-D as a row, or 2-D), in their promoted dtype.
    Separate arguments only, as PyTorch: one list is a TypeError."""
    return _ops.block_diag(_tensor_args(tensors))


def cartesian_prod(*tensors):
    """The Cartesian product of 1-D tensors, one row per tuple (one tensor: returned as it is).
    Separate arguments only, as PyTorch: one list is a TypeError."""
    return _ops.cartesian_prod(_tensor_args(tensors))


del annotations  # torch's module has no such name
