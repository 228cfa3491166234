"""all_reduce, the collective a training loop calls most (gradients, SyncBatchNorm statistics): a general
path for any tensor, and a short one for a contiguous tensor reduced again over the same memory.

A contiguous tensor of an MPI-reducible dtype runs on a persistent MPI request (MPI_Allreduce_init over
its memory), made once every rank agreed to make one (making it is a collective call) and kept in a
_Plan with what the argument check sends for it. The next call on the same memory, dtype, count and
ReduceOp skips the general path's work (op and dtype translation, staging, the fingerprint) but not the
check itself: every rank still agrees, in the one small allreduce, that all called all_reduce with the
same shape, dtype and op and that all have their request ready, before MPI touches the buffer. A
blocking call waits on the request directly (no Work object)."""
import torchlite as _tl
from torchlite.distributed import _mpi
from torchlite.distributed._collectives import _average, _check_single_tensor, _steps
from torchlite.distributed._groups import GroupMember, ProcessGroup, _member_group
from torchlite.distributed._reduce_op import ReduceOp
from torchlite.distributed._work import Work, finished, wait_test

_RedOpType = ReduceOp.RedOpType
_Tensor = _tl.Tensor
_MAX_PLANS = 64  # per group: a model's gradient buckets, a few statistics buffers


class _Plan:
    """A persistent all_reduce over one tensor's memory that every rank made, and the shape and
    argument-check fingerprint of the call that made it. `started`: the request may be running (started
    by an async_op=True call, or a blocking one that raised): only then is it tested before a reuse (a
    blocking call completes it before returning; an MPI call saved per call, a few us when the caches
    are cold)."""
    __slots__ = ("req", "shape", "fingerprint", "started")

    def __init__(self, req, shape, fingerprint):
        self.req, self.shape, self.fingerprint = req, shape, fingerprint
        self.started = False


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` across the group's ranks in place: every rank ends with the result. A
    contiguous tensor reduced again (a training loop's gradients) reuses a persistent MPI request."""
    pg = GroupMember.WORLD if group is None else group
    if type(pg) is ProcessGroup and type(op) is _RedOpType and isinstance(tensor, _Tensor):
        plan = pg._persistent.get((tensor.data_ptr(), tensor.numel(), tensor.dtype, op))
        if plan is not None and pg._broken is None and plan.shape == tensor.shape and tensor.is_contiguous():
            return _planned(pg, plan, tensor, op, async_op)
    return _general(tensor, op, group, async_op)


def _planned(pg, plan, tensor, op, async_op):
    """all_reduce on a plan this rank holds: run on it if every rank holds one ready, else as the
    general path would after the check."""
    req = plan.req
    ready = 2
    if plan.started:
        if req.Test():  # completed (an async_op=True Work waited on, or not yet tested)
            plan.started = False
        else:
            ready = 0  # an earlier async_op=True on this memory is still running
    state = pg._agree("all_reduce", (tensor.shape, tensor.dtype, op), reuse=ready, fingerprint=plan.fingerprint)
    if state[0] != 2:
        return _launch(pg, tensor, tensor, None, (tensor.data_ptr(), tensor.numel(), tensor.dtype, op), state,
                       _mpi.reduce_op(op, tensor.dtype, "all_reduce"), op, async_op)
    plan.started = True
    req.Start()
    if async_op:
        return Work([req], pg, "all_reduce", _steps(_average(tensor, op, pg.size())), [tensor])
    wait_test(req.Test, pg, "all_reduce", None, [req])
    plan.started = False  # completed by the wait
    if op is _RedOpType.AVG:
        with _tl.no_grad():
            tensor.div_(pg.size())
    return None


def _general(tensor, op, group, async_op):
    _check_single_tensor(tensor, "tensor")
    pg = _member_group(group, "all_reduce")
    if pg is None:
        return None
    mpi_op = _mpi.reduce_op(op, tensor.dtype, "all_reduce")
    red = ReduceOp._coerce(op, "all_reduce")
    buf, back = _mpi.staged(tensor, reduce=True)
    key = None if back is not None else (buf.data_ptr(), buf.numel(), buf.dtype, red)
    meta = (tensor.shape, tensor.dtype, red)
    state = pg._agree("all_reduce", meta, reuse=_readiness(pg, key))
    return _launch(pg, tensor, buf, back, key, state, mpi_op, op, async_op)


def _readiness(pg, key):
    """2 when this rank has a persistent request for `key` ready (made, not running), 1 when it could
    make one, 0 when not (key None: a staged temporary, new memory every call)."""
    if key is None:
        return 0
    plan = pg._persistent.get(key)
    if plan is None:
        return 1
    if plan.started:
        if not plan.req.Test():
            return 0
        plan.started = False
    return 2


def _launch(pg, tensor, buf, back, key, state, mpi_op, op, async_op):
    """Starts the reduction once the ranks agreed (`state`: the smallest and largest readiness): on the
    cached persistent request when every rank has one ready, on a new one (cached) when every rank can
    make one, else on a one-off nonblocking allreduce. A rank may hold a ready request for the key that the
    others do not (one made for earlier memory at the same address, freed since: addresses differ across
    ranks): it frees that one and makes the new one with the others, so the ranks' plans agree again."""
    smallest, largest = state
    IN_PLACE = pg._mpi.IN_PLACE
    if smallest == 2:
        plan = pg._persistent[key]
    elif smallest == 1:
        stale = pg._persistent.pop(key, None)
        if stale is not None:  # ready (readiness 2: not running), so freeing it is local
            stale.req.Free()
        if len(pg._persistent) >= _MAX_PLANS:
            for old_key, old in list(pg._persistent.items()):
                if old.req.Test():  # inactive: freeing it is local
                    old.req.Free()
                    del pg._persistent[old_key]
                    break
        req = pg._comm.Allreduce_init(IN_PLACE, _mpi.reduce_spec(buf), mpi_op)
        red = key[3]
        plan = pg._persistent[key] = _Plan(req, tensor.shape,
                                           pg._fingerprint(("all_reduce", (tensor.shape, tensor.dtype, red), None)))
    else:
        req = pg._comm.Iallreduce(IN_PLACE, _mpi.reduce_spec(buf), mpi_op)
        return finished(Work([req], pg, "all_reduce", _steps(_average(buf, op, pg.size()), back), [tensor]),
                        async_op)
    req = plan.req
    plan.started = True
    req.Start()
    return finished(Work([req], pg, "all_reduce", _steps(_average(buf, op, pg.size()), back), [tensor]), async_op)
