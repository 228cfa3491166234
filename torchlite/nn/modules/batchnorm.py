"""Batch normalization layers: BatchNorm1d/2d/3d (running statistics with momentum, or a cumulative
average when momentum=None; track_running_stats; affine), with PyTorch's buffers (running_mean,
running_var, num_batches_tracked), checks and repr. InstanceNorm is in instancenorm.py, on the same base."""
from __future__ import annotations

import torchlite as _torchlite
from torchlite.nn import functional as F
from torchlite.nn import init
from torchlite.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter

from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"]


class _NormBase(Module):
    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_torchlite.empty(num_features, **factory))
            if bias:
                self.bias = Parameter(_torchlite.empty(num_features, **factory))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _torchlite.zeros(num_features, **factory))
            self.register_buffer("running_var", _torchlite.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked", _torchlite.tensor(0, dtype=_torchlite.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Checkpoints before version 2 have no num_batches_tracked: keep the current count (or 0).
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else _torchlite.tensor(0, dtype=_torchlite.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # Batch statistics in training, and in eval when there are no running statistics.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L)."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W)."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over (N, C, D, H, W)."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """The lazy norms: num_features (and the parameter and buffer shapes) from the first input's dim 1."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        # Built without affine parameters or running stats (they would be thrown away), then given placeholders.
        super().__init__(0, eps, momentum, False, False, **factory)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory)
            self.bias = UninitializedParameter(**factory)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = _torchlite.tensor(0, dtype=_torchlite.long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose num_features is the first input's size(1)."""
    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input):
        BatchNorm1d._check_input_dim(self, input)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose num_features is the first input's size(1)."""
    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input):
        BatchNorm2d._check_input_dim(self, input)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose num_features is the first input's size(1)."""
    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input):
        BatchNorm3d._check_input_dim(self, input)


del annotations  # torch's module has no such name
