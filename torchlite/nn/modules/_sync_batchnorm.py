"""SyncBatchNorm: batch normalization whose training statistics are those of the whole batch across the ranks of
a process group (each rank holding a slice of it), and convert_sync_batchnorm.

Unlike PyTorch's, which refuses CPU tensors ("SyncBatchNorm expected input tensor to be on GPU"), it runs on the
CPU: torchlite is CPU-only and has CPU kernels for the batch_norm_stats family. Outside training, without a
initialized process group, or with a world of one rank it is exactly BatchNorm (F.batch_norm), as PyTorch's."""
from __future__ import annotations

import torchlite as _torchlite
from torchlite.nn import functional as F

from ._functions import SyncBatchNorm as _sync_batch_norm
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _initialized_dist():
    """torchlite.distributed when a default process group exists, else None."""
    try:
        import torchlite.distributed as dist
    except ImportError:
        return None
    available = getattr(dist, "is_available", None)
    return dist if available is not None and available() and dist.is_initialized() else None


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over (N, C, *) synchronized across the ranks of `process_group` (default: the world)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        running_mean = self.running_mean if keep else None
        running_var = self.running_var if keep else None
        dist = _initialized_dist() if bn_training and self.training else None
        world_size = 1
        if dist is not None:
            process_group = self.process_group if self.process_group else dist.group.WORLD
            world_size = dist.get_world_size(process_group)
        if world_size <= 1:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor,
                                self.eps)
        return _sync_batch_norm.apply(input, self.weight, self.bias, running_mean, running_var, self.eps, factor,
                                      process_group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Returns `module` with every BatchNorm*D layer in it replaced by a SyncBatchNorm sharing its parameters
        and buffers (a BatchNorm module itself gives a new SyncBatchNorm)."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with _torchlite.no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
