"""The safetensors format (https://github.com/huggingface/safetensors): a flat name -> tensor mapping, no
code, readable by every framework. Layout: an 8-byte little-endian header length N, N bytes of JSON
(`{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {str: str}}`, padded
with spaces to a multiple of 8), then the tensors' bytes, each contiguous and little-endian, at its offsets
relative to the end of the header. Same API as `safetensors.torch`: save/save_file/load/load_file."""
from __future__ import annotations

import json
import os
import struct
from typing import Dict, Optional, Union

import torchlite as _tl

__all__ = ["save", "save_file", "load", "load_file"]

_CODES = {
    _tl.float64: "F64", _tl.float32: "F32", _tl.float16: "F16", _tl.bfloat16: "BF16", _tl.int64: "I64",
    _tl.int32: "I32", _tl.int16: "I16", _tl.int8: "I8", _tl.uint8: "U8", _tl.bool: "BOOL",
    _tl.uint16: "U16", _tl.uint32: "U32", _tl.uint64: "U64",
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}


def _shared_storage_groups(tensors: Dict[str, "_tl.Tensor"]) -> list:
    seen: dict = {}
    for name, t in tensors.items():
        if t.numel() == 0:
            continue
        seen.setdefault(t.untyped_storage().data_ptr(), []).append(name)
    return [names for names in seen.values() if len(names) > 1]


def save(tensors: Dict[str, "_tl.Tensor"], metadata: Optional[Dict[str, str]] = None) -> bytes:
    """The safetensors bytes of `tensors` (a dict of name -> tensor). Tensors sharing memory are refused,
    as safetensors does (save each once, or clone)."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torchlite.Tensor] but received {type(tensors)}")
    for name, t in tensors.items():
        if not isinstance(name, str) or not isinstance(t, _tl.Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected str to torchlite.Tensor but received "
                             f"{type(name)} to {type(t)}")
    shared = _shared_storage_groups(tensors)
    if shared:
        raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and "
                           f"potential differences when loading them again: {shared}.")
    header: dict = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("metadata must be a dict of str to str")
        header["__metadata__"] = metadata
    chunks = []
    offset = 0
    for name in sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n)):  # safetensors' own order
        t = tensors[name].detach()
        if t.dtype not in _CODES:
            raise ValueError(f"safetensors: dtype {t.dtype} of `{name}` is not supported")
        data = t.contiguous().untyped_storage()._to_bytes() if t.numel() else b""
        if t.numel():
            start = t.contiguous().storage_offset() * t.dtype.itemsize
            data = data[start:start + t.numel() * t.dtype.itemsize]
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors: Dict[str, "_tl.Tensor"], filename: Union[str, os.PathLike],
              metadata: Optional[Dict[str, str]] = None) -> None:
    with open(filename, "wb") as f:
        f.write(save(tensors, metadata))


def load(data: bytes) -> Dict[str, "_tl.Tensor"]:
    """The tensors of safetensors bytes (each owning its memory)."""
    if len(data) < 8:
        raise ValueError("safetensors: the data is shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError(f"safetensors: header length {n} runs past the end of the data ({len(data)} bytes)")
    try:
        header = json.loads(data[8:8 + n])
    except ValueError as e:
        raise ValueError(f"safetensors: the header is not valid JSON ({e})") from None
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ValueError(f"safetensors: `{name}` has unsupported dtype {info.get('dtype')!r}")
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = 1
        for s in shape:
            count *= s
        if not (0 <= begin <= end <= len(body)) or end - begin != count * dtype.itemsize:
            raise ValueError(f"safetensors: `{name}` has offsets {[begin, end]} that do not match its shape "
                             f"{list(shape)} and dtype, or run past the data")
        storage = _tl.UntypedStorage._new_from_bytes(bytes(body[begin:end]))
        out[name] = _tl.empty(0, dtype=dtype).set_(storage, 0, shape, _contiguous_strides(shape))
    return out


def load_file(filename: Union[str, os.PathLike], device: str = "cpu") -> Dict[str, "_tl.Tensor"]:
    if str(device) != "cpu":
        raise RuntimeError(f"safetensors.load_file: torchlite runs on the CPU only, got device={device!r}")
    with open(filename, "rb") as f:
        return load(f.read())


def _contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))
