"""default_collate and default_convert (PyTorch's torch.utils.data._utils.collate).

collate() dispatches on the type of the batch's first element through a {type: fn} map (exact type first, then
isinstance in the map's order), then recurses into mappings, namedtuples and sequences. Tensors are stacked
into an ordinary tensor, except inside a DataLoader worker, where they are stacked straight into shared memory
(as PyTorch's are): the batch then crosses to the main process as file descriptors (_batch_transport.py)
without being copied again.
"""
import collections.abc
import copy
import re

import torchlite
from torchlite.utils.data._worker import get_worker_info

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

# NumPy dtype codes of bytes, str, unicode and object arrays: these cannot become tensors.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

_default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                                   "dicts or lists; found {}")


def _is_numpy_value(x):
    t = type(x)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_")


def default_convert(data):
    """NumPy arrays and scalars inside `data` (recursing into mappings, namedtuples and sequences) become
    tensors; everything else is returned unchanged. The collate_fn of a DataLoader that does not batch."""
    elem_type = type(data)
    if isinstance(data, torchlite.Tensor):
        return data
    if _is_numpy_value(data):
        if elem_type.__name__ == "ndarray" and _np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return torchlite.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # PyTorch returns tuples as lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, converted):
    """A mapping of `like`'s type holding `converted`; a dict when that type cannot be built from one."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)  # keeps subclass state (OrderedDict, defaultdict's factory, ...)
            clone.update(converted)
            return clone
        return type(like)(converted)
    except TypeError:
        return converted


def _rebuild_sequence(like, items):
    """A sequence of `like`'s type holding `items`; a list when that type cannot be built from one."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples with `collate_fn_map` ({type or tuple of types: fn(batch, *, collate_fn_map)})
    for the leaves, recursing into mappings, namedtuples and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # Columns stay the tuples zip makes, as in PyTorch: a column of strings comes back as a tuple.
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # PyTorch returns tuples as lists
        return _rebuild_sequence(elem, columns)
    raise TypeError(_default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if get_worker_info() is not None and elem.device.type == "cpu":
        # In a worker: the batch goes to the main process, so stack it where that process can map it.
        storage = torchlite.UntypedStorage._new_using_fd_cpu(len(batch) * elem.numel() * elem.element_size())
        out = torchlite.empty(0, dtype=elem.dtype).set_(storage, 0, (len(batch), *elem.shape))
        return torchlite.stack(batch, 0, out=out)
    return torchlite.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(_default_collate_err_msg_format.format(elem.dtype))
    return collate([torchlite.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return torchlite.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return torchlite.tensor(batch, dtype=torchlite.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    # bool is an int: a batch of bools becomes a bool tensor, as in PyTorch.
    return torchlite.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {torchlite.Tensor: collate_tensor_fn}
try:
    import numpy as _np
except ImportError:  # NumPy is optional
    _np = None
if _np is not None:
    default_collate_fn_map[_np.ndarray] = collate_numpy_array_fn  # memmap too (a subclass)
    default_collate_fn_map[(_np.bool_, _np.number, _np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Stack a list of samples into a batch: tensors are stacked along a new first dimension, NumPy arrays and
    scalars and Python numbers become tensors (float -> float64, int -> int64, bool -> bool), strings stay
    lists, and mappings, namedtuples and sequences are collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
