"""Pooling layers: max, average, adaptive, power-average (LP) and max-unpooling in 1/2/3 dims, with
PyTorch's constructor arguments (stride defaults to kernel_size), attributes and repr."""
from __future__ import annotations

from torchlite.nn import functional as F

from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AvgPool1d",
           "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling over (N, C, L) or (C, L)."""
    _pool = staticmethod(lambda *a, **k: F.max_pool1d(*a, **k))


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling over (N, C, H, W) or (C, H, W)."""
    _pool = staticmethod(lambda *a, **k: F.max_pool2d(*a, **k))


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W)."""
    _pool = staticmethod(lambda *a, **k: F.max_pool3d(*a, **k))


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = self._tuple(kernel_size)
        self.stride = self._tuple(stride if stride is not None else kernel_size)
        self.padding = self._tuple(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size: list[int] | None = None):
        return self._unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d (the maxima put back at their indices, zeros elsewhere)."""
    _tuple = staticmethod(_single)
    _unpool = staticmethod(lambda *a: F.max_unpool1d(*a))


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d."""
    _tuple = staticmethod(_pair)
    _unpool = staticmethod(lambda *a: F.max_unpool2d(*a))


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d."""
    _tuple = staticmethod(_triple)
    _unpool = staticmethod(lambda *a: F.max_unpool3d(*a))


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling; kernel_size, stride and padding are stored as 1-tuples, as in PyTorch."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    __constants__ = _AvgPoolNd.__constants__ + ["divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    """2-d average pooling."""
    _pool = staticmethod(lambda *a: F.avg_pool2d(*a))


class AvgPool3d(_AvgPoolWithDivisor):
    """3-d average pooling."""
    _pool = staticmethod(lambda *a: F.avg_pool3d(*a))


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """1-d power-average pooling: (sum x^p)^(1/p) over each window."""
    _pool = staticmethod(lambda *a: F.lp_pool1d(*a))


class LPPool2d(_LPPoolNd):
    """2-d power-average pooling."""
    _pool = staticmethod(lambda *a: F.lp_pool2d(*a))


class LPPool3d(_LPPoolNd):
    """3-d power-average pooling."""
    _pool = staticmethod(lambda *a: F.lp_pool3d(*a))


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input):
        return self._pool(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length."""
    _pool = staticmethod(lambda *a: F.adaptive_max_pool1d(*a))


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size (None keeps that dim's input size)."""
    _pool = staticmethod(lambda *a: F.adaptive_max_pool2d(*a))


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """3-d max pooling to a fixed output size."""
    _pool = staticmethod(lambda *a: F.adaptive_max_pool3d(*a))


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input):
        return self._pool(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output length."""
    _pool = staticmethod(lambda *a: F.adaptive_avg_pool1d(*a))


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (None keeps that dim's input size)."""
    _pool = staticmethod(lambda *a: F.adaptive_avg_pool2d(*a))


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """3-d average pooling to a fixed output size."""
    _pool = staticmethod(lambda *a: F.adaptive_avg_pool3d(*a))


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):
        super().__init__()
        if self._n == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")  # PyTorch's 3-d check
        tup = _pair if self._n == 2 else _triple
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self._n}d requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling over (N, C, H, W) or (C, H, W): `kernel_size` windows at pseudo-random
    steps that give `output_size` (or int(size * `output_ratio`), ratios in (0, 1))."""
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling over (N, C, T, H, W) or (C, T, H, W)."""
    _n = 3


del annotations  # torch's module has no such name
