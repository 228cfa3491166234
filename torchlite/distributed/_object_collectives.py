"""The object collectives (broadcast_object_list, all_gather_object, gather_object, scatter_object_list):
picklable Python objects sent as bytes, their lengths first, over nonblocking MPI collectives waited on
against the group's timeout. As PyTorch's, they unpickle what other ranks send: use them only between
processes that trust each other."""
import pickle
from array import array

from torchlite.distributed._groups import _group_rank_of, _member_group
from torchlite.distributed._work import wait_requests


def _displs(sizes):
    return [sum(sizes[:i]) for i in range(len(sizes))]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's `object_list` receives, in place, the objects of rank `src` (0 by default); the
    lists must have the same length on every rank."""
    pg = _member_group(group, "broadcast_object_list")
    if pg is None:
        return
    root = _group_rank_of(pg, src, group_src, default=0)
    pg._agree("broadcast_object_list", (root, len(object_list)))
    MPI = pg._mpi
    comm = pg._comm
    is_root = pg.rank() == root
    blobs = [pickle.dumps(o) for o in object_list] if is_root else []
    sizes = array("q", [len(b) for b in blobs] if is_root else [0] * len(object_list))
    wait_requests([comm.Ibcast(sizes, root)], pg, "broadcast_object_list")
    data = bytearray(b"".join(blobs)) if is_root else bytearray(sum(sizes))
    wait_requests([comm.Ibcast([data, MPI.BYTE], root)], pg, "broadcast_object_list")
    if not is_root:
        offset = 0
        for i, n in enumerate(sizes):
            object_list[i] = pickle.loads(bytes(data[offset:offset + n]))
            offset += n


def all_gather_object(object_list, obj, group=None):
    """object_list[i] of every rank receives `obj` of group rank i (object_list has one slot per rank)."""
    pg = _member_group(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} slots, the group has "
                         f"{pg.size()} ranks")
    pg._agree("all_gather_object", ())
    for i, blob in enumerate(pg._allgather_bytes(pickle.dumps(obj), "all_gather_object")):
        object_list[i] = pickle.loads(blob)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """object_gather_list[i] of rank `dst` (0 by default) receives `obj` of group rank i."""
    pg = _member_group(group, "gather_object")
    if pg is None:
        return
    root = _group_rank_of(pg, dst, group_dst, default=0)
    is_root = pg.rank() == root
    if is_root:
        if object_gather_list is None:
            raise AssertionError("Must provide object_gather_list on dst rank")
        if len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: object_gather_list has {len(object_gather_list)} slots, the group "
                             f"has {pg.size()} ranks")
    pg._agree("gather_object", (root,))
    MPI = pg._mpi
    comm = pg._comm
    blob = pickle.dumps(obj)
    sizes = array("q", [0] * pg.size())
    wait_requests([comm.Igather(array("q", [len(blob)]), sizes if is_root else None, root)], pg, "gather_object")
    if is_root:
        data = bytearray(sum(sizes))
        recv = [data, (list(sizes), _displs(list(sizes))), MPI.BYTE]
    else:
        recv = None
    wait_requests([comm.Igatherv([blob, MPI.BYTE], recv, root)], pg, "gather_object")
    if is_root:
        offset = 0
        for i, n in enumerate(sizes):
            object_gather_list[i] = pickle.loads(bytes(data[offset:offset + n]))
            offset += n


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """scatter_object_output_list[0] of group rank i receives scatter_object_input_list[i] of rank `src`
    (0 by default)."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = _member_group(group, "scatter_object_list")
    if pg is None:
        return
    root = _group_rank_of(pg, src, group_src, default=0)
    is_root = pg.rank() == root
    if is_root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        if len(scatter_object_input_list) != pg.size():
            raise ValueError(f"scatter_object_list: scatter_object_input_list has {len(scatter_object_input_list)} "
                             f"objects, the group has {pg.size()} ranks")
    pg._agree("scatter_object_list", (root,))
    MPI = pg._mpi
    comm = pg._comm
    blobs = [pickle.dumps(o) for o in scatter_object_input_list] if is_root else []
    sizes = array("q", [len(b) for b in blobs])
    mine = array("q", [0])
    wait_requests([comm.Iscatter(sizes if is_root else None, mine, root)], pg, "scatter_object_list")
    out = bytearray(mine[0])
    send = [bytearray(b"".join(blobs)), (list(sizes), _displs(list(sizes))), MPI.BYTE] if is_root else None
    wait_requests([comm.Iscatterv(send, [out, MPI.BYTE], root)], pg, "scatter_object_list")
    scatter_object_output_list[0] = pickle.loads(bytes(out))
