"""PyTorch's legacy tensor types: torchlite.FloatTensor, LongTensor, ... and Tensor.type().

Each is a class whose call makes a CPU tensor of its dtype (from sizes, a torchlite.Size, a
sequence, or a tensor of that dtype) and against which isinstance checks a tensor's dtype and
device, as in PyTorch; tensors themselves are always torchlite.Tensor.

Type names: Tensor.type() returns PyTorch's strings ('torch.FloatTensor', 'torch.meta.LongTensor'),
since code written for PyTorch compares against them; Tensor.type(name) accepts them with either
prefix ('torch.' or 'torchlite.').
"""
from __future__ import annotations

import builtins

from torchlite import _C
from torchlite._size import Size

_ops = _C._ops

# Legacy name stem of every dtype ('Float' -> FloatTensor).
_STEMS = {
    _C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
    _C.uint8: "Byte", _C.int8: "Char", _C.int16: "Short", _C.int32: "Int", _C.int64: "Long",
    _C.bool: "Bool", _C.uint16: "UInt16", _C.uint32: "UInt32", _C.uint64: "UInt64",
    _C.complex64: "ComplexFloat", _C.complex128: "ComplexDouble", _C.complex32: "ComplexHalf",
}
_DTYPE_OF_NAME = {stem + "Tensor": dtype for dtype, stem in _STEMS.items()}


class _LegacyTensorType(builtins.type):
    """Metaclass of FloatTensor & co: calling one constructs, isinstance checks dtype and device."""

    def __call__(cls, *args, device=None):
        return legacy_new(cls.__name__, cls.dtype, _C.device("cpu"), args, device)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _C.TensorBase) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'torchlite.{cls.__name__}'>"


def legacy_new(name: str, dtype, own_device, args, device=None):
    """PyTorch's legacy constructors (FloatTensor(...), x.new(...)) with `dtype` on `own_device`: no
    arguments (empty), sizes or a torchlite.Size (uninitialised), a tensor of that dtype and device (an
    alias), or data (a copy)."""
    if device is not None and _C.device(device).type != own_device.type:
        raise RuntimeError(f"legacy constructor expects device type: {own_device.type} but device type: "
                           f"{_C.device(device).type} was passed")
    if not args:
        return _ops.empty((0,), dtype=dtype, device=own_device)
    if len(args) == 1 and isinstance(args[0], _C.TensorBase):
        if args[0].dtype != dtype or args[0].device.type != own_device.type:
            raise TypeError(f"expected {_STEMS[dtype]}Tensor (dtype {dtype}, device {own_device.type}), got a "
                            f"tensor of dtype {args[0].dtype} on {args[0].device}")
        return _C._internal.alias(args[0])
    if len(args) == 1 and isinstance(args[0], Size):
        return _ops.empty(args[0], dtype=dtype, device=own_device)
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return _ops.empty(args, dtype=dtype, device=own_device)
    if len(args) == 1:
        data = args[0]
        if data is None or isinstance(data, (builtins.int, builtins.float, builtins.bool)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if isinstance(data, (builtins.str, builtins.bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        return _C.tensor(data, dtype=dtype, device=own_device)
    raise TypeError(f"{name}(): expected sizes (ints), a torchlite.Size, a sequence or a tensor, got "
                    f"({', '.join(type(a).__name__ for a in args)})")


def _make(dtype):
    name = _STEMS[dtype] + "Tensor"
    return _LegacyTensorType(name, (), {"dtype": dtype, "__module__": "torchlite",
                                        "__doc__": f"The legacy tensor type of {dtype}: {name}(*sizes), "
                                                   f"{name}(sequence), isinstance(t, {name})."})


# PyTorch has no class for the wide unsigned types (only their type() names).
FloatTensor = _make(_C.float32)
DoubleTensor = _make(_C.float64)
HalfTensor = _make(_C.float16)
BFloat16Tensor = _make(_C.bfloat16)
ByteTensor = _make(_C.uint8)
CharTensor = _make(_C.int8)
ShortTensor = _make(_C.int16)
IntTensor = _make(_C.int32)
LongTensor = _make(_C.int64)
BoolTensor = _make(_C.bool)


def type_name(t) -> str:
    """PyTorch's legacy type name of a tensor: 'torch.FloatTensor', 'torch.meta.LongTensor'."""
    device = "" if t.device.type == "cpu" else t.device.type + "."
    return f"torch.{device}{_STEMS[t.dtype]}Tensor"


def tensor_type(self, dtype=None, non_blocking: bool = False):
    """Tensor.type(): the legacy type name ('torch.FloatTensor'); Tensor.type(dtype) (a dtype, a
    legacy type such as torchlite.DoubleTensor, or its name): the tensor converted to that dtype,
    itself when it already has it."""
    if dtype is None:
        return type_name(self)
    if isinstance(dtype, str):
        stem = dtype
        for prefix in ("torch.", "torchlite."):
            if stem.startswith(prefix):
                stem = stem[len(prefix):]
                break
        else:
            raise ValueError(f"invalid type: '{dtype}'")
        if stem not in _DTYPE_OF_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        target = _DTYPE_OF_NAME[stem]
    elif isinstance(dtype, _LegacyTensorType):
        target = dtype.dtype
    elif isinstance(dtype, _C.dtype):
        target = dtype
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    if target == self.dtype:
        return self
    return self.to(target, non_blocking=non_blocking)
