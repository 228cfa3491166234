"""Worker (2 or 4 ranks): bad input and failures: mismatched shapes, dtypes and collectives across ranks
(every rank raises a RuntimeError naming the op, the ranks and their shapes), a rank that does not take
part (the others time out with DistBackendError within the group's timeout), PyTorch's argument errors."""
import datetime
import time

from harness import check, run
import torchlite as tl
import torchlite.distributed as dist


def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), f"{w!r} not in {str(e)!r}"
        return e
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


@check
def mismatched_shapes_name_op_rank_and_shapes(rank, size):
    t = tl.zeros(4 if rank == 0 else 5)
    raises(RuntimeError, lambda: dist.all_reduce(t), "all_reduce", f"this is rank {rank}",
           "rank 0: [4] float32 SUM", "rank 1: [5] float32 SUM")
    t = tl.zeros(3, dtype=tl.float32 if rank else tl.float64)
    raises(RuntimeError, lambda: dist.broadcast(t, src=0), "broadcast", "rank 0: [3] float64 root 0",
           "rank 1: [3] float32 root 0")
    raises(RuntimeError, lambda: dist.reduce(tl.zeros(2, 2), dst=rank), "reduce", "root 0", "root 1")
    # a slot of the wrong size on one rank only: every rank raises, none hangs
    out = [tl.zeros(2) for _ in range(size)]
    if rank == 1:
        out[1] = tl.zeros(3)
    raises(RuntimeError, lambda: dist.all_gather(out, tl.zeros(2)), "all_gather", "rank 1: tensor [2] float32 does")
    big = tl.zeros(size * 2 + (1 if rank == 0 else 0))
    raises(RuntimeError, lambda: dist.reduce_scatter_tensor(tl.zeros(2), big), "reduce_scatter_tensor", "rank 0: input")
    outs = [tl.zeros(1 if rank else 2) for _ in range(size)]
    raises(RuntimeError, lambda: dist.all_to_all(outs, [tl.zeros(1) for _ in range(size)]), "all_to_all",
           "rank 0: output_tensor_list")
    # the check runs before MPI touches a buffer: the group is still usable
    t = tl.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [float(size)] * 2


@check
def different_collectives_are_caught(rank, size):
    t = tl.ones(3)
    if rank == 0:
        raises(RuntimeError, lambda: dist.broadcast(t, src=0), "broadcast", "differ")
    else:
        raises(RuntimeError, lambda: dist.all_reduce(t), "all_reduce", "differ")


@check
def argument_errors_like_pytorch(rank, size):
    raises(TypeError, lambda: dist.all_reduce([1.0, 2.0]), "Expected parameter `tensor`")
    raises(RuntimeError, lambda: dist.all_reduce(tl.ones(2, dtype=tl.int64), op=dist.ReduceOp.AVG), "all_reduce",
           "AVG", "can't be cast to the desired output type Long")
    raises(RuntimeError, lambda: dist.all_reduce(tl.ones(2), op=dist.ReduceOp.BAND), "BAND", "non-integral")
    raises(ValueError, lambda: dist.broadcast(tl.ones(2)), "Must specify global_rank or group_rank")
    raises(ValueError, lambda: dist.broadcast(tl.ones(2), src=0, group_src=0), "Can't specify both")
    raises(ValueError, lambda: dist.broadcast(tl.ones(2), src=size), f"Global rank {size} is not part of group")
    raises(ValueError, lambda: dist.new_group([0, 0]), "duplicate")
    raises(ValueError, lambda: dist.new_group([size]), "out of range")
    raises(ValueError, lambda: dist.all_gather([tl.ones(1)] * (size + 1), tl.ones(1)), "all_gather", "tensor_list")
    raises(ValueError, lambda: dist.all_gather([tl.ones(1, dtype=tl.int64)] * size, tl.ones(1)), "different dtypes")


@check
def a_rank_that_does_not_take_part_times_out(rank, size):
    g = dist.new_group(timeout=datetime.timedelta(seconds=1.5))
    if rank == 0:
        t0 = time.monotonic()
        e = raises(dist.DistBackendError, lambda: dist.all_reduce(tl.ones(2), group=g), "all_reduce", "timed out",
                   "rank 0")
        elapsed = time.monotonic() - t0
        assert 1.4 < elapsed < 10, elapsed
        assert isinstance(e, RuntimeError)
        raises(dist.DistBackendError, lambda: dist.barrier(group=g), "unusable", "all_reduce")
    # the others never call it; a Work waited with its own timeout times out the same way
    t = tl.ones(1)
    if rank == 1:
        work = dist.irecv(t, src=0, tag=99)
        raises(dist.DistBackendError, lambda: work.wait(timeout=datetime.timedelta(seconds=0.5)), "recv", "timed out")
        assert not work.is_success() and isinstance(work.exception(), dist.DistBackendError)


if __name__ == "__main__":
    run(timeout_s=30)
