"""torch.nn.functional's convolution and linear functions: linear, bilinear, conv1d/2d/3d,
conv_transpose1d/2d/3d (bound to the ops as PyTorch binds them), and unfold/fold (im2col/col2im
with PyTorch's argument handling)."""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _nn

__all__ = [
    "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "fold", "linear", "unfold",
]

# Bound as in PyTorch: F.linear is torch._C._nn.linear, F.conv2d is torch.conv2d, ...
linear = _nn.linear
bilinear = _tl.bilinear
conv1d = _tl.conv1d
conv2d = _tl.conv2d
conv3d = _tl.conv3d
conv_transpose1d = _tl.conv_transpose1d
conv_transpose2d = _tl.conv_transpose2d
conv_transpose3d = _tl.conv_transpose3d


def _pair(v):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v, v)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of a batched (N, C, H, W) or unbatched (C, H, W) input as columns
    (N, C * prod(kernel_size), L)."""
    return _nn.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums sliding-block columns (N, C * prod(kernel_size), L) back into an image (N, C, *output_size),
    adding where blocks overlap: the adjoint of unfold."""
    return _nn.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))
