"""Spatial sampling: affine_grid builds the sampling grid of an affine transform, grid_sample reads an
image at a grid's points (spatial transformer networks). Argument checks and warnings as PyTorch's;
the work is done by the affine_grid_generator and grid_sampler ops."""
from __future__ import annotations

import warnings
from typing import Optional

import torchlite as _tl

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details.")

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None):
    """Samples `input` (N, C, H, W) or (N, C, D, H, W) at the normalized points of `grid` (N, H', W', 2)
    or (N, D', H', W', 3), values in [-1, 1], with `mode` 'bilinear', 'nearest' or 'bicubic' (4-D only)
    and `padding_mode` 'zeros', 'border' or 'reflection' for points outside."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    return _tl.grid_sampler(input, grid, _MODES[mode], _PADDING_MODES[padding_mode], align_corners)


def affine_grid(theta, size, align_corners: Optional[bool] = None):
    """The (N, H, W, 2) (or (N, D, H, W, 3)) sampling grid of the affine matrices `theta` (N, 2, 3) (or
    (N, 3, 4)) for an output of `size` (N, C, H, W) (or (N, C, D, H, W)), for grid_sample."""
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _tl.affine_grid_generator(theta, size, False if align_corners is None else align_corners)
