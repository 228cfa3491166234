"""torch.nn.functional's dropout functions over the YAML dropout operators (torchlite.dropout,
feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place forms): PyTorch's argument
checks, `inplace=` flags, and the channel-wise dropout1d/2d/3d with their batched/unbatched handling."""
from __future__ import annotations

import warnings

import torchlite as _tl

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zeroes each element with probability `p` when `training`, scaling the others by 1 / (1 - p)."""
    _check_p(p)
    return _tl.dropout_(input, p, training) if inplace else _tl.dropout(input, p, training)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Alpha dropout, which keeps the mean and variance of SELU activations."""
    _check_p(p)
    return _tl.alpha_dropout_(input, p, training) if inplace else _tl.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    if inplace:
        return _tl.feature_alpha_dropout_(input, p, training)
    return _tl.feature_alpha_dropout(input, p, training)


def _feature_dropout(input, p, training, inplace):
    return _tl.feature_dropout_(input, p, training) if inplace else _tl.feature_dropout(input, p, training)


def _channelwise(input, p, training, inplace, batched_dim):
    """feature dropout of a batched input, or of an unbatched one given a batch dim of 1."""
    batched = input.dim() == batched_dim
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zeroes whole channels of a (N, C, L) or (C, L) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs).")
    return _channelwise(input, p, training, inplace, 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zeroes whole channels of a (N, C, H, W) input; a 3-d input is taken as (N, C, L), as PyTorch does."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result "
                      "in an error in a future release; use dropout instead (dropout2d expects 3D or 4D inputs).",
                      stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "Use dropout1d for that behavior.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zeroes whole channels of a (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release; use dropout instead (dropout3d expects 4D or 5D inputs).",
                      stacklevel=2)
    return _channelwise(input, p, training, inplace, 5)
