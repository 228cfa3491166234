"""Worker (2 or 4 ranks): every collective but all_reduce/broadcast (core.py has those), over several dtypes,
non-contiguous tensors and async_op; point-to-point; groups; the object collectives. Expected values are
built locally from the inputs every rank can compute for every other rank (values.py)."""
import datetime
import warnings

import numpy as np

from harness import check, run
import torchlite as tl
import torchlite.distributed as dist
from values import DTYPES, expected_reduce, same, tensor, values

SOME = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@check
def reduce_to_each_root(rank, size):
    for dtype in SOME:
        for dst in range(size):
            t = tensor(rank, dtype=dtype)
            op = dist.ReduceOp.MAX if dtype == "bool" else dist.ReduceOp.SUM
            dist.reduce(t, dst=dst, op=op)
            want = expected_reduce("MAX" if dtype == "bool" else "SUM", size, dtype=dtype) if rank == dst \
                else values(rank, dtype=dtype)
            same(t, want, dtype)
    t = tensor(rank, (4, 2), "float32").t()
    dist.reduce(t, dst=0, op=dist.ReduceOp.AVG, async_op=True).wait()
    if rank == 0:
        same(t, expected_reduce("AVG", size, (4, 2)).T)


@check
def all_gather_lists(rank, size):
    for dtype in DTYPES:
        out = [tl.zeros(2, 3, dtype=getattr(tl, dtype)) for _ in range(size)]
        dist.all_gather(out, tensor(rank, dtype=dtype))
        for r in range(size):
            same(out[r], values(r, dtype=dtype), dtype)
    # non-contiguous input and outputs, async
    out = [tl.zeros(3, 2).t() for _ in range(size)]
    work = dist.all_gather(out, tensor(rank, (3, 2)).t(), async_op=True)
    work.wait()
    for r in range(size):
        same(out[r], values(r, (3, 2)).T)


@check
def all_gather_into_tensor_concat_and_stack(rank, size):
    for dtype in ("int16", "bfloat16", "float64"):
        cat = tl.zeros(2 * size, 3, dtype=getattr(tl, dtype))
        dist.all_gather_into_tensor(cat, tensor(rank, dtype=dtype))
        same(cat, np.concatenate([values(r, dtype=dtype) for r in range(size)]), dtype)
        stacked = tl.zeros(size, 2, 3, dtype=getattr(tl, dtype))
        dist.all_gather_into_tensor(stacked, tensor(rank, dtype=dtype), async_op=True).wait()
        same(stacked, np.stack([values(r, dtype=dtype) for r in range(size)]), dtype)
    out = tl.zeros(3, 2 * size).t()  # non-contiguous output: written back
    dist.all_gather_into_tensor(out, tensor(rank, (2, 3)))
    same(out, np.concatenate([values(r) for r in range(size)]))


@check
def reduce_scatter_both_forms(rank, size):
    for dtype in ("uint8", "int64", "float16", "float32"):
        inputs = [tensor(rank * 10 + j, (2, 2), dtype) for j in range(size)]
        out = tl.zeros(2, 2, dtype=getattr(tl, dtype))
        dist.reduce_scatter(out, inputs)
        same(out, sum(values(r * 10 + rank, (2, 2), dtype) for r in range(size)), dtype)
        big = tl.cat([tensor(rank * 10 + j, (2, 2), dtype) for j in range(size)])
        out = tl.zeros(2, 2, dtype=getattr(tl, dtype))
        dist.reduce_scatter_tensor(out, big, op=dist.ReduceOp.MAX)
        same(out, np.max([values(r * 10 + rank, (2, 2), dtype) for r in range(size)], axis=0), dtype)
    out = tl.zeros(2, 2).t()
    work = dist.reduce_scatter(out, [tensor(j, (2, 2)).t() for j in range(size)], op=dist.ReduceOp.AVG,
                               async_op=True)
    work.wait()
    same(out, values(rank, (2, 2)).T)


@check
def gather_and_scatter(rank, size):
    for dtype in SOME:
        for root in (0, size - 1):
            lst = [tl.zeros(3, dtype=getattr(tl, dtype)) for _ in range(size)] if rank == root else None
            dist.gather(tensor(rank, (3,), dtype), gather_list=lst, dst=root)
            if rank == root:
                for r in range(size):
                    same(lst[r], values(r, (3,), dtype), dtype)
            out = tl.zeros(3, dtype=getattr(tl, dtype))
            src_list = [tensor(100 + r, (3,), dtype) for r in range(size)] if rank == root else None
            dist.scatter(out, scatter_list=src_list, src=root)
            same(out, values(100 + rank, (3,), dtype), dtype)
    # the defaults: dst / src 0; non-contiguous output; async
    out = tl.zeros(3, 2).t()
    work = dist.scatter(out, [tensor(r, (3, 2)).t() for r in range(size)] if rank == 0 else None, async_op=True)
    work.wait()
    same(out, values(rank, (3, 2)).T)
    for fn, args, msg in ((dist.gather, (tensor(rank), [tl.zeros(2, 3)] * size, 0), "must NOT be specified"),
                          (dist.scatter, (tl.zeros(2, 3), [tl.zeros(2, 3)] * size, 0), "must NOT be specified")):
        if rank != 0:
            try:
                fn(*args)
            except ValueError as e:
                assert msg in str(e)
            else:
                raise AssertionError("a list on a non-root rank did not raise")


@check
def all_to_all_both_forms(rank, size):
    for dtype in ("bool", "int8", "bfloat16", "float64"):
        ins = [tensor(rank * size + j, (j + 1,), dtype) for j in range(size)]
        outs = [tl.zeros(rank + 1, dtype=getattr(tl, dtype)) for _ in range(size)]
        dist.all_to_all(outs, ins)
        for j in range(size):
            same(outs[j], values(j * size + rank, (rank + 1,), dtype), dtype)
    # all_to_all_single: even splits of rows, then uneven ones (rank r sends r + j + 1 rows to rank j)
    inp = tl.tensor([[rank * 100.0 + i, -1.0] for i in range(2 * size)])
    out = tl.zeros(2 * size, 2)
    dist.all_to_all_single(out, inp)
    want = [[j * 100.0 + 2 * rank + k, -1.0] for j in range(size) for k in range(2)]
    same(out, want)
    send = [rank + j + 1 for j in range(size)]
    recv = [j + rank + 1 for j in range(size)]
    inp = tl.arange(float(sum(send) * 3)).reshape(sum(send), 3) + rank * 1000
    out = tl.zeros(sum(recv), 3)
    dist.all_to_all_single(out, inp, output_split_sizes=recv, input_split_sizes=send, async_op=True).wait()
    rows = []
    for j in range(size):
        start = sum(j + i + 1 for i in range(rank))  # rank j's rows for ranks before this one
        their = np.arange(sum(j + i + 1 for i in range(size)) * 3.0).reshape(-1, 3) + j * 1000
        rows.append(their[start:start + recv[j]])
    same(out, np.concatenate(rows))
    nc = tl.zeros(3, 2 * size).t()  # non-contiguous output
    dist.all_to_all_single(nc, tl.full((2 * size, 3), float(rank)))
    same(nc, np.repeat(np.arange(size, dtype=np.float64), 2)[:, None] * np.ones((1, 3)))


@check
def send_recv_and_async_p2p(rank, size):
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    for dtype in ("bool", "float16", "int64"):
        got = tl.zeros(2, 3, dtype=getattr(tl, dtype))
        if rank % 2 == 0:
            dist.send(tensor(rank, dtype=dtype), dst=nxt)
            assert dist.recv(got, src=prv) == prv
        else:
            assert dist.recv(got, src=prv) == prv
            dist.send(tensor(rank, dtype=dtype), dst=nxt)
        same(got, values(prv, dtype=dtype), dtype)
    # isend/irecv in flight together, a non-contiguous receiver, tags kept apart
    a, b = tl.zeros(3, 2).t(), tl.zeros(4)
    works = [dist.irecv(a, src=prv, tag=7), dist.irecv(b, src=prv, tag=8),
             dist.isend(tensor(rank, (4,)), dst=nxt, tag=8), dist.isend(tensor(rank, (2, 3)), dst=nxt, tag=7)]
    for w in works:
        w.wait()
        assert w.is_completed()
    same(a, values(prv))
    same(b, values(prv, (4,)))
    # batch_isend_irecv: a ring exchange, all started at once
    got = tl.zeros(3, dtype=tl.int64)
    works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, got, prv),
                                    dist.P2POp(dist.isend, tensor(rank, (3,), "int64"), nxt)])
    for w in works:
        w.wait()
    same(got, values(prv, (3,), "int64"))
    # recv from any source returns the sender
    if rank == 0:
        seen = sorted(dist.recv(tl.zeros(1)) for _ in range(size - 1))
        assert seen == list(range(1, size)), seen
    else:
        dist.send(tl.tensor([float(rank)]), dst=0)
    try:
        dist.send(tl.zeros(1), dst=rank)
    except ValueError as e:
        assert "should not be the same" in str(e)
    else:
        raise AssertionError("send to self did not raise")


@check
def recv_of_the_wrong_size_raises(rank, size):
    if rank == 0:
        dist.send(tl.zeros(3), dst=1)
    elif rank == 1:
        try:
            dist.recv(tl.zeros(5), src=0)
        except RuntimeError as e:
            assert "recv" in str(e) and "12 bytes" in str(e) and "[5]" in str(e), str(e)
        else:
            raise AssertionError("a short message did not raise")


@check
def groups(rank, size):
    evens = list(range(0, size, 2))
    g = dist.new_group(evens)
    g_all = dist.new_group()
    sub = dist.new_group([size - 1, 0], timeout=datetime.timedelta(seconds=10))
    if rank in evens:
        assert dist.get_rank(g) == evens.index(rank) and dist.get_world_size(g) == len(evens)
        t = tensor(rank)
        dist.all_reduce(t, group=g)
        same(t, sum(values(r) for r in evens))
        t = tensor(rank)
        dist.broadcast(t, src=evens[-1], group=g)  # src is a global rank
        same(t, values(evens[-1]))
        assert dist.get_process_group_ranks(g) == evens
        assert dist.get_global_rank(g, len(evens) - 1) == evens[-1]
    else:
        assert g == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(tensor(rank), group=g) is None
        assert any("does not belong to the given group" in str(w.message) for w in caught)
    t = tensor(rank)
    dist.all_reduce(t, op=dist.ReduceOp.MIN, group=g_all)
    same(t, expected_reduce("MIN", size))
    if rank in (0, size - 1):
        assert dist.get_process_group_ranks(sub) == [0, size - 1]
        t = tensor(rank)
        dist.reduce(t, group=sub, group_dst=1)  # group rank 1 is global rank size - 1
        if rank == size - 1:
            same(t, values(0) + values(size - 1))
        objs = [None, None]
        dist.all_gather_object(objs, {"rank": rank}, group=sub)
        assert objs == [{"rank": 0}, {"rank": size - 1}]
    dist.destroy_process_group(g_all)


@check
def object_collectives(rank, size):
    objs = [None] * size
    dist.all_gather_object(objs, {"rank": rank, "payload": list(range(rank * 50))})
    assert objs == [{"rank": r, "payload": list(range(r * 50))} for r in range(size)]
    lst = ["a", {"b": 2}, (3, "x" * 1000)] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=1)
    assert lst == ["a", {"b": 2}, (3, "x" * 1000)]
    gathered = [None] * size if rank == size - 1 else None
    dist.gather_object(("from", rank, "y" * rank), gathered, dst=size - 1)
    if rank == size - 1:
        assert gathered == [("from", r, "y" * r) for r in range(size)]
    out = [None]
    dist.scatter_object_list(out, [{"to": r, "data": [r] * r} for r in range(size)] if rank == 0 else None, src=0)
    assert out == [{"to": rank, "data": [rank] * rank}]
    # tensors travel inside objects too
    objs = [None] * size
    dist.all_gather_object(objs, tl.arange(3) + rank)
    assert [o.tolist() for o in objs] == [[r, r + 1, r + 2] for r in range(size)]


if __name__ == "__main__":
    run()
