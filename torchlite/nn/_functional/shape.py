"""torch.nn.functional's padding, resampling, shape and distance functions and one_hot (issue 11, part shape11).

Each is PyTorch's Python layer over the YAML operators (bound in ``torchlite._C._nn`` or at the top level,
where PyTorch binds them): the same names, signatures and defaults.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import List, Optional

import torchlite as _tl
from torchlite._C import _nn

__all__ = ["channel_shuffle", "cosine_similarity", "embedding", "interpolate", "one_hot", "pad", "pairwise_distance",
           "pixel_shuffle", "pixel_unshuffle", "upsample", "upsample_bilinear", "upsample_nearest"]

# Bound as PyTorch binds them (F.pixel_shuffle is torch.pixel_shuffle, ...).
pixel_shuffle = _tl.pixel_shuffle
pixel_unshuffle = _tl.pixel_unshuffle
channel_shuffle = _tl.channel_shuffle
one_hot = _nn.one_hot
cosine_similarity = _tl.cosine_similarity
pairwise_distance = _tl.pairwise_distance


def pad(input, pad: List[int], mode: str = "constant", value: Optional[float] = None):
    """`input` padded along its last ``len(pad) // 2`` dims: `pad` lists (before, after) pairs from the
    last dim backwards. mode 'constant' (with `value`, default 0; any number of dims; negative pads crop),
    'reflect', 'replicate' or 'circular' (the last 1 to 3 dims of a batched or unbatched input)."""
    return _nn.pad(input, pad, mode, value)


_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
_RANK_OF_MODE = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _sizes_and_scales(input, size, scale_factor, dims):
    """(output_size, scale_factors): exactly one of them a list of `dims` entries, the other None."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = list(input.shape[2:])
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {spatial} and output size of {size}. Please provide input tensor in (N, C, d1, "
                    "d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(v, numbers.Integral) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            return list(size), None
        return [size] * dims, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dims:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please provide input "
                    "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            return None, list(scale_factor)
        return None, [scale_factor] * dims
    raise ValueError("either size or scale_factor should be defined")


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None, antialias: bool = False):
    """Resamples `input` (N, C, d1[, d2[, d3]]) to `size` or by `scale_factor` along its spatial dims.

    mode: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' (4-D), 'bicubic' (4-D), 'trilinear' (5-D),
    'area' (adaptive average pooling). `align_corners` (interpolating modes only, default False) maps the corner
    pixels onto each other; `recompute_scale_factor=True` computes the output size from the factors and then
    interpolates as if the size had been given.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dims = input.dim() - 2
    output_size, scale_factors = _sizes_and_scales(input, size, scale_factor, dims)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True  # area needs a size
    if recompute_scale_factor:
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dims)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    rank = input.dim()
    # One call per rank (not getattr of a computed name), so that torchlite.jit.script compiles each.
    if mode == "nearest" and 3 <= rank <= 5:
        if rank == 3:
            return _nn.upsample_nearest1d(input, output_size, scale_factors)
        if rank == 4:
            return _nn.upsample_nearest2d(input, output_size, scale_factors)
        return _nn.upsample_nearest3d(input, output_size, scale_factors)
    if mode == "nearest-exact" and 3 <= rank <= 5:
        if rank == 3:
            return _nn._upsample_nearest_exact1d(input, output_size, scale_factors)
        if rank == 4:
            return _nn._upsample_nearest_exact2d(input, output_size, scale_factors)
        return _nn._upsample_nearest_exact3d(input, output_size, scale_factors)
    if mode == "area" and 3 <= rank <= 5:
        if rank == 3:
            return _tl.adaptive_avg_pool1d(input, output_size)
        if rank == 4:
            return _nn.adaptive_avg_pool2d(input, output_size)
        return _nn.adaptive_avg_pool3d(input, output_size)
    if antialias and mode == "bilinear":
        return _nn._upsample_bilinear2d_aa(input, output_size, align_corners, scale_factors)
    if antialias and mode == "bicubic":
        return _nn._upsample_bicubic2d_aa(input, output_size, align_corners, scale_factors)
    if mode == "linear" and rank == 3:
        return _nn.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if mode == "bilinear" and rank == 4:
        return _nn.upsample_bilinear2d(input, output_size, align_corners, scale_factors)
    if mode == "trilinear" and rank == 5:
        return _nn.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if mode == "bicubic" and rank == 4:
        return _nn.upsample_bicubic2d(input, output_size, align_corners, scale_factors)
    if mode in _RANK_OF_MODE and rank in (3, 4, 5):
        need = _RANK_OF_MODE[mode]
        raise NotImplementedError(f"Got {rank}D input, but {mode} mode needs {need}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {rank}D) for the modes: nearest | linear | "
        f"bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners: Optional[bool] = None):
    """Deprecated alias of interpolate (PyTorch warns; so does this)."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest')."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True)."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def embedding(input, weight, padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False):
    """The rows of `weight` (num_embeddings, dim) at the indices `input`. `padding_idx` (negative counts from
    the end) gets no gradient; `max_norm` first renormalizes, in place and without autograd, the rows used whose
    `norm_type`-norm exceeds it; `scale_grad_by_freq` divides each row's gradient by its index's count.
    Sparse gradients are not supported."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("embedding: sparse=True (sparse gradients) is not supported by torchlite")
    if max_norm is not None:
        input = input.contiguous()
        with _tl.no_grad():
            _tl.embedding_renorm_(weight, input, max_norm, norm_type)
    return _tl.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
