"""Storages: the memory behind tensors, as Python objects (PyTorch's torch/storage.py API).

`Tensor.untyped_storage()` gives the `UntypedStorage` a tensor views: bytes, shared by every view
of the tensor (the same Python object, with the same `_cdata` and `data_ptr()`). Its C base,
`torchlite._C.StorageBase` (torchlite/csrc/storage.cpp), holds the C++ storage and keeps it
alive; element access, printing and pickling are written here on top of a 1-D tensor over the
bytes (`_tensor(dtype)`). `TypedStorage` (from `Tensor.storage()`, deprecated in PyTorch too) is
an UntypedStorage read as one dtype; `FloatStorage` & co are its legacy per-dtype classes.

Differences from PyTorch, deliberate (see docs/storage.md): `resize_` to fewer bytes keeps the
memory block while the storage lives, so tensors still viewing past the new end read stale bytes
instead of crashing; `share_memory_` maps the bytes with a memfd (shared with processes forked
afterwards, and sent to others by torchlite.multiprocessing) and refuses a storage NumPy points into;
pickling copies the bytes.
"""
from __future__ import annotations

import builtins as _builtins
import sys as _sys
import warnings

from torchlite import _C

__all__ = ["TypedStorage", "UntypedStorage"]

_uint8 = _C.uint8


def _slice_bounds(index: slice, size: int):
    start, stop, step = index.indices(size)
    if step != 1:
        raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
    return start, _builtins.max(start, stop)


def _check_int_index(index, size: int, what: str) -> int:
    if not isinstance(index, _builtins.int) or isinstance(index, _builtins.bool):
        raise TypeError(f"can't index a {what} with {type(index).__name__}")
    if index < -size or index >= size:
        raise IndexError(f"index {index} out of range for storage of size {size}")
    return index + size if index < 0 else index


def _repr_lines(values, header: str) -> str:
    if values is None:  # meta: no data
        return f"...\n[{header}]"
    return " " + "\n ".join(str(v) for v in values) + f"\n[{header}]"


def _load_untyped_storage(data, nbytes, device):
    """Unpickles an UntypedStorage (bytes, or None for a meta storage of nbytes)."""
    if data is None:
        return UntypedStorage(nbytes, device=device)
    return UntypedStorage._new_from_bytes(data)


def _load_typed_storage(untyped, dtype):
    return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


class _StorageShared:
    """What UntypedStorage and TypedStorage have alike: the dtype casts, each a new TypedStorage of that
    dtype (`self._to`), and the file/device queries whose answer is fixed here."""

    __slots__ = ()

    @property
    def filename(self):
        return None  # no storage is mapped from a file (from_file is not supported)

    @property
    def is_hpu(self) -> bool:
        return False

    def double(self):
        return self._to(_C.float64)

    def float(self):
        return self._to(_C.float32)

    def half(self):
        return self._to(_C.float16)

    def bfloat16(self):
        return self._to(_C.bfloat16)

    def long(self):
        return self._to(_C.int64)

    def int(self):
        return self._to(_C.int32)

    def short(self):
        return self._to(_C.int16)

    def char(self):
        return self._to(_C.int8)

    def byte(self):
        return self._to(_C.uint8)

    def bool(self):
        return self._to(_C.bool)


class UntypedStorage(_StorageShared, _C.StorageBase):
    """The bytes behind tensors: `UntypedStorage(nbytes, *, device=None)`, `UntypedStorage(sequence of
    byte values)`, or `tensor.untyped_storage()`. Indexing reads and writes bytes (ints in [0, 255]);
    a slice is a storage sharing the bytes."""

    __slots__ = ()
    is_sparse = False
    is_sparse_csr = False
    is_cuda = False

    def __new__(cls, *args, device=None):
        if len(args) == 1 and not isinstance(args[0], _builtins.int) and hasattr(args[0], "__iter__"):
            values = list(args[0])
            result = super().__new__(cls, len(values), device=device)
            if values and not result.device.type == "meta":
                result._tensor(_uint8).copy_(_C.tensor(values, dtype=_uint8))
            return result
        return super().__new__(cls, *args, device=device)

    def size(self) -> int:
        """The size in bytes (as nbytes())."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def __getitem__(self, index):
        n = self.nbytes()
        if isinstance(index, slice):
            start, stop = _slice_bounds(index, n)
            return self._slice(start, stop)
        return self._tensor(_uint8)[_check_int_index(index, n, "storage")].item()

    def __setitem__(self, index, value):
        n = self.nbytes()
        if isinstance(index, slice):
            start, stop = _slice_bounds(index, n)
            self._tensor(_uint8)[start:stop] = value
        else:
            self._tensor(_uint8)[_check_int_index(index, n, "storage")] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        """The bytes as a list of ints."""
        return self._tensor(_uint8).tolist()

    def fill_(self, value):
        """Sets every byte to `value`; returns self."""
        self._tensor(_uint8).fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        """Copies the bytes of `source` (a storage of the same size in bytes); returns self."""
        source = source.untyped() if isinstance(source, TypedStorage) else source
        if not isinstance(source, UntypedStorage):
            raise TypeError(f"copy_(): argument 'src' must be a storage, not {type(source).__name__}")
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was "
                               f"{source.nbytes()} bytes")
        if self.device.type != "meta" and self.nbytes():
            self._tensor(_uint8).copy_(source._tensor(_uint8))
        return self

    def untyped(self):
        return self

    def clone(self):
        """A new storage with a copy of the bytes."""
        return UntypedStorage(self.nbytes(), device=self.device).copy_(self)

    def cpu(self):
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def get_device(self):
        """The device index: None for CPU and meta storages, as PyTorch."""
        return self.device.index

    def new(self):
        """An empty storage on the same device."""
        return UntypedStorage(0, device=self.device)

    def type(self, dtype=None, non_blocking=False):
        """The type's name without `dtype`; else the storage converted to the storage class `dtype`
        (a class or its dotted name): self if it is of that class, otherwise a new one of as many
        elements as self has bytes, copied from self."""
        if dtype is None:
            return "torch.storage.UntypedStorage"
        target = _storage_class(dtype)
        if target is _builtins.type(self):
            return self
        return target(self.size()).copy_(self, non_blocking)

    def to(self, *, device, non_blocking=False):
        """Self when on `device`, else a copy of the bytes there."""
        device = device if isinstance(device, _C.device) else _C.device(device)
        if device == self.device:
            return self
        if device.type != "cpu":  # PyTorch looks for torch.<device type>, which meta has not
            raise AssertionError(f"{device.type.upper()} device module is not loaded")
        if self.device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return UntypedStorage(self.nbytes(), device=device).copy_(self)

    def _to(self, dtype):
        """Each byte converted to `dtype`: a TypedStorage of nbytes() elements, never sharing self's memory."""
        return _converted(self._tensor(_uint8), dtype, self)

    def byteswap(self, dtype):
        """Reverses the bytes of each `dtype` element in place (nbytes() must be a multiple of its size)."""
        size = dtype.itemsize
        if size > 1 and self.nbytes():
            if self.nbytes() % size:
                raise RuntimeError(f"byteswap: the storage size {self.nbytes()} is not a multiple of {size}")
            if self.device.type != "meta":
                elements = self._tensor(_uint8).view(-1, size)
                elements.copy_(elements.flip(1))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        key = self._cdata
        if key not in memo:
            memo[key] = self.clone()
        return memo[key]

    def __reduce__(self):
        if self.device.type == "meta":
            return (_load_untyped_storage, (None, self.nbytes(), "meta"))
        return (_load_untyped_storage, (self._to_bytes(), self.nbytes(), "cpu"))

    def __repr__(self) -> str:
        values = None if self.device.type == "meta" else self.tolist()
        return _repr_lines(values, f"torchlite.storage.UntypedStorage(device={self.device}) of size {len(self)}")

    __str__ = __repr__

    def __sizeof__(self) -> int:
        return super().__sizeof__() + self.nbytes()

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0, *, dtype=None):
        """A new CPU storage holding `count` elements of `dtype` (all that fit when -1) read from
        the bytes-like `buffer` at byte `offset`, in `byte_order` ('native', 'little' or 'big')."""
        if dtype is None:
            raise RuntimeError("argument 'dtype' cannot be None")
        return _from_buffer(cls, buffer, byte_order, count, offset, dtype)


def _converted(values, dtype, source):
    """A TypedStorage over `values` (a 1-D tensor) converted to `dtype`, copied if the conversion
    returned `source`'s own memory (a conversion to the same dtype)."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"Argument 'dtype' must be torch.dtype, not {_builtins.type(dtype)}")
    untyped = values.to(dtype).untyped_storage()
    if untyped._cdata == source._cdata:
        untyped = untyped.clone()
    return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


def _storage_class(name):
    """The storage class `name` designates: a class, or a dotted name under torchlite or torch
    ('torch.FloatStorage', 'torch.storage.UntypedStorage', ...)."""
    if not isinstance(name, str):
        return name
    import torchlite
    parts = name.split(".")
    if parts[0] not in ("torch", "torchlite"):
        raise ValueError(f"type: {name!r} is not the name of a storage class")
    obj = torchlite
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def _from_buffer(cls, buffer, byte_order, count, offset, dtype):
    if byte_order not in ("native", "little", "big"):
        raise ValueError(f"from_buffer: byte_order must be 'native', 'little' or 'big', not {byte_order!r}")
    view = memoryview(buffer).cast("B")
    itemsize = dtype.itemsize
    if offset < 0 or offset > len(view):
        raise ValueError(f"offset must be non-negative and no greater than buffer length ({len(view)}), "
                         f"but got {offset}")
    if count < 0:
        if (len(view) - offset) % itemsize:
            raise ValueError(f"buffer size ({len(view) - offset}) must be a multiple of element size ({itemsize})")
        count = (len(view) - offset) // itemsize
    if offset + count * itemsize > len(view):
        raise ValueError(f"buffer has only {len(view) - offset} elements after offset {offset}, but specified a "
                         f"size of {count}")
    result = UntypedStorage._new_from_bytes(view[offset:offset + count * itemsize])
    native = _sys.byteorder
    if byte_order != "native" and byte_order != native and itemsize > 1 and count:
        swapped = result._tensor(_uint8).view(count, itemsize)
        swapped.copy_(swapped.flip(1))
    return result


# ---------------------------------------------------------------- TypedStorage

_typed_storage_warned = False


def _warn_typed_storage_removal():
    global _typed_storage_warned
    if not _typed_storage_warned:
        _typed_storage_warned = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


class TypedStorage(_StorageShared):
    """An UntypedStorage read as elements of one dtype (what `Tensor.storage()` returns; PyTorch
    deprecates it in favour of UntypedStorage). `TypedStorage(size or sequence, *, dtype, device)` or
    `TypedStorage(wrap_storage=untyped, dtype=dtype)`."""

    is_sparse = False

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        self = object.__new__(cls)
        fixed = cls.__dict__.get("_legacy_dtype")
        if fixed is not None:
            if dtype is not None and dtype != fixed:
                raise RuntimeError(f"{cls.__name__}.__new__ got dtype {dtype}, but the class holds {fixed}")
            dtype = fixed
        if dtype is None:
            dtype = _C.get_default_dtype()
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage.__new__ received positional arguments with wrap_storage")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected UntypedStorage for argument 'wrap_storage', but got "
                                f"{type(wrap_storage).__name__}")
            if device is not None and _C.device(device) != wrap_storage.device:
                raise RuntimeError(f"Device of 'wrap_storage' must be the same as 'device': {wrap_storage.device} "
                                   f"vs {_C.device(device)}")
            untyped = wrap_storage
        elif not args:
            untyped = UntypedStorage(0, device=device)
        elif len(args) == 1 and isinstance(args[0], _builtins.int) and not isinstance(args[0], _builtins.bool):
            if args[0] < 0:
                raise RuntimeError(f"TypedStorage: the size must not be negative, got {args[0]}")
            untyped = UntypedStorage(args[0] * dtype.itemsize, device=device)
        elif len(args) == 1 and hasattr(args[0], "__iter__"):
            values = _C.tensor(list(args[0]), dtype=dtype)
            untyped = UntypedStorage(values.numel() * dtype.itemsize, device=device)
            if values.numel() and untyped.device.type != "meta":
                untyped._tensor(dtype).copy_(values)
        else:
            raise TypeError(f"{cls.__name__}(): expected a size, a sequence or wrap_storage=, got "
                            f"({', '.join(type(a).__name__ for a in args)})")
        object.__setattr__(self, "_untyped_storage", untyped)
        object.__setattr__(self, "dtype", dtype)
        return self

    def __init__(self, *args, **kwargs):
        pass

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return False

    def _elements(self):
        return self._untyped_storage._tensor(self.dtype)

    def untyped(self):
        return self._untyped_storage

    def size(self) -> int:
        """The number of elements."""
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    @property
    def _cdata(self):
        return self._untyped_storage._cdata

    def __getitem__(self, index):
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elements()[_check_int_index(index, self.size(), "storage")].item()

    def __setitem__(self, index, value):
        n = self.size()
        if isinstance(index, slice):
            start, stop = _slice_bounds(index, n)
            self._elements()[start:stop] = value
        else:
            self._elements()[_check_int_index(index, n, "storage")] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._elements()[:self.size()].tolist()

    def fill_(self, value):
        self._elements().fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        """Copies `source` (a storage of as many elements; its elements are converted)."""
        if isinstance(source, TypedStorage):
            if source.size() != self.size():
                raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was "
                                   f"{source.nbytes()} bytes")
            if self.size() and self.device.type != "meta":
                self._elements().copy_(source._elements())
        else:
            self._untyped_storage.copy_(source)
        return self

    def resize_(self, size: int):
        self._untyped_storage.resize_(size * self.dtype.itemsize)
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype, _internal=True)

    def cpu(self):
        return self

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    def _new_wrapped_storage(self, untyped_storage):
        return TypedStorage(wrap_storage=untyped_storage, dtype=self.dtype, _internal=True)

    def _to(self, dtype):
        return _converted(self._elements(), dtype, self._untyped_storage)

    def type(self, dtype=None, non_blocking=False):
        """The legacy class's name without `dtype`; else, as PyTorch, the UntypedStorage's `type`
        (the bytes, not the elements, are what is converted)."""
        if dtype is None:
            return f"torch.{_LEGACY_STEMS[self.dtype]}Storage"
        return self._untyped_storage.type(dtype, non_blocking)

    def to(self, *, device, non_blocking=False):
        return self._new_wrapped_storage(self._untyped_storage.to(device=device, non_blocking=non_blocking))

    def get_device(self):
        return self._untyped_storage.get_device()

    def resizable(self) -> bool:
        return self._untyped_storage.resizable()

    def pin_memory(self, device=None):
        return self._new_wrapped_storage(self._untyped_storage.pin_memory(device))

    def pickle_storage_type(self) -> str:
        """The name of the legacy class of this dtype ('FloatStorage'), what pickles record."""
        try:
            return f"{_LEGACY_STEMS[self.dtype]}Storage"
        except KeyError as e:
            raise KeyError(f"dtype {self.dtype} is not recognized") from e

    def __copy__(self):
        return self._new_wrapped_storage(self._untyped_storage)

    def __deepcopy__(self, memo):
        return self._new_wrapped_storage(self._untyped_storage.__deepcopy__(memo))

    def __reduce__(self):
        return (_load_typed_storage, (self._untyped_storage, self.dtype))

    def __repr__(self) -> str:
        values = None if self.device.type == "meta" else self.tolist()
        return _repr_lines(values, f"torchlite.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
                                   f"size {len(self)}")

    __str__ = __repr__

    def __sizeof__(self) -> int:
        return super().__sizeof__() + self.nbytes()

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0, *, dtype=None):
        """A new CPU storage of `count` elements read from the bytes-like `buffer` (see
        UntypedStorage.from_buffer); the legacy classes take their own dtype."""
        fixed = cls.__dict__.get("_legacy_dtype")
        dtype = fixed if fixed is not None else dtype
        if dtype is None:
            raise RuntimeError("from_buffer: dtype must be given")
        untyped = _from_buffer(UntypedStorage, buffer, byte_order, count, offset, dtype)
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


# ---------------------------------------------------------------- legacy per-dtype classes

_LEGACY_STEMS = {
    _C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
    _C.uint8: "Byte", _C.int8: "Char", _C.int16: "Short", _C.int32: "Int", _C.int64: "Long", _C.bool: "Bool",
}


class _LegacyStorageMeta(_builtins.type):
    def __instancecheck__(cls, obj) -> bool:
        if cls.__dict__.get("_legacy_dtype") is None:
            return _builtins.type.__instancecheck__(cls, obj)
        return isinstance(obj, TypedStorage) and obj.dtype == cls._legacy_dtype and obj.device.type == "cpu"


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """Base of FloatStorage & co: TypedStorages of one dtype."""

    _legacy_dtype = None


def _make_legacy(stem: str, dtype):
    cls = _LegacyStorageMeta(f"{stem}Storage", (_LegacyStorage,), {
        "_legacy_dtype": dtype, "__doc__": f"The legacy storage class of {dtype} (a TypedStorage).",
        "__module__": "torchlite"})
    cls.dtype = dtype
    return cls


_LEGACY_CLASSES = {f"{stem}Storage": _make_legacy(stem, dtype) for dtype, stem in _LEGACY_STEMS.items()}


def _is_storage(obj) -> bool:
    """torchlite.is_storage: True if `obj` is a storage (UntypedStorage or TypedStorage)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# ---------------------------------------------------------------- Tensor methods


def _storage(self):
    """The TypedStorage of this tensor (deprecated in PyTorch: use untyped_storage())."""
    _warn_typed_storage_removal()
    return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)


def _storage_source(self, storage):
    """A tensor of self's dtype over the whole of `storage`, which set_ then takes the storage of."""
    if isinstance(storage, TypedStorage):
        if storage.dtype != self.dtype:
            raise RuntimeError(f"set_: Expected a Storage of type {self.dtype} or an UntypedStorage, but got type "
                               f"{storage.dtype} for argument 1 'storage'")
        storage = storage._untyped_storage
    return storage._tensor(self.dtype)


def _install_tensor_methods(tensor_class) -> None:
    generated_set_ = _C.TensorBase.set_

    def set_(self, *args, **kwargs):
        """set_(source=None, storage_offset=0, size=None, stride=None): makes this tensor view
        `source` (a tensor: its storage and geometry; a storage: all of it as a 1-D tensor, or the
        given offset, size and stride)."""
        if args and isinstance(args[0], (UntypedStorage, TypedStorage)):
            args = (_storage_source(self, args[0]),) + args[1:]
        elif isinstance(kwargs.get("source"), (UntypedStorage, TypedStorage)):
            kwargs["source"] = _storage_source(self, kwargs["source"])
        if len(args) == 4 and args[3] is None:  # stride=None: contiguous, as PyTorch's binding
            args = args[:3]
        elif "stride" in kwargs and kwargs["stride"] is None:
            del kwargs["stride"]
        return generated_set_(self, *args, **kwargs)

    tensor_class.set_ = set_
    tensor_class.storage = _storage
    tensor_class.storage_type = lambda self: _LEGACY_CLASSES[f"{_LEGACY_STEMS[self.dtype]}Storage"]


_C._set_storage_class(UntypedStorage)
