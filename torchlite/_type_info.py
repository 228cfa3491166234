"""torchlite.finfo and torchlite.iinfo: the numerical limits of the floating and integer dtypes,
with PyTorch's attributes, reprs and errors."""
from __future__ import annotations

import math

from torchlite import _C

# bits, eps (2**-mantissa bits), largest finite value, smallest positive normal value.
_FLOAT_LIMITS = {
    _C.float16: (16, 2.0 ** -10, 65504.0, 2.0 ** -14),
    _C.bfloat16: (16, 2.0 ** -7, 3.3895313892515355e38, 2.0 ** -126),
    _C.float32: (32, 2.0 ** -23, 3.4028234663852886e38, 2.0 ** -126),
    _C.float64: (64, 2.0 ** -52, 1.7976931348623157e308, 2.0 ** -1022),
}


_DEFAULT = object()  # finfo() without an argument: the default dtype (finfo(None) is a TypeError)


def _expect_dtype(fn: str, value) -> None:
    if not isinstance(value, _C.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torchlite.dtype, not {type(value).__name__}")


def _dtype_name(dtype) -> str:
    return repr(dtype).split(".", 1)[1]  # 'torchlite.float32' -> 'float32'


class finfo:
    """Limits of a floating dtype (the default dtype when none is given): bits, eps (the gap between
    1 and the next value), max, min (= -max), tiny and smallest_normal (the smallest positive normal
    value), resolution (10 ** -decimal digits of precision) and dtype (its name, e.g. 'float32')."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=_DEFAULT):  # noqa: A002  (PyTorch's argument name)
        if type is _DEFAULT:
            type = _C.get_default_dtype()  # noqa: A001
        _expect_dtype("finfo", type)
        if type.is_complex:  # PyTorch: a complex dtype's limits are those of its parts (complex64 -> float32)
            type = type.to_real()  # noqa: A001
        if type not in _FLOAT_LIMITS:
            raise TypeError("torchlite.finfo() requires a floating point input type. Use torchlite.iinfo to handle "
                            "'torchlite.finfo'")
        self.bits, self.eps, self.max, self.tiny = _FLOAT_LIMITS[type]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = _dtype_name(type)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: bits, min, max and dtype (its name, e.g. 'int32')."""

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type):  # noqa: A002  (PyTorch's argument name)
        _expect_dtype("iinfo", type)
        if type is _C.bool:
            raise TypeError("torchlite.bool is not supported by torchlite.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torchlite.iinfo() requires an integer input type. Use torchlite.finfo to handle "
                            "'torchlite.iinfo'")
        self.bits = type.itemsize * 8
        if type.is_signed:
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        else:
            self.min, self.max = 0, (1 << self.bits) - 1
        self.dtype = _dtype_name(type)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
