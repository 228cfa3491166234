"""Worker (2 or 4 ranks): the core of torchlite.distributed: init, rank queries, all_reduce of every dtype
and op (contiguous, non-contiguous, 0-d, empty, async), broadcast, barrier."""
import datetime
import os

import numpy as np

from harness import check, run
import torchlite as tl
import torchlite.distributed as dist
from values import DTYPES, expected_reduce, same, tensor, values


@check
def rank_queries(rank, size):
    assert dist.is_available() and dist.is_initialized() and dist.is_mpi_available()
    assert size == int(os.environ["WORLD_SIZE"]) and rank == int(os.environ["RANK"])
    assert 0 <= int(os.environ["LOCAL_RANK"]) < size
    assert dist.get_backend() == "mpi" and dist.get_process_group_ranks(dist.group.WORLD) == list(range(size))
    assert dist.get_rank(dist.GroupMember.WORLD) == rank
    try:
        dist.init_process_group("mpi")
    except ValueError as e:
        assert "twice" in str(e)
    else:
        raise AssertionError("a second init_process_group did not raise")


@check
def all_reduce_every_dtype_and_op(rank, size):
    for dtype in DTYPES:
        ops = ["SUM", "PRODUCT", "MIN", "MAX"]
        if dtype.startswith(("float", "bfloat")):
            ops.append("AVG")
        else:
            ops += ["BAND", "BOR", "BXOR"]
        for op in ops:
            t = tensor(rank, dtype=dtype)
            ptr = t.data_ptr()
            assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
            same(t, expected_reduce(op, size, dtype=dtype), f"{dtype} {op}")
            assert t.data_ptr() == ptr and t.dtype == getattr(tl, dtype)


@check
def all_reduce_layouts(rank, size):
    for dtype in ("float32", "int64", "float16", "bfloat16"):
        # transposed and sliced views are reduced in place: the base sees the result where the view is
        base = tensor(rank, (4, 6), dtype)
        view = base.t()[1:5:2]
        before = np.array(values(rank, (4, 6), dtype))
        dist.all_reduce(view)
        want = before.copy()
        want.T[1:5:2] = np.stack([values(r, (4, 6), dtype) for r in range(size)]).sum(0).T[1:5:2]
        same(base, want, dtype)
    scalar = tl.tensor(float(rank + 1))
    dist.all_reduce(scalar, op=dist.ReduceOp.MAX)
    assert scalar.shape == () and scalar.item() == size
    empty = tl.empty(0, 3)
    dist.all_reduce(empty)
    assert empty.shape == (0, 3)


@check
def all_reduce_async(rank, size):
    t = tensor(rank, (3, 5), "float64")
    work = dist.all_reduce(t, op=dist.ReduceOp.SUM, async_op=True)
    assert work.wait() is True and work.is_completed() and work.is_success()
    same(t, expected_reduce("SUM", size, (3, 5)))
    assert work.result()[0] is t
    # the future of a Work, and a callback chained on it (what DDP's communication hooks use)
    t = tensor(rank, (2,), "float32")
    fut = dist.all_reduce(t, async_op=True).get_future().then(lambda f: f.value()[0] * 2)
    same(fut.wait(), expected_reduce("SUM", size, (2,)) * 2)
    assert fut.done()
    # several in flight at once, waited on in reverse order; a non-contiguous one is written back on wait
    ts = [tensor(rank, (4, 4), "float32").t() for _ in range(3)]
    works = [dist.all_reduce(x, async_op=True) for x in ts]
    for w in reversed(works):
        w.wait(timeout=datetime.timedelta(seconds=20))
    for x in ts:
        same(x, expected_reduce("SUM", size, (4, 4)).T)


@check
def all_reduce_reuse_of_persistent_requests(rank, size):
    # rank 0 reduces one tensor again and again (its persistent request is reused), the others fresh
    # tensors (new addresses): the ranks' caches differ and must still agree on what to run
    fixed = tensor(rank, (5,))
    kept = []
    for i in range(6):
        if rank == 0:
            t = fixed
            t.copy_(tensor(rank, (5,)))
        else:
            t = tensor(rank, (5,))
            kept.append(t)
        dist.all_reduce(t, op=dist.ReduceOp.MAX if i % 3 == 2 else dist.ReduceOp.SUM)
        same(t, expected_reduce("MAX" if i % 3 == 2 else "SUM", size, (5,)))
    # the same tensor twice in flight: the second cannot reuse the running request
    a = tensor(rank, (5,))
    w1 = dist.all_reduce(a, async_op=True)
    w2 = dist.all_reduce(a, async_op=True)
    w1.wait()
    w2.wait()
    same(a, expected_reduce("SUM", size, (5,)) * size)


@check
def broadcast_every_dtype(rank, size):
    for src in range(size):
        for dtype in DTYPES:
            t = tensor(rank, (3, 2), dtype)
            dist.broadcast(t, src=src)
            same(t, values(src, (3, 2), dtype), dtype)
    t = tensor(rank, (3, 4)).t()
    work = dist.broadcast(t, src=size - 1, async_op=True)
    work.wait()
    same(t, values(size - 1, (3, 4)).T)
    t = tensor(rank, (2,))
    dist.broadcast(t, group_src=1)
    same(t, values(1, (2,)))


@check
def barrier_waits_for_everyone(rank, size):
    import time
    if rank == 0:
        time.sleep(0.3)
    t0 = time.time()
    dist.barrier()
    if rank != 0:
        assert time.time() - t0 > 0.2, "barrier returned before rank 0 arrived"
    w = dist.barrier(async_op=True)
    w.wait()


@check
def init_again_after_destroy(rank, size):
    timeout = dist.group.WORLD.timeout
    dist.destroy_process_group()
    assert not dist.is_initialized()
    try:
        dist.get_rank()
    except ValueError as e:
        assert "has not been initialized" in str(e)
    else:
        raise AssertionError("get_rank after destroy_process_group did not raise")
    dist.init_process_group("gloo", timeout=timeout)  # the gloo name runs on MPI too
    t = tensor(rank)
    dist.all_reduce(t)
    same(t, expected_reduce("SUM", size))


if __name__ == "__main__":
    run()
