"""DistributedDataParallel: data-parallel training over the ranks of a process group (torchlite.distributed).

Construction broadcasts the wrapped module's parameters and buffers from rank 0; every backward all-reduces the
gradients in buckets while it runs (parallel/_reducer.py) and leaves each parameter's `.grad` the average over the
ranks, so N ranks with per-rank batch B train like one process with batch N * B. Forward broadcasts the buffers
from rank 0 first (`broadcast_buffers`); `no_sync()` accumulates gradients locally; `find_unused_parameters`
searches the forward's outputs for parameters the graph does not reach. The wrapped module is `.module`, and the
state dict is the module's with a `module.` prefix, as PyTorch's."""
from __future__ import annotations

import warnings
from contextlib import contextmanager

import torchlite as torch
from torchlite.nn.modules.module import Module

from ._reducer import _MB, Reducer

__all__ = ["DistributedDataParallel"]

_DEFAULT_BUCKET_CAP_MB = 25
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
_BROADCAST_BUCKET_BYTES = 250 * 1024 * 1024


def _dist():
    import torchlite.distributed as dist
    return dist


def _find_tensors(obj):
    """The tensors in a (nested) forward output: tensors, lists, tuples and dicts."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


def _broadcast_coalesced(tensors, src, group, bucket_bytes):
    """Broadcasts `tensors` from rank `src`, packed into flat buffers of up to `bucket_bytes` per dtype."""
    dist = _dist()
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for dtype, group_tensors in by_dtype.items():
        chunk, size = [], 0
        for t in group_tensors + [None]:
            if t is not None:
                chunk.append(t)
                size += t.numel() * t.element_size()
            if chunk and (t is None or size >= bucket_bytes):
                flat = torch.cat([c.detach().reshape(-1) for c in chunk]) if len(chunk) > 1 else \
                    chunk[0].detach().reshape(-1).clone()
                dist.broadcast(flat, src, group=group)
                offset = 0
                with torch.no_grad():
                    for c in chunk:
                        c.copy_(flat[offset:offset + c.numel()].view(c.shape))
                        offset += c.numel()
                chunk, size = [], 0


class DistributedDataParallel(Module):
    """Wraps `module` for data-parallel training in the process group `process_group` (default: the world)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        dist = _dist()
        for name, value in (("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("param_to_hook_all_reduce", param_to_hook_all_reduce),
                            ("mixed_precision", mixed_precision), ("device_mesh", device_mesh),
                            ("bucket_cap_mb_list", bucket_cap_mb_list)):
            if value is not None:
                raise NotImplementedError(f"DistributedDataParallel: {name} is not supported by torchlite")
        if process_group is None:
            process_group = dist.group.WORLD if hasattr(dist, "group") else None
        self.process_group = process_group
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self._module_parameters = [p for n, p in module.named_parameters() if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for p in self._module_parameters):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if device_ids or output_device:
            devices = {p.device for p in self._module_parameters}
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        self.device_ids = None
        self.output_device = None
        self.device_type = "cpu"
        self.dim = dim
        self.module = module
        self.device = self._module_parameters[0].device
        if broadcast_buffers is not None:
            warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead."
                          if forward_sync_buffers is None else
                          "Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` "
                          "is deprecated and its value is ignored when `forward_sync_buffers` is provided.",
                          FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers = forward_sync_buffers
            init_sync_buffers = True
        else:
            self.forward_sync_buffers = broadcast_buffers if broadcast_buffers is not None else True
            init_sync_buffers = self.forward_sync_buffers
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. "
                          "Please avoid using it.", FutureWarning, stacklevel=2)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph  # accepted; the graph is searched each iteration either way
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.broadcast_bucket_size = _BROADCAST_BUCKET_BYTES
        is_default = bucket_cap_mb is None
        cap_mb = _DEFAULT_BUCKET_CAP_MB if is_default else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB)
        first_cap = _DEFAULT_FIRST_BUCKET_BYTES if is_default else self.bucket_bytes_cap
        self.bucket_bytes_cap_default = first_cap < self.bucket_bytes_cap
        params = [p for p in self._module_parameters if p.requires_grad]
        if init_sync:
            # every rank starts from rank 0's weights (and buffers)
            states = list(self._module_parameters)
            if init_sync_buffers:
                states += self._buffers_to_sync()
            _broadcast_coalesced(states, 0, self.process_group, self.broadcast_bucket_size)
        self.reducer = Reducer(params, self.process_group, self.bucket_bytes_cap, first_cap, find_unused_parameters,
                               gradient_as_bucket_view)

    # ---- buffers ----------------------------------------------------------------------------------------

    def _buffers_to_sync(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    @property
    def broadcast_buffers(self) -> bool:
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = value

    def will_sync_module_buffers(self) -> bool:
        return self.require_forward_param_sync and self.forward_sync_buffers and len(self._buffers_to_sync()) > 0

    def _sync_buffers(self):
        with torch.no_grad():
            _broadcast_coalesced(self._buffers_to_sync(), 0, self.process_group, self.broadcast_bucket_size)

    # ---- forward --------------------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        grad_sync = torch.is_grad_enabled() and self.require_backward_grad_sync
        if torch.is_grad_enabled():
            self.reducer.check_prior_reduction_finished()
        if self.will_sync_module_buffers():
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        else:
            self.require_forward_param_sync = False
        return output

    @contextmanager
    def no_sync(self):
        """Gradients of the forward/backward passes inside accumulate locally; the first backward after it (of a
        forward outside it) all-reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
