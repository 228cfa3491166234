"""Fractional max pooling in torchlite.nn.functional: PyTorch's F.fractional_max_pool{2,3}d layer over the
torchlite._C._nn.fractional_max_pool{2,3}d operators.

The output size comes from `output_size` or `output_ratio` (int(input size * ratio); the 2-d function
takes a sequence only, as PyTorch's, whose len() check refuses a bare float); without
`_random_samples` one sample per (batch, channel, pooled dim) is drawn as PyTorch draws it,
``rand(N, C, n, dtype=input.dtype)``, so the same seed pools the same windows as PyTorch.
"""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _nn

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _fractional(input, kernel_size, output_size, output_ratio, random_samples, n):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        # PyTorch's 2-d function takes len() of the ratio (so a bare float is its TypeError); the 3-d one not.
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _ntuple(output_ratio, n)
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        random_samples = _tl.rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    op = _nn.fractional_max_pool2d if n == 2 else _nn.fractional_max_pool3d
    return op(input, _ntuple(kernel_size, n), _ntuple(output_size, n), random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling of the last two dims of a (C, H, W) or (N, C, H, W) input to `output_size`
    (or int(size * `output_ratio`)) with `kernel_size` windows at pseudo-random steps; (values, indices)."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling of the last three dims of a (C, T, H, W) or (N, C, T, H, W) input; (values,
    indices)."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """fractional_max_pool2d_with_indices's values, or both when `return_indices`."""
    result = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                                _random_samples)
    return result if return_indices else result[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """fractional_max_pool3d_with_indices's values, or both when `return_indices`."""
    result = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                                _random_samples)
    return result if return_indices else result[0]
