"""Basic indexing: tensor[index] and tensor[index] = value.

Supported index items: ints (and objects with __index__, 0-d integer tensors), slices with a
positive step, None (a new dimension of size 1), Ellipsis, and tuples of those. The result is a
view (select / slice / unsqueeze / alias), so writes through it reach the indexed tensor.
Advanced indexing (tensors, lists, NumPy arrays, bools as indices) is not supported yet.
"""
from __future__ import annotations

import operator

from torchlite import _C

_ops = _C._ops

_BASIC_HELP = ("only integers, slices (`:`), ellipsis (`...`) and None are supported as indices "
               "(advanced indexing with tensors, lists or bools is not supported yet)")


def _advanced(item) -> NotImplementedError:
    return NotImplementedError(
        f"torchlite does not support advanced indexing yet (index of type {type(item).__name__}); " + _BASIC_HELP)


def _as_int(item):
    """The int value of an integer index item, or None if `item` is not one."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, _C.TensorBase):
        if item.dim() == 0 and not item.dtype.is_floating_point and item.dtype != _C.bool:
            return item.item()
        return None
    if isinstance(item, float):
        return None
    try:
        return operator.index(item)
    except TypeError:
        return None


def _normalize(tensor, index):
    """(items, consumed): the index as a list, and how many tensor dims it indexes."""
    items = list(index) if isinstance(index, tuple) else [index]
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, slice) or _as_int(item) is not None:
            consumed += 1
            continue
        if isinstance(item, (_C.TensorBase, list, bool)) or type(item).__module__ == "numpy":
            raise _advanced(item)
        if isinstance(item, (str, bytes)):
            # PyTorch tries to make a tensor index of it, which fails with a TypeError.
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        raise IndexError(f"{_BASIC_HELP}; got an index of type {type(item).__name__}")
    if tensor.dim() == 0 and consumed > 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python to convert a 0-dim "
                         "tensor to a number")
    if consumed > tensor.dim():
        raise IndexError(f"too many indices for tensor of dimension {tensor.dim()}")
    return items, consumed


_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _clamp_int64(value: int) -> int:
    return min(max(value, _INT64_MIN), _INT64_MAX)


def getitem(tensor, index):
    items, consumed = _normalize(tensor, index)
    result = tensor
    dim = 0
    for item in items:
        if item is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif item is Ellipsis:
            # Every `...` stands for the dimensions no other item indexes (PyTorch accepts several).
            dim += tensor.dim() - consumed
        elif isinstance(item, slice):
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            # Bounds beyond int64 select the same elements as the int64 limits (x[2**63:] is empty), as
            # in PyTorch; a step beyond it keeps only the first element.
            start = None if item.start is None else _clamp_int64(operator.index(item.start))
            stop = None if item.stop is None else _clamp_int64(operator.index(item.stop))
            result = result.slice(dim, start, stop, _clamp_int64(step))
            dim += 1
        else:
            index = _as_int(item)
            if not _INT64_MIN <= index <= _INT64_MAX:
                # PyTorch's exception type for an index that does not fit int64.
                raise ValueError(f"index {index} is out of the range of int64 (indexing a tensor of shape "
                                 f"{tuple(result.shape)} at dimension {dim})")
            result = result.select(dim, index)
    if result is tensor:
        # tensor[...] and tensor[()] are views too, not the tensor itself.
        result = _ops.alias(tensor)
    return result


def setitem(tensor, index, value):
    view = getitem(tensor, index)
    if isinstance(value, _C.TensorBase):
        # Leading size-1 dimensions of the value are dropped first (x[0] = ones(1, n) works), as in PyTorch.
        while value.dim() > view.dim() and value.shape[0] == 1:
            value = value.select(0, 0)
        view.copy_(value)
    elif isinstance(value, (bool, int, float)) or (type(value).__module__ == "numpy" and
                                                     type(value).__name__ != "ndarray"):
        view.fill_(value)  # Python and NumPy numbers
    else:
        view.copy_(_C.tensor(value, dtype=tensor.dtype, device=tensor.device))
