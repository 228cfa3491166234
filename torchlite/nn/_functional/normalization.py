"""torch.nn.functional's normalization functions: layer_norm, rms_norm, batch_norm, instance_norm,
group_norm (PyTorch's Python checks over the YAML operators), and local_response_norm and normalize,
which PyTorch writes in Python as compositions of ops (so are they here)."""
from __future__ import annotations

from typing import Optional

import torchlite as _tl

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize",
           "rms_norm"]


def _verify_batch_size(size) -> None:
    # Training statistics need two values per channel at least.
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size) -> None:
    count = 1
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalizes over the trailing dims `normalized_shape`, then scales by `weight` and shifts by `bias`."""
    return _tl.layer_norm(input, normalized_shape, weight, bias, eps, True)


def rms_norm(input, normalized_shape, weight=None, eps: Optional[float] = None):
    """Root-mean-square normalization over the trailing dims `normalized_shape`, scaled by `weight`."""
    return _tl.rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Batch normalization over channel dim 1: batch statistics when `training` (updating the running ones in
    place), the running statistics otherwise."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _tl.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """Normalizes every (sample, channel) plane by its own statistics (`use_input_stats`) or the running ones."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _tl.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Normalizes each group of `num_groups` channel groups per sample, then scales and shifts per channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _tl.group_norm(input, num_groups, weight, bias, eps, False)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """Divides each element by (k + alpha * mean of the squares over `size` neighbouring channels) ** beta;
    the window is zero-padded by size // 2 before and (size - 1) // 2 after (PyTorch's avg_pool over channels,
    counting the padding)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    if input.is_complex():  # PyTorch's average pooling (2-d for 3-D input, else 3-d) has no complex loop
        pool = "avg_pool2d" if dim == 3 else "avg_pool3d"
        raise NotImplementedError(f"local_response_norm: {pool} is not implemented for dtype {input.dtype}")
    sq = input.mul(input)
    channels = sq.size(1)
    before, after = size // 2, (size - 1) // 2
    rest = list(sq.shape[2:])
    parts = []
    if before:
        parts.append(_tl.zeros([sq.size(0), before] + rest, dtype=sq.dtype, device=sq.device))
    parts.append(sq)
    if after:
        parts.append(_tl.zeros([sq.size(0), after] + rest, dtype=sq.dtype, device=sq.device))
    padded = _tl.cat(parts, 1) if len(parts) > 1 else sq
    # The window sum, in the window's order (as the pooling kernel adds), then the mean over `size`.
    total = padded.narrow(1, 0, channels)
    for j in range(1, size):
        total = total + padded.narrow(1, j, channels)
    div = (total / size).mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """Divides `input` by its `p`-norm along `dim` (at least `eps`)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _tl.div(input, denom, out=out)
