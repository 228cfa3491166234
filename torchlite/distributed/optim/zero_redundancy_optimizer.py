"""ZeroRedundancyOptimizer: a wrapper that shards an optimizer's state across the ranks of a process group
(ZeRO stage 1). The parameters are partitioned greedily, largest first, onto the rank holding the fewest elements
so far; each rank builds the wrapped optimizer over its own shard only (so it keeps only that shard's state),
steps it, and then every rank broadcasts its updated parameters to the others. With the same gradients on every
rank (as DistributedDataParallel leaves them) the result is the plain optimizer's step.

`state_dict()` is the plain optimizer's full state dict, on the rank that `consolidate_state_dict(to)` gathered
it to; `load_state_dict()` takes such a full state dict on every rank and keeps each rank's shard."""
from __future__ import annotations

import copy
import io
from itertools import chain
from typing import Any

import torchlite as torch
from torchlite.optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


def _dist():
    import torchlite.distributed as dist
    return dist


def _broadcast_object(obj, src_rank, group):
    """Sends a picklable object (tensors included) from `src_rank` to every rank: its bytes length, then the bytes,
    as two broadcasts of uint8/int64 tensors. Returns the object on every rank."""
    dist = _dist()
    if dist.get_rank(group) == src_rank:
        buf = io.BytesIO()
        torch.save(obj, buf)
        data = torch.frombuffer(bytearray(buf.getvalue()), dtype=torch.uint8)
        length = torch.tensor([data.numel()], dtype=torch.int64)
        dist.broadcast(length, src_rank, group=group)
        dist.broadcast(data, src_rank, group=group)
        return obj
    length = torch.tensor([0], dtype=torch.int64)
    dist.broadcast(length, src_rank, group=group)
    data = torch.empty(int(length.item()), dtype=torch.uint8)
    dist.broadcast(data, src_rank, group=group)
    return torch.load(io.BytesIO(bytes(data.numpy().tobytes())), weights_only=False)


def _typename(obj) -> str:
    """torch.typename: a tensor's type string (torch.FloatTensor), else the qualified class name."""
    if isinstance(obj, torch.Tensor):
        return obj.type()
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _group_rank_to_global(group, rank):
    dist = _dist()
    getter = getattr(getattr(dist, "distributed_c10d", None), "get_global_rank", None)
    if getter is None or group is None or group is getattr(getattr(dist, "group", None), "WORLD", None):
        return rank
    return getter(group, rank)


class ZeroRedundancyOptimizer(Optimizer):
    """Wraps `optimizer_class(params, **defaults)` with its state sharded across the ranks of `process_group`."""

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view: bool = False,
                 overlap_with_ddp: bool = False, **defaults: Any):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp=True (a DDP communication hook) "
                                      "is not supported by torchlite")
        params = self._verify_and_init_params(params)
        self.initialized = False
        Optimizer.__init__(self, params, defaults)
        self._partition_parameters_cache: list[list[dict]] = []
        dist = _dist()
        self._default_device = self._all_params[0].device
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self.world_size = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self.global_rank = _group_rank_to_global(self.process_group, self.rank)
        self._overlap_with_ddp = False
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self.parameters_as_bucket_view = parameters_as_bucket_view  # accepted; parameters are sent one by one
        self._init_local_optimizer()
        self._all_state_dicts: list[dict[str, Any]] = []
        self.initialized = True

    # ---- partition ------------------------------------------------------------------------------------------

    def _verify_and_init_params(self, params):
        if isinstance(params, torch.Tensor):
            raise TypeError("`params` argument should be an iterable of Tensors, but got "
                            f"{_typename(params)}")
        try:
            all_params = list(params)
        except TypeError as e:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts, but got "
                            f"{_typename(params)}") from e
        if len(all_params) == 0:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        all_tensors = all(isinstance(p, torch.Tensor) for p in all_params)
        all_dicts = all(isinstance(p, dict) for p in all_params)
        if not all_tensors and not all_dicts:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        if all_tensors:
            self._all_params = all_params
        else:
            self._all_params = []
            for group in all_params:
                if "params" not in group:
                    raise ValueError("Each parameter group passed-in via `params` must have a 'params' key mapping "
                                     "to the parameters in the group")
                self._all_params.extend(group["params"])
        return all_params

    def _clear_cache(self) -> None:
        self._partition_parameters_cache = []

    def _partition_parameters(self) -> list[list[dict]]:
        """Per rank, its parameter groups (every group on every rank, possibly with no parameters)."""
        if not self._partition_parameters_cache:
            self._partition_parameters_cache = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                per_rank: list[list] = [[] for _ in range(self.world_size)]
                for param in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    per_rank[rank].append(param)
                    sizes[rank] += param.numel()
                for rank, rank_params in enumerate(per_rank):
                    rank_group = copy.copy(group)
                    rank_group["params"] = rank_params
                    self._partition_parameters_cache[rank].append(rank_group)
        return self._partition_parameters_cache

    @property
    def _param_to_rank(self) -> dict[int, int]:
        return {id(p): rank for rank, groups in enumerate(self._partition_parameters())
                for g in groups for p in g["params"]}

    @property
    def _index_to_param(self) -> list:
        return list(chain.from_iterable(g["params"] for g in self.param_groups))

    @property
    def _param_to_index(self) -> dict[int, int]:
        return {id(p): i for i, p in enumerate(self._index_to_param)}

    def _init_local_optimizer(self) -> None:
        self.optim = self._optim_constructor(self._partition_parameters()[self.rank], **self._optim_defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        super().add_param_group(param_group)
        if getattr(self, "initialized", False):
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])

    @staticmethod
    def _sync_param_groups(src_param_groups, dst_param_groups) -> None:
        """Copies every option but the parameters (a scheduler's lr, ...) from one list of groups to the other."""
        if len(src_param_groups) != len(dst_param_groups):
            raise AssertionError("Mismatch between number of source and destination parameter groups")
        for src, dst in zip(src_param_groups, dst_param_groups):
            for key in src:
                if key != "params":
                    dst[key] = src[key]

    # ---- step -------------------------------------------------------------------------------------------

    def _sync_params(self) -> None:
        """Each rank's updated parameters, broadcast from it to the others (all sends posted, then waited)."""
        dist = _dist()
        handles = []
        for rank, groups in enumerate(self._partition_parameters()):
            src = _group_rank_to_global(self.process_group, rank)
            for group in groups:
                for param in group["params"]:
                    handles.append(dist.broadcast(param.data, src, group=self.process_group, async_op=True))
        for h in handles:
            h.wait()

    def step(self, closure=None, **kwargs):
        """The wrapped optimizer's step on this rank's shard, then the parameters exchanged."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None else self.optim.step(closure=closure, **kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self._sync_params()
        return loss

    # ---- state dicts ------------------------------------------------------------------------------------------

    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gathers every rank's shard of the state on rank `to` (a collective: every rank calls it)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        self._all_state_dicts = []
        for rank in range(self.world_size):
            src = _group_rank_to_global(self.process_group, rank)
            local = _broadcast_object(self.optim.state_dict() if rank == self.rank else None, src,
                                      self.process_group)
            if self.rank == to:
                self._all_state_dicts.append(local)

    def state_dict(self) -> dict[str, Any]:
        """The full state dict, as the wrapped optimizer over all the parameters would give (after
        consolidate_state_dict on this rank)."""
        if len(self._all_state_dicts) == 0:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        state_dict = super().state_dict()
        param_to_index = self._param_to_index
        for rank, local in enumerate(self._all_state_dicts):
            global_groups = self._partition_parameters()[rank]
            if len(local["param_groups"]) != len(global_groups):
                raise AssertionError("Mismatch between number of local and global parameter groups")
            for local_group, global_group in zip(local["param_groups"], global_groups):
                for local_index, param in zip(local_group["params"], global_group["params"]):
                    if local_index in local["state"]:
                        state_dict["state"][param_to_index[id(param)]] = local["state"][local_index]
        state_dict["state"] = dict(sorted(state_dict["state"].items()))
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a full state dict (the plain optimizer's, or state_dict()'s); each rank keeps its shard."""
        index_to_param = self._index_to_param
        param_to_rank = self._param_to_rank
        for index, value in state_dict["state"].items():
            param = index_to_param[index]
            if param_to_rank[id(param)] == self.rank:
                self.optim.state[param] = {k: (v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v))
                                           for k, v in value.items()}
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        self._sync_param_groups(groups, self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
