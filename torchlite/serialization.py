"""torchlite.save / torchlite.load in PyTorch's zip checkpoint format (docs/serialization.md).

A checkpoint is an uncompressed zip archive `<name>/...` holding `data.pkl` (the object, pickled with
protocol 2; each tensor storage replaced by a persistent id `('storage', <dtype's storage class>, key,
'cpu', numel)`), `data/<key>` (each storage's bytes, little-endian, aligned to 64 bytes in the file),
`byteorder`, `version`, `.format_version`, `.storage_alignment` and `.data/serialization_id`. Tensors are
pickled as PyTorch pickles them (`torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, hooks)`, `_rebuild_parameter` for Parameters, `torch.float32`, `torch.Size`...), so files
written here load in PyTorch and PyTorch's load here, without PyTorch installed: the pickle names torch's
globals, and loading maps them to torchlite's. Views of one storage share it again after loading.

Loading is safe by default (weights_only=True): only tensors, storages, dtypes, sizes, devices, containers
and plain values can be rebuilt; any other global in the pickle raises UnpicklingError before anything
runs. weights_only=False is the explicit opt-in to arbitrary pickles (which can run code).
"""
from __future__ import annotations

import _compat_pickle
import collections as _collections
import io
import os
import pickle
import struct
import sys
import zipfile as _zipfile
from typing import Any, BinaryIO, Callable, Optional, Union

import torchlite as _tl
from torchlite._size import Size as _Size
from torchlite.storage import TypedStorage as _TypedStorage, UntypedStorage as _UntypedStorage

__all__ = ["save", "load"]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64
_VERSION = b"3\n"  # the zip format's version record, as PyTorch writes it

# dtype <-> the typed-storage class PyTorch names in the persistent ids. The wide unsigned dtypes and
# complex32 have no typed storage class: PyTorch stores them as UntypedStorage and rebuilds with
# _rebuild_tensor_v3 + dtype.
_STORAGE_CLASS = {
    _tl.float32: "FloatStorage", _tl.float64: "DoubleStorage", _tl.float16: "HalfStorage",
    _tl.bfloat16: "BFloat16Storage", _tl.int64: "LongStorage", _tl.int32: "IntStorage",
    _tl.int16: "ShortStorage", _tl.int8: "CharStorage", _tl.uint8: "ByteStorage", _tl.bool: "BoolStorage",
    _tl.complex64: "ComplexFloatStorage", _tl.complex128: "ComplexDoubleStorage",
}
_STORAGE_DTYPE = {name: dtype for dtype, name in _STORAGE_CLASS.items()}
_DTYPE_NAMES = {getattr(_tl, n): n for n in ("float32", "float64", "float16", "bfloat16", "int64", "int32",
                                             "int16", "int8", "uint8", "bool", "uint16", "uint32", "uint64",
                                             "complex64", "complex128", "complex32")}

FileLike = Union[str, os.PathLike, BinaryIO]


# ---------------------------------------------------------------------------------------------- saving

class _Global:
    """A torch global written into the pickle by name (GLOBAL opcode) without importing torch."""
    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a callable in a reduce tuple; this one is only ever named
        raise TypeError(f"{self.module}.{self.name} is a name in a checkpoint, not a function")


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_TORCH_SIZE = _Global("torch", "Size")
_TORCH_DEVICE = _Global("torch", "device")


class _StorageRef:
    """A tensor's storage inside the pickle: written as a persistent id, its bytes as a record."""
    __slots__ = ("storage", "dtype")

    def __init__(self, storage: _UntypedStorage, dtype):
        self.storage, self.dtype = storage, dtype


class _Pickler(pickle._Pickler):  # the Python pickler: it lets torch's globals be written by name
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict[Any, tuple[str, _UntypedStorage]] = {}  # identity -> (key, storage)
        self._ids: dict[Any, tuple] = {}

    def _save_global_ref(self, obj: _Global):
        memoized = self.memo.get(id(obj))
        if memoized is not None:
            self.write(self.get(memoized[0]))
            return
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_global_ref

    def persistent_id(self, obj):
        if not isinstance(obj, _StorageRef):
            return None
        storage = obj.storage
        identity = storage._cdata if storage.nbytes() > 0 else ("empty", id(obj))
        if identity not in self.storages:
            self.storages[identity] = (str(len(self.storages)), storage)
        key = self.storages[identity][0]
        cache_key = (identity, obj.dtype)
        if cache_key not in self._ids:  # one tuple per storage and dtype, so pickle memoizes it
            cls = _STORAGE_CLASS.get(obj.dtype)
            itemsize = obj.dtype.itemsize
            if cls is None:
                self._ids[cache_key] = ("storage", _Global("torch.storage", "UntypedStorage"), key, "cpu",
                                        storage.nbytes())
            else:
                self._ids[cache_key] = ("storage", _Global("torch", cls), key, "cpu", storage.nbytes() // itemsize)
        return self._ids[cache_key]

    def reducer_override(self, obj):
        if isinstance(obj, _tl.Tensor):
            return _reduce_tensor(obj)
        if isinstance(obj, _Size):
            return _TORCH_SIZE, (tuple(obj),)
        if isinstance(obj, _tl.device):
            return _TORCH_DEVICE, (str(obj),)
        return NotImplemented

    def save(self, obj, save_persistent_id=True):
        # dtypes are pickled as the bare global `torch.float32`, as PyTorch does.
        if isinstance(obj, _tl.dtype):
            return self._save_global_ref(_dtype_global(obj))
        if isinstance(obj, (_TypedStorage, _UntypedStorage)):
            raise pickle.PicklingError("torchlite.save: saving bare storages is not supported; save a tensor")
        return super().save(obj, save_persistent_id)


_DTYPE_GLOBALS: dict = {}


def _dtype_global(dtype) -> _Global:
    if dtype not in _DTYPE_GLOBALS:
        _DTYPE_GLOBALS[dtype] = _Global("torch", _DTYPE_NAMES[dtype])
    return _DTYPE_GLOBALS[dtype]


def _reduce_tensor(t):
    if t.grad_fn is not None and t.requires_grad and not isinstance(t, _tl.nn.Parameter):
        # PyTorch refuses to pickle a non-leaf tensor that requires grad.
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the "
                           "data, call detach() on the tensor before serializing (e.g., putting it on the "
                           "queue).")
    if isinstance(t, _tl.nn.Parameter):
        return _REBUILD_PARAMETER, (t.detach(), t.requires_grad, _collections.OrderedDict())
    if t.device.type != "cpu":
        raise RuntimeError(f"torchlite.save: tensors on {t.device} cannot be saved")
    ref = _StorageRef(t.untyped_storage(), t.dtype)
    args = (ref, t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.requires_grad, _collections.OrderedDict())
    # The lazy conj/neg bits travel as PyTorch writes them: the storage as it is, plus a metadata dict.
    metadata = {k: True for k, v in (("conj", t.is_conj()), ("neg", t.is_neg())) if v}
    if t.dtype in _STORAGE_CLASS:
        return _REBUILD_V2, args + ((metadata,) if metadata else ())
    return _REBUILD_V3, args + (_dtype_global(t.dtype),) + ((metadata,) if metadata else ())


class _AlignedZipWriter:
    """Writes records into an uncompressed zip, each record's data starting at a multiple of 64 bytes
    (padding in the local header's extra field, id 'FB', as PyTorch's writer does), so storages can be
    mapped in place."""

    def __init__(self, file: BinaryIO, archive: str):
        self.zip = _zipfile.ZipFile(file, mode="w", compression=_zipfile.ZIP_STORED, allowZip64=True)
        self.file = file
        self.archive = archive

    def write(self, name: str, data: bytes) -> None:
        info = _zipfile.ZipInfo(f"{self.archive}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = _zipfile.ZIP_STORED
        header_end = self.zip.fp.tell() + 30 + len(info.filename.encode("utf-8"))
        if len(data) >= 0xFFFFFFFF or self.zip.fp.tell() >= 0xFFFFFFFF:
            header_end += 20  # the zip64 extra field zipfile adds
        pad = (-(header_end + 4)) % _ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        self.zip.writestr(info, data)

    def close(self) -> None:
        self.zip.close()


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return name or "archive"
    return "archive"


def save(obj: object, f: FileLike, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Saves `obj` (tensors, containers, numbers, strings, modules...) to a file path or a writable binary
    file object, in PyTorch's zip format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torchlite.save: only the zip format is written "
                                  "(_use_new_zipfile_serialization=False is not supported)")
    if pickle_module is not pickle:
        raise NotImplementedError("torchlite.save: only the standard pickle module is supported")
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol=pickle_protocol)
    pickler.dump(obj)
    path = isinstance(f, (str, os.PathLike))
    out = open(f, "wb") if path else f
    try:
        writer = _AlignedZipWriter(out, _archive_name(f))
        writer.write("data.pkl", buffer.getvalue())
        writer.write(".format_version", b"1")
        writer.write(".storage_alignment", str(_ALIGNMENT).encode())
        if not _disable_byteorder_record:
            writer.write("byteorder", sys.byteorder.encode())
        for key, storage in pickler.storages.values():
            writer.write(f"data/{key}", storage._to_bytes())
        writer.write("version", _VERSION)
        writer.write(".data/serialization_id", b"0" * 40)
        writer.close()
    finally:
        if path:
            out.close()


# --------------------------------------------------------------------------------------------- loading

def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                    metadata=None):
    """PyTorch's _rebuild_tensor_v2: a tensor viewing `storage` (a (UntypedStorage, dtype) pair)."""
    untyped, dtype = storage
    t = _tl.empty(0, dtype=dtype).set_(untyped, storage_offset, tuple(size), tuple(stride))
    if metadata:  # PyTorch's set_tensor_metadata: the lazy bits of a saved conj()/imag view
        if metadata.get("conj", False):
            t = t._conj()
        if metadata.get("neg", False):
            t = t._neg_view()
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    untyped, _ = storage
    return _rebuild_tensor((untyped, dtype), storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return _tl.nn.Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _tl.nn.Parameter(data, requires_grad)
    if state:
        param.__dict__.update(state if isinstance(state, dict) else {})
    return param


class _StorageClass:
    """Stands for torch.FloatStorage & co. in a persistent id: only its dtype is used."""

    def __init__(self, dtype):
        self.dtype = dtype


_UNTYPED = _StorageClass(_tl.uint8)

# torch's names -> what they are in torchlite, for both load modes.
_TORCH_GLOBALS: dict[tuple[str, str], Any] = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
    ("torch", "Size"): _Size,
    ("torch", "device"): _tl.device,
    ("torch.storage", "UntypedStorage"): _UNTYPED,
    ("torch", "UntypedStorage"): _UNTYPED,
    **{("torch", name): _StorageClass(dtype) for name, dtype in _STORAGE_DTYPE.items()},
    **{("torch", name): getattr(_tl, name) for name in _DTYPE_NAMES.values()},
}

# What weights_only loading may rebuild besides torch's names (PyTorch's default allow-list, less what
# torchlite has no counterpart for: sparse and quantized tensors, layouts).
_SAFE_BUILTINS = {
    ("collections", "OrderedDict"): _collections.OrderedDict,
    ("collections", "Counter"): _collections.Counter,
    ("collections", "defaultdict"): _collections.defaultdict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "range"): range,
    ("_codecs", "encode"): None,  # protocol 2 pickles bytes as _codecs.encode(str, 'latin1')
}


def _weights_only_error(module: str, name: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those "
        "steps only if you trust the source of the checkpoint.\n\t(1) In torchlite, `weights_only` defaults to "
        "True: re-running `torchlite.load` with `weights_only` set to `False` will likely succeed, but it can "
        f"result in arbitrary code execution.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {module}.{name}")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, *, weights_only: bool, read_record: Callable[[str], bytes], map_location,
                 **kwargs):
        super().__init__(file, **kwargs)
        self.weights_only = weights_only
        self.read_record = read_record
        self.map_location = map_location
        self.loaded: dict[str, _UntypedStorage] = {}

    def find_class(self, module: str, name: str):
        # Protocol-2 pickles name Python 2 modules (`__builtin__.set`): map them as pickle itself does.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if (module, name) in _TORCH_GLOBALS:
            return _TORCH_GLOBALS[(module, name)]
        if (module, name) in _SAFE_BUILTINS:
            if (module, name) == ("_codecs", "encode"):
                import _codecs
                return _codecs.encode
            return _SAFE_BUILTINS[(module, name)]
        if self.weights_only:
            raise _weights_only_error(module, name)
        if module == "torch" or module.startswith("torch."):
            # A whole module or other torch object: its torchlite namesake when there is one.
            module = "torchlite" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"torchlite.load: unsupported persistent id {pid!r}")
        _, cls, key, location, numel = pid
        if not isinstance(cls, _StorageClass):
            raise pickle.UnpicklingError(f"torchlite.load: unsupported storage type {cls!r}")
        if key not in self.loaded:
            data = self.read_record(f"data/{key}")
            storage = _UntypedStorage._new_from_bytes(data)
            self.loaded[key] = _apply_map_location(storage, location, self.map_location)
        return (self.loaded[key], cls.dtype)


def _apply_map_location(storage: _UntypedStorage, location: str, map_location):
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif callable(map_location):
        result = map_location(storage, location)
        return storage if result is None else result
    else:
        target = str(map_location)
    target = str(target)
    if not (target == "cpu" or target.startswith("cpu:")):
        raise RuntimeError(f"torchlite.load: cannot place a storage saved on '{location}' on '{target}': "
                           "torchlite runs on the CPU only (pass map_location='cpu')")
    return storage


def load(f: FileLike, map_location=None, pickle_module: Any = None, *, weights_only: Optional[bool] = None,
         mmap: Optional[bool] = None, **pickle_load_args: Any) -> Any:
    """Loads an object saved by torchlite.save or by PyTorch's torch.save (zip format). `weights_only`
    (default True) rebuilds only tensors, containers and plain values; False allows any pickle."""
    if weights_only is None:
        weights_only = os.environ.get("TORCHLITE_FORCE_WEIGHTS_ONLY_LOAD", "1") != "0"
    if weights_only and pickle_module is not None and pickle_module is not pickle:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if mmap:
        raise NotImplementedError("torchlite.load: mmap=True is not supported yet (storages are read into memory)")
    path = isinstance(f, (str, os.PathLike))
    source = open(f, "rb") if path else f
    try:
        if not _zipfile.is_zipfile(source):
            raise RuntimeError("torchlite.load: not a zip checkpoint; the legacy (pre-1.6) torch.save format and "
                               "TorchScript archives are not supported")
        source.seek(0)
        with _zipfile.ZipFile(source) as archive:
            names = archive.namelist()
            pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
            if len(pkl) != 1:
                raise RuntimeError("torchlite.load: the archive has no <name>/data.pkl record")
            prefix = pkl[0][: -len("data.pkl")]
            byteorder = prefix + "byteorder"
            if byteorder in names and archive.read(byteorder).decode() != sys.byteorder:
                raise RuntimeError("torchlite.load: the checkpoint is big-endian; only little-endian is supported")
            unpickler = _Unpickler(io.BytesIO(archive.read(pkl[0])), weights_only=weights_only,
                                   read_record=lambda name: archive.read(prefix + name),
                                   map_location=map_location, encoding=pickle_load_args.get("encoding", "utf-8"))
            return unpickler.load()
    finally:
        if path:
            source.close()


del annotations, BinaryIO, Optional, Union  # annotations are strings; torch.serialization has none of these
