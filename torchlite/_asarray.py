"""torchlite.asarray: an object as a tensor, sharing its memory whenever PyTorch does.

PyTorch's rules (torch/csrc/utils/tensor_new.cpp): a tensor, a NumPy array and an object with the
buffer protocol (bytes, bytearray, memoryview, array.array) are aliased when dtype and device fit
and `copy` is not True, copied when `copy` is True or (copy=None) when they do not fit, and refused
with copy=False when they do not fit; any other object (numbers, nested sequences) is copied as by
torchlite.tensor(), and refused with copy=False. `requires_grad` defaults to the tensor's own.
"""
from __future__ import annotations

import warnings

from torchlite import _C
from torchlite._legacy_types import _STEMS
from torchlite.storage import UntypedStorage

_REQUIRES_GRAD_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
    "requires_grad=False explicitly to get the old behavior and silence this warning.")
_NOT_WRITABLE = {
    "numpy": "The given NumPy array is not writable, and torchlite does not support non-writable tensors. Writing "
             "to the tensor is undefined behavior; copy the array (or make it writable) first.",
    "buffer": "The given buffer is not writable, and torchlite does not support non-writable tensors. Writing to "
              "the tensor is undefined behavior; copy the buffer (or make it writable) first.",
}
# NumPy's names of the dtypes a buffer can be read as (bfloat16 has none).
_NUMPY_NAMES = {
    _C.bool: "bool", _C.uint8: "uint8", _C.int8: "int8", _C.int16: "int16", _C.int32: "int32", _C.int64: "int64",
    _C.float16: "float16", _C.float32: "float32", _C.float64: "float64", _C.uint16: "uint16", _C.uint32: "uint32",
    _C.uint64: "uint64",
}


def _numpy_kind(obj):
    """'array', 'scalar' or None: whether obj is a NumPy array (or subclass) or a NumPy scalar. NumPy is
    imported only when obj comes from it, so plain calls do not pay for the import."""
    if not type(obj).__module__.startswith("numpy"):
        return None
    import numpy as np

    if isinstance(obj, np.ndarray):
        return "array"
    return "scalar" if isinstance(obj, np.generic) else None


def _quiet_from_numpy(array):
    """from_numpy without its read-only warning (asarray warns only when it aliases); (tensor, read-only)."""
    if array.flags.writeable:
        return _C.from_numpy(array), False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _C.from_numpy(array), True


def _from_buffer(obj, dtype, count=-1, offset=0, op="asarray"):
    """A 1-D tensor viewing the bytes of a buffer-protocol object as `dtype` (`count` elements from byte
    `offset`, all the rest when count is -1) and whether they are read-only; None when obj has no buffer."""
    try:
        view = memoryview(obj)
    except TypeError:
        return None
    import numpy as np

    nbytes, itemsize = view.nbytes, dtype.itemsize
    if nbytes == 0 or count == 0:
        raise ValueError(f"{op}: both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(f"{op}: offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({nbytes} bytes) minus 1")
    if count < 0:
        if (nbytes - offset) % itemsize:
            raise ValueError(f"{op}: buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be "
                             f"a multiple of element size ({itemsize})")
        count = (nbytes - offset) // itemsize
    elif offset + count * itemsize > nbytes:
        raise ValueError(f"{op}: requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({nbytes} bytes)")
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")  # np.frombuffer counts and offsets in bytes of a flat view
    if dtype == _C.bfloat16:  # NumPy has no bfloat16: read the 2-byte words, then reinterpret them
        words, read_only = _quiet_from_numpy(np.frombuffer(view, dtype="uint16", count=count, offset=offset))
        return _reinterpret(words.untyped_storage(), dtype), read_only
    if dtype not in _NUMPY_NAMES:
        raise TypeError(f"{op}: reading a buffer as {dtype} is not supported")
    return _quiet_from_numpy(np.frombuffer(view, dtype=_NUMPY_NAMES[dtype], count=count, offset=offset))


def _reinterpret(storage, dtype):
    """A 1-D tensor of `dtype` over the whole bytes of an UntypedStorage (a trailing partial element
    left out), sharing them."""
    return _C._ops.empty((0,), dtype=dtype).set_(storage, 0, (storage.nbytes() // dtype.itemsize,), (1,))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """`obj` as a tensor: tensors, NumPy arrays and buffers are shared when dtype and device fit and `copy`
    is not True; other objects (numbers, nested sequences) are copied. `copy=False` refuses any copy
    (ValueError); `requires_grad` defaults to that of a tensor `obj` (False otherwise)."""
    if copy is None and dtype is None and device is None and requires_grad is None and isinstance(obj, _C.TensorBase) \
            and not obj.requires_grad:
        return obj  # the common call, asarray(tensor): the tensor itself
    tensor = obj if isinstance(obj, _C.TensorBase) else None
    wants_grad = requires_grad if requires_grad is not None else tensor is not None and tensor.requires_grad
    if wants_grad and requires_grad is None:
        warnings.warn(_REQUIRES_GRAD_WARNING, UserWarning, stacklevel=2)
    force_copy, force_alias = copy is True, copy is False
    read_only = None  # which warning an alias of read-only memory deserves

    if tensor is None:
        kind = _numpy_kind(obj)
        if kind == "scalar":
            if force_alias:
                raise ValueError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
            import numpy as np

            tensor = _quiet_from_numpy(np.asarray(obj))[0].clone()
            force_copy = False  # a fresh tensor already
        elif kind == "array":
            tensor, ro = _quiet_from_numpy(obj)
            read_only = "numpy" if ro else None
        elif isinstance(obj, UntypedStorage):  # its bytes, as PyTorch: int64 unless `dtype` says otherwise
            tensor = _reinterpret(obj, dtype if dtype is not None else _C.int64)
        else:
            found = _from_buffer(obj, dtype if dtype is not None else _C.get_default_dtype())
            if found is not None:
                tensor, ro = found
                read_only = "buffer" if ro else None

    if tensor is None:  # a number or a sequence: always a new tensor
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        result = _C.tensor(obj, dtype=dtype, device=device)
        if wants_grad:
            result.requires_grad_(True)
        return result

    wrong_device = device is not None and _C.device(device) != tensor.device
    wrong_dtype = dtype is not None and dtype != tensor.dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            tensor = tensor.to(_C.device(device) if device is not None else tensor.device,
                               dtype if dtype is not None else tensor.dtype, copy=force_copy)
        else:
            tensor = tensor.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{tensor.device}' to '{_C.device(device)}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{_STEMS[tensor.dtype]}' into dtype "
                             f"'{_STEMS[dtype]}'.")
        if read_only:
            warnings.warn(_NOT_WRITABLE[read_only], UserWarning, stacklevel=2)
    # As PyTorch: the result is `obj` itself when nothing was copied, with requires_grad set on it.
    if not tensor.is_leaf and not wants_grad:
        return tensor.detach()
    if tensor.is_leaf:
        tensor.requires_grad_(wants_grad)
    return tensor


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of a buffer-protocol object: `count` elements of `dtype` (all that
    follow when -1) starting `offset` bytes in. Read-only buffers are shared too, with a warning."""
    found = _from_buffer(buffer, dtype, count, offset, op="frombuffer")
    if found is None:
        raise ValueError("frombuffer: object does not implement Python buffer protocol.")
    tensor, read_only = found
    if read_only:
        warnings.warn(_NOT_WRITABLE["buffer"], UserWarning, stacklevel=2)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor
