"""Worker (2 or 4 ranks): all_reduce's short path (torchlite/distributed/_all_reduce.py), a contiguous tensor
reduced again over the same memory on its persistent request: results against NumPy round after round, every
dtype and op, the argument check still catching mismatches (shapes, a view of the same memory, another
collective) on every rank, ranks on different paths, async_op, AVG, timeouts, subgroups."""
import datetime
import time

import numpy as np
from harness import check, run
import torchlite as tl
import torchlite.distributed as dist
import torchlite.distributed._crowding  # noqa: F401  (dist._crowding below)
from values import DTYPES, expected_reduce, same, tensor, values


def _plans(group=None):
    return len((group or dist.group.WORLD)._persistent)


def _plans_on(t):
    return sum(1 for key in dist.group.WORLD._persistent if key[0] == t.data_ptr() and key[1] == t.numel())


def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), f"{w!r} not in {str(e)!r}"
        return e
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


@check
def repeated_calls_reuse_the_plan(rank, size):
    for dtype in DTYPES:
        ops = ["SUM", "PRODUCT", "MIN", "MAX"] + (["AVG"] if dtype.startswith(("float", "bfloat")) else [])
        for op in ops:
            t = tensor(rank, (3, 4), dtype)
            for i in range(4):  # the first call makes the request, the next ones run on it
                t.copy_(tensor(rank, (3, 4), dtype))
                assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
                same(t, expected_reduce(op, size, (3, 4), dtype), f"{dtype} {op} call {i}")
    # one memory, several ops: one plan each, in any order
    t = tensor(rank, (5,), "float64")
    for i, op in enumerate(["SUM", "MAX", "SUM", "MIN", "MAX", "SUM"]):
        t.copy_(tensor(rank, (5,), "float64"))
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        same(t, expected_reduce(op, size, (5,), "float64"), f"{op} {i}")
    assert _plans_on(t) == 3, _plans_on(t)
    # a large buffer (MPI's large-message algorithms) summed many times: each call sums the previous result
    big = tl.full((1 << 18,), float(rank + 1))
    for _ in range(5):
        dist.all_reduce(big)
    total = float(size * (size + 1) // 2) * size ** 4
    assert big.min().item() == big.max().item() == total, (big.min().item(), big.max().item(), total)
    # keyword arguments; a ReduceOp instance (not a RedOpType) takes the general path, same results
    t = tensor(rank)
    dist.all_reduce(tensor=t, op=dist.ReduceOp.SUM, group=None, async_op=False)
    t.copy_(tensor(rank))
    dist.all_reduce(t, op=dist.ReduceOp(dist.ReduceOp.MAX))
    same(t, expected_reduce("MAX", size))


@check
def mismatched_shapes_still_raise(rank, size):
    # every rank holds a plan for its own tensor, then the ranks call with different shapes
    t = tl.zeros(4 if rank == 0 else 5)
    for _ in range(2):
        raises(RuntimeError, lambda: dist.all_reduce(t), "all_reduce", f"this is rank {rank}",
               "rank 0: [4] float32 SUM", "rank 1: [5] float32 SUM")
    a, b = tl.zeros(4), tl.zeros(5)
    dist.all_reduce(a)
    dist.all_reduce(b)  # both planned on every rank
    raises(RuntimeError, lambda: dist.all_reduce(a if rank == 0 else b), "all_reduce", "rank 0: [4] float32 SUM",
           "rank 1: [5] float32 SUM")
    # the same memory, count and dtype seen as another shape on one rank: the check still compares shapes
    m = tl.ones(2, 3)
    dist.all_reduce(m)
    raises(RuntimeError, lambda: dist.all_reduce(m.view(3, 2) if rank == 0 else m), "all_reduce",
           "rank 0: [3, 2] float32 SUM", "rank 1: [2, 3] float32 SUM")
    # another op on one rank
    raises(RuntimeError, lambda: dist.all_reduce(m, op=dist.ReduceOp.MAX if rank == 0 else dist.ReduceOp.SUM),
           "all_reduce", "rank 0: [2, 3] float32 MAX", "rank 1: [2, 3] float32 SUM")
    # another collective on one rank while the others run all_reduce on their plan
    if rank == 0:
        raises(RuntimeError, lambda: dist.broadcast(m, src=0), "broadcast", "differ")
    else:
        raises(RuntimeError, lambda: dist.all_reduce(m), "all_reduce", "differ")
    # nothing was touched and the group is still usable
    m.fill_(1.0)
    dist.all_reduce(m)
    same(m, [[float(size)] * 3] * 2)


@check
def ranks_on_different_paths_agree(rank, size):
    # rank 0 reuses its plan; the others reduce fresh tensors (new memory: no plan) or a non-contiguous view
    fixed = tensor(rank, (4, 4))
    dist.all_reduce(fixed)
    kept = []
    for i in range(4):
        if rank == 0:
            t = fixed
            t.copy_(tensor(rank, (4, 4)))
        elif i % 2:
            t = tensor(rank, (4, 4)).t().contiguous().t()  # a transposed layout: staged through a temporary
            kept.append(t)
        else:
            t = tensor(rank, (4, 4))
            kept.append(t)
        dist.all_reduce(t)
        same(t, expected_reduce("SUM", size, (4, 4)), f"call {i}")
    # a transposed view of a planned square tensor has its memory, count, dtype and shape: not its layout
    sq = tensor(rank, (3, 3))
    dist.all_reduce(sq)
    sq.copy_(tensor(rank, (3, 3)))
    view = sq.t()
    dist.all_reduce(view)
    same(view, expected_reduce("SUM", size, (3, 3)).T)


@check
def async_op_on_a_plan(rank, size):
    t = tensor(rank, (6,), "float32")
    dist.all_reduce(t)  # planned
    for i in range(3):
        t.copy_(tensor(rank, (6,), "float32"))
        work = dist.all_reduce(t, async_op=True)
        assert work.wait() is True and work.is_completed() and work.is_success()
        assert work.result()[0] is t
        same(t, expected_reduce("SUM", size, (6,)), f"async {i}")
    # AVG: the division happens on wait
    t.copy_(tensor(rank, (6,), "float32"))
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    t.copy_(tensor(rank, (6,), "float32"))
    work = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    work.wait()
    same(t, expected_reduce("AVG", size, (6,)))
    # two planned tensors in flight at once, waited on in reverse order
    u = tensor(rank, (2, 2), "int64")
    dist.all_reduce(u)
    t.copy_(tensor(rank, (6,), "float32"))
    u.copy_(tensor(rank, (2, 2), "int64"))
    w1 = dist.all_reduce(t, async_op=True)
    w2 = dist.all_reduce(u, op=dist.ReduceOp.MAX, async_op=True)
    w2.wait(timeout=datetime.timedelta(seconds=20))
    w1.wait()
    same(t, expected_reduce("SUM", size, (6,)))
    same(u, expected_reduce("MAX", size, (2, 2), "int64"))
    # polled to completion with is_completed
    t.copy_(tensor(rank, (6,), "float32"))
    work = dist.all_reduce(t, async_op=True)
    deadline = time.monotonic() + 20
    while not work.is_completed():
        assert time.monotonic() < deadline
    same(t, expected_reduce("SUM", size, (6,)))


@check
def a_plan_is_tested_only_after_an_async_start(rank, size):
    # a blocking call completes its request before returning: the next call skips the readiness Test; an
    # async_op=True start marks the plan, and the next call tests it (completed, or still running: then the
    # general path's one-off request)
    t = tensor(rank, (6,), "float32")
    dist.all_reduce(t)
    plan = dist.group.WORLD._persistent[(t.data_ptr(), t.numel(), t.dtype, dist.ReduceOp.SUM)]
    for i in range(2):
        t.copy_(tensor(rank, (6,), "float32"))
        dist.all_reduce(t)
        assert plan.started is False, i
        same(t, expected_reduce("SUM", size, (6,)), f"blocking {i}")
    t.copy_(tensor(rank, (6,), "float32"))
    work = dist.all_reduce(t, async_op=True)
    assert plan.started is True
    work.wait()
    same(t, expected_reduce("SUM", size, (6,)), "async")
    t.copy_(tensor(rank, (6,), "float32"))
    dist.all_reduce(t)
    assert plan.started is False
    same(t, expected_reduce("SUM", size, (6,)), "after async")
    # still in flight when the same memory is reduced again: both complete, the plan stays usable
    n = 1 << 18
    big = tl.zeros(n)
    dist.all_reduce(big)
    big_plan = dist.group.WORLD._persistent[(big.data_ptr(), n, big.dtype, dist.ReduceOp.SUM)]
    work = dist.all_reduce(big, async_op=True)
    dist.all_reduce(big)
    work.wait()
    for _ in range(2):
        big.copy_(tl.arange(n, dtype=tl.float32) % 4 + rank)
        dist.all_reduce(big)
        assert np.array_equal(big.numpy(), ((np.arange(n) % 4) * size + size * (size - 1) / 2).astype(np.float32))
    assert big_plan.started is False and dist.group.WORLD._persistent[(big.data_ptr(), n, big.dtype,
                                                                      dist.ReduceOp.SUM)] is big_plan


@check
def a_plan_only_some_ranks_hold_is_remade_by_all(rank, size):
    # Plans are keyed by address: memory freed and reallocated at an address where one rank made a plan
    # before, and the others did not, leaves that rank alone with a ready plan. The ranks then remake it together.
    t = tl.full((1000,), float(rank + 1))
    dist.all_reduce(t)
    key = (t.data_ptr(), t.numel(), t.dtype, dist.ReduceOp.SUM)
    assert _plans_on(t) == 1
    if rank % 2 == 1:  # as if this rank's earlier plan were at another address
        dist.group.WORLD._persistent.pop(key).req.Free()
    held = dist.group.WORLD._persistent.get(key)
    for i in range(3):
        t.fill_(float(rank + 1))
        dist.all_reduce(t)
        assert np.array_equal(t.numpy(), np.full(1000, size * (size + 1) / 2, np.float32)), i
        assert _plans_on(t) == 1, i
    assert dist.group.WORLD._persistent[key] is not held  # remade on every rank, the stale one freed


@check
def gradients_are_left_alone(rank, size):
    # a leaf that requires grad is reduced in place below autograd, as on the general path
    w = tl.tensor(values(rank, (4,)).tolist(), requires_grad=True)
    for op in ("SUM", "AVG", "AVG"):
        with tl.no_grad():
            w.copy_(tl.tensor(values(rank, (4,)).tolist()))
        dist.all_reduce(w, op=getattr(dist.ReduceOp, op))
        same(w.detach(), expected_reduce(op, size, (4,)))
        assert w.requires_grad and w.grad_fn is None


@check
def subgroups_have_their_own_plans(rank, size):
    g = dist.new_group([0, 1])
    t = tensor(rank)
    for _ in range(3):
        t.copy_(tensor(rank))
        if rank < 2:
            dist.all_reduce(t, group=g)
            same(t, expected_reduce("SUM", 2))
        else:
            assert dist.all_reduce(t, group=g) is None  # outside the group: a warning, nothing done
            same(t, values(rank))
    if rank < 2:
        assert _plans(g) >= 1
    dist.destroy_process_group(g)


@check
def a_rank_that_does_not_take_part_times_out_on_a_plan(rank, size):
    g = dist.new_group(timeout=datetime.timedelta(seconds=1.5))
    t = tl.ones(3)
    dist.all_reduce(t, group=g)
    dist.all_reduce(t, group=g)  # planned on every rank
    if rank == 0:
        t0 = time.monotonic()
        raises(dist.DistBackendError, lambda: dist.all_reduce(t, group=g), "all_reduce", "timed out", "rank 0")
        assert 1.4 < time.monotonic() - t0 < 10
        raises(dist.DistBackendError, lambda: dist.all_reduce(t, group=g), "unusable", "all_reduce")


def _waits(policy):
    """Forces the waits' reading of the machine (torchlite/distributed/_crowding.py): "quiet" (nothing
    queued for the CPUs: long waits yield, never sleep) or "crowded" (long waits sleep)."""
    dist._crowding.crowded = (lambda: False) if policy == "quiet" else (lambda: True)


@check
def both_wait_policies_give_numpys_results(rank, size):
    real = dist._crowding.crowded
    try:
        for policy in ("quiet", "crowded", "quiet"):
            _waits(policy)
            # 1 MB, reduced many times on its plan (long waits: past the rounds after which a wait may sleep)
            n = 1 << 18
            big = tl.zeros(n)
            for i in range(6):
                big.copy_(tl.arange(n, dtype=tl.float32) % 7 + rank)
                dist.all_reduce(big)
                want = (np.arange(n) % 7) * size + size * (size - 1) / 2
                assert np.array_equal(big.numpy(), want.astype(np.float32)), (policy, i)
            for op in ("MAX", "AVG"):
                big.copy_(tl.arange(n, dtype=tl.float32) % 5 * (rank + 1))
                work = dist.all_reduce(big, op=getattr(dist.ReduceOp, op), async_op=True)
                assert work.wait() and work.is_completed()
                mult = size if op == "MAX" else (size + 1) / 2
                assert np.allclose(big.numpy(), (np.arange(n) % 5) * mult), (policy, op)
            # a rank that stalls a moment before calling: the others wait long (yield or sleep) and still agree
            t = tensor(rank, (3,), "int64")
            dist.all_reduce(t)
            t.copy_(tensor(rank, (3,), "int64"))
            if rank == size - 1:
                time.sleep(0.05)
            dist.all_reduce(t)
            same(t, expected_reduce("SUM", size, (3,), "int64"))
    finally:
        dist._crowding.crowded = real


@check
def mismatches_on_plans_raise_with_either_wait_policy(rank, size):
    real = dist._crowding.crowded
    try:
        for policy in ("quiet", "crowded"):
            _waits(policy)
            a, b = tl.ones(1 << 18), tl.ones((1 << 18) + 1)
            dist.all_reduce(a)
            dist.all_reduce(b)  # both planned on every rank
            for _ in range(2):
                raises(RuntimeError, lambda: dist.all_reduce(a if rank == 0 else b), "all_reduce",
                       f"this is rank {rank}", "rank 0: [262144] float32 SUM", "rank 1: [262145] float32 SUM")
            if rank == 0:  # a late rank, then a mismatch: the others waited long first
                time.sleep(0.05)
            raises(RuntimeError, lambda: dist.all_reduce(a, op=dist.ReduceOp.MAX if rank == 0 else
                                                         dist.ReduceOp.SUM), "all_reduce", "MAX", "SUM")
            # untouched, and the group still works
            assert a.min().item() == a.max().item() == float(size), (policy, a.min().item())
            dist.all_reduce(a)
            assert a.min().item() == a.max().item() == float(size * size), policy
    finally:
        dist._crowding.crowded = real


@check
def a_tensor_resized_between_calls(rank, size):
    t = tensor(rank, (4,))
    dist.all_reduce(t)
    dist.all_reduce(t)  # planned for 4 elements
    for shape in [(6,), (2, 2), (3, 5), (4,), (0,), (4,)]:
        t.resize_(shape)
        t.copy_(tensor(rank, shape))
        dist.all_reduce(t)
        same(t, expected_reduce("SUM", size, shape), f"resized to {shape}")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # every rank holds the sum: their maximum is it
        same(t, expected_reduce("SUM", size, shape), f"MAX after resize to {shape}")
    # resized on one rank only: the shapes differ, every rank raises, nothing is reduced
    t.resize_(4 if rank else 5)
    t.fill_(1.0)
    raises(RuntimeError, lambda: dist.all_reduce(t), "all_reduce", "rank 0: [5] float32 SUM",
           "rank 1: [4] float32 SUM")
    assert t.min().item() == t.max().item() == 1.0


@check
def a_rank_that_does_not_take_part_times_out_while_the_machine_is_quiet(rank, size):
    real = dist._crowding.crowded
    try:
        _waits("quiet")
        g = dist.new_group(timeout=datetime.timedelta(seconds=1.0))
        t = tl.ones(1 << 18)
        dist.all_reduce(t, group=g)
        dist.all_reduce(t, group=g)  # planned on every rank
        if rank == 0:
            t0 = time.monotonic()
            raises(dist.DistBackendError, lambda: dist.all_reduce(t, group=g), "all_reduce", "timed out", "rank 0")
            assert 0.9 < time.monotonic() - t0 < 10
    finally:
        dist._crowding.crowded = real


@check
def traced_calls_record_their_pieces(rank, size):
    from torchlite.distributed import _trace
    _trace.enable()
    try:
        n = 1 << 18
        t = tl.zeros(n)
        dist.all_reduce(t)
        dist.all_reduce(t)  # planned on every rank
        _trace.take()
        for i in range(5):
            t.copy_(tl.arange(n, dtype=tl.float32) % 3 + rank)
            dist.all_reduce(t)
            assert np.array_equal(t.numpy(), ((np.arange(n) % 3) * size + size * (size - 1) / 2).astype(np.float32))
        recs = _trace.take()
        assert len(recs) == 5, len(recs)
        for r in recs:
            assert r["check_start"] <= r["check_end"] <= r["data_start"] <= r["data_end"], r
            assert r["check_polls"] >= 1 and r["data_polls"] >= 1, r
            for k in ("check_yields", "check_sleeps", "check_crowd_reads", "data_yields", "data_sleeps"):
                assert isinstance(r[k], int) and r[k] >= 0, r
        # a mismatch still raises on every rank, traced
        raises(RuntimeError, lambda: dist.all_reduce(t if rank == 0 else tl.zeros(n + 1)), "all_reduce",
               f"rank 0: [{n}] float32 SUM", f"rank 1: [{n + 1}] float32 SUM")
    finally:
        _trace.disable()
    from torchlite.distributed import _all_reduce, _groups, _work
    assert _all_reduce.wait_test is _work.wait_test and _groups.wait_test is _work.wait_test
    _trace.take()
    dist.all_reduce(t)
    assert _trace.take() == []


@check
def plans_end_with_the_group(rank, size):
    t = tensor(rank)
    dist.all_reduce(t)
    timeout = dist.group.WORLD.timeout
    world = dist.group.WORLD
    dist.destroy_process_group()
    assert world._persistent == {}
    raises(ValueError, lambda: dist.all_reduce(t), "has not been initialized")
    raises(ValueError, lambda: dist.all_reduce(t, group=world), "has not been initialized")
    dist.init_process_group("mpi", timeout=timeout)
    for _ in range(2):
        t.copy_(tensor(rank))
        dist.all_reduce(t)
        same(t, expected_reduce("SUM", size))


if __name__ == "__main__":
    run()
