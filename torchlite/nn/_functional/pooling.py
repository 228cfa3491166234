"""Pooling in torchlite.nn.functional: PyTorch's F.* pooling functions, their signatures and defaults.

The pools are YAML operators (torchlite._C._nn.max_pool2d_with_indices, torchlite.max_pool1d, ...); this
module is PyTorch's Python layer over them: `stride=None` meaning the kernel size, `return_indices`,
None entries of an adaptive output_size taken from the input, max_unpool's default output size, and
lp_pool written with avg_pool as PyTorch writes it.
"""
from __future__ import annotations

import math

import torchlite as _tl
from torchlite._C import _nn

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
    "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
    "max_unpool3d",
]


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _stride(stride):
    return [] if stride is None else stride


# ---- max pooling

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """Max pooling over the last dim of a (C, L) or (N, C, L) input, with the indices of the maxima."""
    return _tl.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """Max pooling over the last two dims of a (C, H, W) or (N, C, H, W) input, with the indices of the maxima."""
    return _nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """Max pooling over the last three dims of a (C, D, H, W) or (N, C, D, H, W) input, with the indices."""
    return _nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over the last dim; (values, indices) when `return_indices`."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _tl.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over the last two dims; (values, indices) when `return_indices`."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _tl.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over the last three dims; (values, indices) when `return_indices`."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _tl.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


# ---- average pooling

def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Average pooling over the last dim of a (C, L) or (N, C, L) input."""
    return _tl.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over the last two dims of a (C, H, W) or (N, C, H, W) input."""
    return _nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over the last three dims of a (C, D, H, W) or (N, C, D, H, W) input."""
    return _nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


# ---- adaptive pooling

def _list_with_default(out_size, defaults):
    """output_size with None entries replaced by the input's sizes, as PyTorch's helper."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of the last dim to `output_size` windows."""
    return _tl.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of the last two dims to `output_size` (None keeps the input's size)."""
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of the last three dims to `output_size` (None keeps the input's size)."""
    return _nn.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Max pooling of the last dim to `output_size` windows, with the indices of the maxima."""
    return _tl.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Max pooling of the last two dims to `output_size` (None keeps the input's size), with the indices."""
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Max pooling of the last three dims to `output_size` (None keeps the input's size), with the indices."""
    return _nn.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool1d_with_indices's values, or both when `return_indices`."""
    result = adaptive_max_pool1d_with_indices(input, output_size)
    return result if return_indices else result[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """adaptive_max_pool2d_with_indices's values, or both when `return_indices`."""
    result = adaptive_max_pool2d_with_indices(input, output_size)
    return result if return_indices else result[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """adaptive_max_pool3d_with_indices's values, or both when `return_indices`."""
    result = adaptive_max_pool3d_with_indices(input, output_size)
    return result if return_indices else result[0]


# ---- max unpooling

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The spatial output size of max_unpool: the pool's input size by default, else `output_size`
    (optionally with N, C first), which must be within a stride of that default."""
    n = len(kernel_size)
    default = [(input.size(-n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        size = default
    else:
        output_size = list(output_size)
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                             f"but it has a length of '{len(output_size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        size = output_size
    for d in range(n):
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, "
                             f"but got output_size[{d}]={size[d]}")
    return list(size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: the maxima written back at their indices, zeros elsewhere."""
    kernel_size = _ntuple(kernel_size, 1)
    stride = kernel_size if stride is None else _ntuple(stride, 1)
    size = _unpool_output_size(input, kernel_size, stride, _ntuple(padding, 1), output_size)
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: the maxima written back at their indices, zeros elsewhere."""
    kernel_size = _ntuple(kernel_size, 2)
    stride = kernel_size if stride is None else _ntuple(stride, 2)
    size = _unpool_output_size(input, kernel_size, stride, _ntuple(padding, 2), output_size)
    return _nn.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: the maxima written back at their indices, zeros elsewhere."""
    kernel_size = _ntuple(kernel_size, 3)
    stride = kernel_size if stride is None else _ntuple(stride, 3)
    padding = _ntuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn.max_unpool3d(input, indices, size, stride, padding)


# ---- power-average pooling

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, max_pool, avg_pool):
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        # The limits of the power mean: the largest (smallest) magnitude of each window.
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    window = math.prod(_ntuple(kernel_size, n))
    # sign * relu(abs) zeroes the negative means of odd powers (and their gradient) as PyTorch does.
    return (_tl.sign(out) * _tl.relu(_tl.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power mean (sum of x**p)**(1/p) of each window of the last dim."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, max_pool1d, avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power mean (sum of x**p)**(1/p) of each window of the last two dims."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, max_pool2d, avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power mean (sum of x**p)**(1/p) of each window of the last three dims."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, max_pool3d, avg_pool3d)
