"""torch.distributed.distributed_c10d's API: process groups and collectives, on MPI (docs/distributed.md).
The pieces live in private modules (_groups, _collectives, _all_reduce, _object_collectives, _work); this module
gathers them under PyTorch's module name."""
from torchlite.distributed._all_reduce import all_reduce  # noqa: F401
from torchlite.distributed._collectives import (  # noqa: F401
    P2POp, all_gather, all_gather_into_tensor, all_to_all, all_to_all_single, barrier, batch_isend_irecv,
    broadcast, gather, irecv, isend, monitored_barrier, recv, reduce, reduce_scatter, reduce_scatter_tensor, scatter,
    send)
from torchlite.distributed._groups import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, default_pg_timeout, destroy_process_group, get_backend, get_global_rank,
    get_group_rank, get_node_local_rank, get_process_group_ranks, get_rank, get_world_size, group,
    init_process_group, is_initialized, new_group)
from torchlite.distributed._object_collectives import (  # noqa: F401
    all_gather_object, broadcast_object_list, gather_object, scatter_object_list)
from torchlite.distributed._reduce_op import ReduceOp  # noqa: F401
from torchlite.distributed._work import Work  # noqa: F401
from torchlite.distributed import _mpi


def is_mpi_available():
    """True when mpi4py is installed (torchlite's one backend)."""
    return _mpi.available()


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_torchelastic_launched():
    """True under a torchrun-like launcher (torchlite.distributed.run sets TORCHELASTIC_RUN_ID, as torchrun)."""
    import os
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


__all__ = [
    "Backend", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast",
    "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_global_rank", "get_group_rank", "get_node_local_rank", "get_process_group_ranks",
    "get_rank", "get_world_size", "group", "init_process_group", "irecv", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend", "monitored_barrier", "new_group",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]
