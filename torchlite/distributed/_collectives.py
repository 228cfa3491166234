"""The tensor collectives and point-to-point operations, as torch.distributed's, on MPI's nonblocking
operations (so every wait honours the group's timeout and async_op=True returns the pending Work).

Buffers: a contiguous tensor goes to MPI as a buffer over its own storage; a non-contiguous one goes
through a contiguous temporary (written back into the tensor for outputs); the list forms (all_gather,
gather, scatter, reduce_scatter, all_to_all) go through one contiguous temporary holding the list, as
MPI's collectives take one buffer per rank. Each collective first checks, across ranks, the arguments
whose mismatch would corrupt memory or hang MPI (ProcessGroup._agree). all_reduce is in _all_reduce.py."""
from array import array

import torchlite as _tl
from torchlite.distributed import _mpi
from torchlite.distributed._groups import _group_rank_of, _member_group
from torchlite.distributed._reduce_op import ReduceOp
from torchlite.distributed._work import Work, finished, wait_requests


def _check_single_tensor(param, name):
    if not isinstance(param, _tl.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torchlite.Tensor "
                        f"but got {type(param)} instead.")


def _check_tensor_list(param, name):
    if not isinstance(param, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torchlite.Tensor] "
                        f"but got {type(param)} instead.")
    if not all(isinstance(p, _tl.Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torchlite.Tensor] "
                        f"but got {type(param)} with elements of type {[type(p) for p in param]}.")


def _same_dtype(*tensors):
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        a, b = sorted(str(d) for d in dtypes)[:2]
        raise ValueError(f"Invalid usage of tensors with different dtypes. Found {a} and {b}")


def _desc(t):
    return f"{list(t.shape)} {str(t.dtype).replace('torchlite.', '')}"


def _list_len(opname, name, tensors, size):
    if len(tensors) != size:
        raise ValueError(f"{opname}: `{name}` has {len(tensors)} tensors, the group has {size} ranks (one each)")


def _steps(*fns):
    """One callable running the given write-backs in order (None entries skipped), outside autograd:
    collectives write tensors the way their kernels would, below autograd."""
    fns = [f for f in fns if f is not None]
    if not fns:
        return None

    def run():
        with _tl.no_grad():
            for f in fns:
                f()
    return run


def _flat_cat(tensors, dtype):
    """The tensors' values one after another in a new contiguous 1-D tensor."""
    if not tensors:
        return _tl.empty(0, dtype=dtype)
    return _tl.cat([t.reshape(-1) for t in tensors])


def _scatter_into(flat, tensors):
    """Copies consecutive pieces of 1-D `flat` into `tensors` (the write-back of a list output)."""
    def run():
        offset = 0
        for t in tensors:
            n = t.numel()
            t.copy_(flat[offset:offset + n].view(t.shape))
            offset += n
    return run


def _to_reduce_dtype(flat):
    return flat.to(_tl.float32) if flat.dtype in _mpi.STAGED_DTYPES else flat


def _average(buf, op, size):
    if ReduceOp._coerce(op, "average") is ReduceOp.AVG:
        return lambda: buf.div_(size)
    return None


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies `tensor` of rank `src` into `tensor` of every rank of the group."""
    _check_single_tensor(tensor, "tensor")
    pg = _member_group(group, "broadcast")
    if pg is None:
        return None
    root = _group_rank_of(pg, src, group_src)
    pg._agree("broadcast", (tensor.shape, tensor.dtype, "root", root))
    buf, back = _mpi.staged(tensor)
    req = pg._comm.Ibcast(_mpi.byte_spec(buf), root)
    if pg.rank() == root:
        back = None
    return finished(Work([req], pg, "broadcast", _steps(back), [tensor], keep=(buf,)), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` across the group into `tensor` of rank `dst` (the others' are left as they are)."""
    _check_single_tensor(tensor, "tensor")
    pg = _member_group(group, "reduce")
    if pg is None:
        return None
    root = _group_rank_of(pg, dst, group_dst)
    mpi_op = _mpi.reduce_op(op, tensor.dtype, "reduce")
    if pg.rank() == root:
        buf, back = _mpi.staged(tensor, reduce=True)
        start = lambda: [pg._comm.Ireduce(pg._mpi.IN_PLACE, _mpi.reduce_spec(buf), mpi_op, root)]  # noqa: E731
        finish = _steps(_average(buf, op, pg.size()), back)
    else:
        buf = _to_reduce_dtype(_mpi.contiguous_input(tensor))
        start = lambda: [pg._comm.Ireduce(_mpi.reduce_spec(buf), None, mpi_op, root)]  # noqa: E731
        finish = None
    pg._agree("reduce", (tensor.shape, tensor.dtype, ReduceOp._coerce(op, "reduce"), "root", root))
    return finished(Work(start(), pg, "reduce", finish, [tensor, buf]), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[i] of every rank receives `tensor` of group rank i."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    _same_dtype(tensor, *tensor_list)
    pg = _member_group(group, "all_gather")
    if pg is None:
        return None
    _list_len("all_gather", "tensor_list", tensor_list, pg.size())
    mine = tensor_list[pg.rank()]
    local = None if mine.numel() == tensor.numel() else \
        f"tensor {_desc(tensor)} does not fit its slot tensor_list[{pg.rank()}] {_desc(mine)}"
    pg._agree("all_gather", ([t.shape for t in tensor_list], tensor.dtype), local)
    elem = tensor.element_size()
    counts = [t.numel() * elem for t in tensor_list]
    displs = [sum(counts[:i]) for i in range(len(counts))]
    src = _mpi.contiguous_input(tensor)
    out = _tl.empty(sum(t.numel() for t in tensor_list), dtype=tensor.dtype)
    MPI = pg._mpi
    req = pg._comm.Iallgatherv(_mpi.byte_spec(src), [_mpi.buffer(out), (counts, displs), MPI.BYTE])
    return finished(Work([req], pg, "all_gather", _steps(_scatter_into(out, tensor_list)), [tensor_list, src, out]),
                    async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The ranks' `input_tensor`s, concatenated along dim 0 (or stacked) into `output_tensor`."""
    _check_single_tensor(output_tensor, "output_tensor")
    _check_single_tensor(input_tensor, "input_tensor")
    _same_dtype(output_tensor, input_tensor)
    pg = _member_group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    local = None
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        local = (f"output_tensor {_desc(output_tensor)} must hold {pg.size()} x input_tensor "
                 f"{_desc(input_tensor)}")
    pg._agree("all_gather_into_tensor", (input_tensor.shape, input_tensor.dtype), local)
    src = _mpi.contiguous_input(input_tensor)
    buf, back = _mpi.staged(output_tensor)
    req = pg._comm.Iallgather(_mpi.byte_spec(src), _mpi.byte_spec(buf))
    return finished(Work([req], pg, "all_gather_into_tensor", _steps(back), [output_tensor, src]), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' input_list element-wise; `output` of group rank i receives element i."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _same_dtype(output, *input_list)
    pg = _member_group(group, "reduce_scatter")
    if pg is None:
        return None
    _list_len("reduce_scatter", "input_list", input_list, pg.size())
    mpi_op = _mpi.reduce_op(op, output.dtype, "reduce_scatter")
    mine = input_list[pg.rank()]
    local = None if mine.numel() == output.numel() else \
        f"output {_desc(output)} does not match its slot input_list[{pg.rank()}] {_desc(mine)}"
    red = ReduceOp._coerce(op, "reduce_scatter")
    pg._agree("reduce_scatter", ([t.shape for t in input_list], output.dtype, red), local)
    src = _to_reduce_dtype(_flat_cat(input_list, output.dtype))
    buf, back = _mpi.staged(output, reduce=True)
    counts = [t.numel() for t in input_list]
    req = pg._comm.Ireduce_scatter(_mpi.reduce_spec(src), _mpi.reduce_spec(buf), counts, mpi_op)
    return finished(Work([req], pg, "reduce_scatter", _steps(_average(buf, op, pg.size()), back), [output, src]),
                    async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' `input` element-wise; `output` of group rank i receives its i-th chunk (dim 0)."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _same_dtype(output, input)
    pg = _member_group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    mpi_op = _mpi.reduce_op(op, output.dtype, "reduce_scatter_tensor")
    local = None
    if input.numel() != output.numel() * pg.size():
        local = f"input {_desc(input)} must hold {pg.size()} x output {_desc(output)}"
    red = ReduceOp._coerce(op, "reduce_scatter_tensor")
    pg._agree("reduce_scatter_tensor", (output.shape, output.dtype, red), local)
    src = _to_reduce_dtype(_mpi.contiguous_input(input))
    buf, back = _mpi.staged(output, reduce=True)
    req = pg._comm.Ireduce_scatter_block(_mpi.reduce_spec(src), _mpi.reduce_spec(buf), mpi_op)
    return finished(Work([req], pg, "reduce_scatter_tensor", _steps(_average(buf, op, pg.size()), back),
                         [output, src]), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """gather_list[i] of rank `dst` (0 by default) receives `tensor` of group rank i."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _same_dtype(tensor, *gather_list)
    pg = _member_group(group, "gather")
    if pg is None:
        return None
    root = _group_rank_of(pg, dst, group_dst, default=0)
    is_root = pg.rank() == root
    if is_root and not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not is_root and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    local = None
    if is_root:
        if len(gather_list) != pg.size():
            local = f"gather_list has {len(gather_list)} tensors for {pg.size()} ranks"
        elif any(t.shape != tensor.shape for t in gather_list):
            local = f"gather_list {[_desc(t) for t in gather_list]} does not match tensor {_desc(tensor)}"
    pg._agree("gather", (tensor.shape, tensor.dtype, "root", root), local)
    src = _mpi.contiguous_input(tensor)
    if is_root:
        out = _tl.empty(tensor.numel() * pg.size(), dtype=tensor.dtype)
        req = pg._comm.Igather(_mpi.byte_spec(src), _mpi.byte_spec(out), root)
        finish = _steps(_scatter_into(out, gather_list))
    else:
        out = None
        req = pg._comm.Igather(_mpi.byte_spec(src), None, root)
        finish = None
    return finished(Work([req], pg, "gather", finish, [src, out, gather_list]), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """`tensor` of group rank i receives scatter_list[i] of rank `src` (0 by default)."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _same_dtype(tensor, *scatter_list)
    pg = _member_group(group, "scatter")
    if pg is None:
        return None
    root = _group_rank_of(pg, src, group_src, default=0)
    is_root = pg.rank() == root
    if is_root and not scatter_list:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if not is_root and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    local = None
    if is_root:
        if len(scatter_list) != pg.size():
            local = f"scatter_list has {len(scatter_list)} tensors for {pg.size()} ranks"
        elif any(t.shape != tensor.shape for t in scatter_list):
            local = f"scatter_list {[_desc(t) for t in scatter_list]} does not match tensor {_desc(tensor)}"
    pg._agree("scatter", (tensor.shape, tensor.dtype, "root", root), local)
    buf, back = _mpi.staged(tensor)
    inp = _flat_cat(scatter_list, tensor.dtype) if is_root else None
    req = pg._comm.Iscatter(_mpi.byte_spec(inp) if is_root else None, _mpi.byte_spec(buf), root)
    return finished(Work([req], pg, "scatter", _steps(back), [tensor, inp]), async_op)


def _exchange_counts(pg, opname, send_counts):
    """What each rank will send this one (an all-to-all of the per-peer element counts)."""
    got = array("q", [0] * pg.size())
    wait_requests([pg._comm.Ialltoall(array("q", send_counts), got)], pg, opname)
    return list(got)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[j] of rank i receives input_tensor_list[i] of rank j."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtype(*output_tensor_list, *input_tensor_list)
    pg = _member_group(group, "all_to_all")
    if pg is None:
        return None
    _list_len("all_to_all", "output_tensor_list", output_tensor_list, pg.size())
    _list_len("all_to_all", "input_tensor_list", input_tensor_list, pg.size())
    send = [t.numel() for t in input_tensor_list]
    recv = [t.numel() for t in output_tensor_list]
    incoming = _exchange_counts(pg, "all_to_all", send)
    local = None
    if incoming != recv:
        local = (f"output_tensor_list {[_desc(t) for t in output_tensor_list]} does not match the element counts "
                 f"the ranks send it: {incoming}")
    dtype = output_tensor_list[0].dtype if output_tensor_list else _tl.float32
    pg._agree("all_to_all", (dtype,), local)
    elem = _tl.empty(0, dtype=dtype).element_size()
    src = _flat_cat(input_tensor_list, dtype)
    out = _tl.empty(sum(recv), dtype=dtype)
    MPI = pg._mpi
    sb, rb = [n * elem for n in send], [n * elem for n in recv]
    req = pg._comm.Ialltoallv([_mpi.buffer(src), (sb, [sum(sb[:i]) for i in range(len(sb))]), MPI.BYTE],
                              [_mpi.buffer(out), (rb, [sum(rb[:i]) for i in range(len(rb))]), MPI.BYTE])
    return finished(Work([req], pg, "all_to_all", _steps(_scatter_into(out, output_tensor_list)),
                         [output_tensor_list, src, out]), async_op)


def _splits(opname, name, sizes, rows, n):
    if sizes is None or len(sizes) == 0:
        if rows % n:
            raise ValueError(f"{opname}: dim 0 of {name} ({rows}) is not divisible by the group size ({n}); "
                             f"give {name}_split_sizes")
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n:
        raise ValueError(f"{opname}: {name}_split_sizes has {len(sizes)} entries, the group has {n} ranks")
    if sum(sizes) != rows or any(s < 0 for s in sizes):
        raise ValueError(f"Split sizes doesn't match total dim 0 size: {opname} {name}_split_sizes {sizes} "
                         f"for dim 0 of size {rows}")
    return sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Splits `input` along dim 0 (evenly, or by input_split_sizes), sends split j to rank j, and
    concatenates what rank j sent into split j of `output`."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _same_dtype(output, input)
    pg = _member_group(group, "all_to_all_single")
    if pg is None:
        return None
    n = pg.size()
    in_rows = input.shape[0] if input.dim() else 1
    out_rows = output.shape[0] if output.dim() else 1
    send = _splits("all_to_all_single", "input", input_split_sizes, in_rows, n)
    recv = _splits("all_to_all_single", "output", output_split_sizes, out_rows, n)
    incoming = _exchange_counts(pg, "all_to_all_single", send)
    row_in = input.numel() // in_rows if in_rows else 0
    row_out = output.numel() // out_rows if out_rows else 0
    local = None
    if incoming != recv:
        local = f"output splits {recv} (rows) do not match the rows the ranks send it: {incoming}"
    elif row_in != row_out and in_rows and out_rows:
        local = f"input rows of {list(input.shape[1:])} and output rows of {list(output.shape[1:])} differ"
    pg._agree("all_to_all_single", (input.dtype, "rows of", input.shape[1:]), local)
    elem = input.element_size()
    src = _mpi.contiguous_input(input)
    buf, back = _mpi.staged(output)
    sb = [r * row_in * elem for r in send]
    rb = [r * row_out * elem for r in recv]
    MPI = pg._mpi
    req = pg._comm.Ialltoallv([_mpi.buffer(src), (sb, [sum(sb[:i]) for i in range(n)]), MPI.BYTE],
                              [_mpi.buffer(buf), (rb, [sum(rb[:i]) for i in range(n)]), MPI.BYTE])
    return finished(Work([req], pg, "all_to_all_single", _steps(back), [output, src]), async_op)


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Waits until every rank of the group has reached the barrier."""
    pg = _member_group(group, "barrier")
    if pg is None:
        return None
    work = Work([pg._comm.Ibarrier()], pg, "barrier")
    if async_op:
        return work
    work.wait(timeout)
    return None


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that raises past `timeout` (the group's by default) naming the op and this rank."""
    return barrier(group, timeout=timeout)


def _peer(pg, rank, group_rank, what):
    peer = _group_rank_of(pg, rank, group_rank)
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of the current "
                         "process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst` without blocking; the Work completes once MPI has taken the data."""
    _check_single_tensor(tensor, "tensor")
    pg = _member_group(group, "isend")
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "destination")
    src = _mpi.contiguous_input(tensor)
    req = pg._comm.Isend(_mpi.byte_spec(src), peer, tag)
    return Work([req], pg, "send", None, [tensor, src])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None) without blocking."""
    _check_single_tensor(tensor, "tensor")
    pg = _member_group(group, "irecv")
    if pg is None:
        return None
    MPI = pg._mpi
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "source")
    buf, back = _mpi.staged(tensor)
    statuses = [MPI.Status()]  # Testall fills it
    expected = tensor.numel() * tensor.element_size()
    req = pg._comm.Irecv(_mpi.byte_spec(buf), peer, tag)

    def check_size():
        status = statuses[0]
        got = status.Get_count(MPI.BYTE)
        if got != expected:
            raise RuntimeError(f"recv: rank {pg._global_rank} received {got} bytes from rank "
                               f"{pg._ranks[status.Get_source()]} into a tensor of {_desc(tensor)} ({expected} bytes)")
    work = Work([req], pg, "recv", _steps(check_size, back), [tensor], statuses=statuses)
    work._source = lambda: statuses[0].Get_source()
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst`, returning once MPI has taken the data."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None); returns the sender's global rank
    (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._group._ranks[work._source()]


class P2POp:
    """One point-to-point operation for batch_isend_irecv: `op` is isend or irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        _check_single_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list):
    """Starts every isend / irecv of the list at once (MPI matches them in any order); one Work each."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return [w for w in works if w is not None]
