"""Indexing: tensor[index] and tensor[index] = value, as PyTorch defines them (docs/indexing.md).

Basic items (ints and objects with __index__, 0-d integer tensors, slices with a positive step,
None, Ellipsis) make a view (select / slice / unsqueeze / alias), so writes through it reach the
indexed tensor. Advanced items (integer and bool tensors, lists, NumPy arrays, Python bools) are
recorded at the dim they index of that view, and the view is then indexed by the `index` op
(`index_put_` for assignment): IndexBackward0 / IndexPutBackward0 in autograd, as in PyTorch.
"""
from __future__ import annotations

import operator
import warnings

from torchlite import _C

_ops = _C._ops

_BASIC_HELP = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
               "indices (got {})")


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


def _is_advanced(item) -> bool:
    return isinstance(item, (_C.TensorBase, list, bool)) or type(item).__module__ == "numpy"


def _as_sequence_tuple(index):
    """PyTorch reads a short list holding sequences, slices, None, Ellipsis or tensors as a tuple
    of indices (x[[0, [1, 2]]] is x[0, [1, 2]]); any other list is one index tensor."""
    if not isinstance(index, list) or len(index) >= 32:
        return None
    for item in index:
        if item is None or item is Ellipsis or isinstance(item, (slice, list, tuple, _C.TensorBase)):
            return tuple(index)
    return None


def _normalize(tensor, index):
    """(items, consumed, advanced): the index as a list, how many tensor dims it indexes, and
    whether any item is an advanced one."""
    if isinstance(index, tuple):
        items = list(index)
    else:
        seq = _as_sequence_tuple(index)
        items = list(seq) if seq is not None else [index]
    consumed = 0
    advanced = False
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, slice) or _as_int(item) is not None:
            consumed += 1
            continue
        if _is_advanced(item):
            advanced = True
            if isinstance(item, bool) or (isinstance(item, _C.TensorBase) and item.dtype == _C.bool
                                          and item.dim() == 0):
                continue  # a bool adds a dim, as None does
            if isinstance(item, _C.TensorBase) and item.dtype in (_C.bool, _C.uint8):
                consumed += item.dim()
            else:
                consumed += 1
            continue
        if isinstance(item, (str, bytes)):
            # PyTorch tries to make a tensor index of it, which fails with a TypeError.
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        raise IndexError(_BASIC_HELP.format(type(item).__name__))
    if tensor.dim() == 0 and consumed > 0 and not advanced:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python to convert a 0-dim "
                         "tensor to a number")
    if consumed > tensor.dim():
        raise IndexError(f"too many indices for tensor of dimension {tensor.dim()}")
    return items, consumed, advanced


def _index_tensor(item, device):
    """The index tensor of an advanced item: tensors as they are, lists and NumPy arrays as int64
    (or bool) tensors, as PyTorch converts them."""
    if isinstance(item, _C.TensorBase):
        if item.dtype == _C.uint8:
            warnings.warn("indexing with dtype torchlite.uint8 is now deprecated, please use a dtype "
                          "torchlite.bool instead.", UserWarning, stacklevel=4)
        return item
    if isinstance(item, list) and not item:
        return _C.tensor([], dtype=_C.int64, device=device)
    t = _C.tensor(item, device=device)
    if t.dtype.is_floating_point:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t


_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _clamp_int64(value: int) -> int:
    return min(max(value, _INT64_MIN), _INT64_MAX)


def _apply(tensor, items, consumed, advanced):
    """The view the basic items make, and (when there are advanced items) the indices list for
    the `index` op: an index tensor for the dims it indexes (a mask covers mask.dim() dims), None
    for the others."""
    result = tensor
    dim = 0
    indices = [] if advanced else None
    covered = 0  # dims of `result` the indices list covers so far

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
            result = _C._internal.slice(result, dim, start, stop, _clamp_int64(step))
            dim += 1
        elif advanced and _is_advanced(item) and _as_int(item) is None:
            if isinstance(item, bool) or (isinstance(item, _C.TensorBase) and item.dtype == _C.bool
                                          and item.dim() == 0):
                # x[True] / x[False]: a new dim of size 1, indexed by [0] or by nothing (as PyTorch)
                result = result.unsqueeze(dim)
                t, ndims = _C.tensor([0] if bool(item) else [], dtype=_C.int64, device=result.device), 1
            else:
                t = _index_tensor(item, result.device)
                ndims = t.dim() if t.dtype in (_C.bool, _C.uint8) else 1
            indices.extend([None] * (dim - covered))  # the dims since the last index tensor
            indices.append(t)
            dim += ndims
            covered = dim
        else:
            index = _as_int(item)
            if not _INT64_MIN <= index <= _INT64_MAX:
                # PyTorch's exception type for an index that does not fit int64.
                raise ValueError(f"index {index} is out of the range of int64 (indexing a tensor of shape "
                                 f"{tuple(result.shape)} at dimension {dim})")
            result = result.select(dim, index)
    return result, indices


def getitem(tensor, index):
    items, consumed, advanced = _normalize(tensor, index)
    if advanced:
        result, indices = _apply(tensor, items, consumed, True)
        return _C._internal.index(result, indices)
    return _basic_view(tensor, items, consumed)


def _basic_view(tensor, items, consumed):
    """The view basic items make (the hot path: kept inline, one call)."""
    result = tensor
    dim = 0
    for item in items:
        if item is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif item is Ellipsis:
            dim += tensor.dim() - consumed
        elif isinstance(item, slice):
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = None if item.start is None else _clamp_int64(operator.index(item.start))
            stop = None if item.stop is None else _clamp_int64(operator.index(item.stop))
            result = _C._internal.slice(result, dim, start, stop, _clamp_int64(step))
            dim += 1
        else:
            index = _as_int(item)
            if not _INT64_MIN <= index <= _INT64_MAX:
                raise ValueError(f"index {index} is out of the range of int64 (indexing a tensor of shape "
                                 f"{tuple(result.shape)} at dimension {dim})")
            result = result.select(dim, index)
    if result is tensor:
        # tensor[...] and tensor[()] are views too, not the tensor itself.
        result = _C._internal.alias(tensor)
    return result


def _value_tensor(tensor, value):
    """An assigned value as a tensor: numbers as 0-d tensors of tensor's dtype; a tensor as it is
    (index_put_ then requires tensor's dtype, as in PyTorch)."""
    if isinstance(value, _C.TensorBase):
        return value
    return _C.tensor(value, dtype=tensor.dtype, device=tensor.device)


def setitem(tensor, index, value):
    items, consumed, advanced = _normalize(tensor, index)
    if advanced:
        view, indices = _apply(tensor, items, consumed, True)
        value = _value_tensor(tensor, value)
        # Leading size-1 dimensions of the value are dropped first, as in PyTorch.
        while value.dim() > 0 and value.shape[0] == 1:
            value = value.select(0, 0)
        view.index_put_(indices, value)
        return
    view = _basic_view(tensor, items, consumed)
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
