"""Worker (2 ranks): torchlite's MPI collectives against PyTorch's own gloo backend, in the same processes
on the same values: reductions of every dtype gloo reduces (float16 and bfloat16 included: torchlite
reduces them in float32 and rounds once, which for 2 ranks is gloo's result bit for bit), gathers,
scatters, broadcasts."""
import socket

import numpy as np
import torch
import torch.distributed as tdist

from harness import check, run
import torchlite as tl
import torchlite.distributed as dist

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]  # gloo: no int16


def start_gloo(rank, size):
    port = [None]
    if rank == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port[0] = s.getsockname()[1]
    dist.broadcast_object_list(port, src=0)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port[0]}", rank=rank, world_size=size)


def pair(rank, dtype, shape=(7, 5), seed=0):
    """The same random values as a torch and a torchlite tensor (floats not exactly representable in
    16 bits, so that rounding shows)."""
    g = np.random.default_rng(1000 * seed + rank)
    if dtype.startswith(("float", "bfloat")):
        values = g.standard_normal(shape) * 3
    elif dtype == "bool":
        values = g.integers(0, 2, shape).astype(np.float64)
    else:
        values = g.integers(-4 if dtype != "uint8" else 0, 5, shape).astype(np.float64)
    theirs = torch.tensor(values, dtype=torch.float64).to(getattr(torch, dtype))
    ours = tl.tensor(theirs.to(torch.float64).tolist(), dtype=getattr(tl, dtype))
    return ours, theirs


def same(ours, theirs):
    got = ours.to(tl.float64).tolist()
    want = theirs.to(torch.float64).tolist()
    assert got == want, f"{ours.dtype}: torchlite {got} != gloo {want}"


@check
def gloo_starts(rank, size):
    start_gloo(rank, size)


@check
def all_reduce_like_gloo(rank, size):
    for dtype in DTYPES:
        floating = dtype.startswith(("float", "bfloat"))
        for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR"):
            ours, theirs = pair(rank, dtype, seed=len(op))
            try:
                tdist.all_reduce(theirs, op=getattr(tdist.ReduceOp, op))
            except RuntimeError as e:  # gloo refuses AVG of integers and bitwise ops of floats: so must we
                assert (op == "AVG") != floating or op == "AVG" and dtype == "bool", (dtype, op, e)
                try:
                    dist.all_reduce(ours, op=getattr(dist.ReduceOp, op))
                except RuntimeError:
                    continue
                raise AssertionError(f"{dtype} {op}: gloo raised {e}, torchlite did not")
            dist.all_reduce(ours, op=getattr(dist.ReduceOp, op))
            same(ours, theirs)
    ours, theirs = pair(rank, "float32")
    dist.all_reduce(ours.t())
    tdist.all_reduce(theirs.t())
    same(ours, theirs)


@check
def reduce_and_reduce_scatter_like_gloo(rank, size):
    for dtype in ("int32", "float16", "bfloat16", "float64"):
        ours, theirs = pair(rank, dtype, seed=2)
        dist.reduce(ours, dst=1)
        tdist.reduce(theirs, dst=1)
        if rank == 1:  # what gloo leaves in the other ranks' tensors is unspecified (partial sums)
            same(ours, theirs)
        ours, theirs = pair(rank, dtype, (size * 3, 2), seed=3)
        out_ours, out_theirs = tl.zeros(3, 2, dtype=getattr(tl, dtype)), torch.zeros(3, 2, dtype=getattr(torch, dtype))
        dist.reduce_scatter_tensor(out_ours, ours)
        tdist.reduce_scatter_tensor(out_theirs, theirs)
        same(out_ours, out_theirs)


@check
def data_movement_like_gloo(rank, size):
    for dtype in ("bool", "int64", "bfloat16"):
        ours, theirs = pair(rank, "float32" if dtype == "bool" else dtype, (8, 5), seed=4)
        if dtype == "bool":
            ours, theirs = ours > 0, theirs > 0
        for fn in ("broadcast",):
            o, t = ours.clone(), theirs.clone()
            dist.broadcast(o, src=1)
            tdist.broadcast(t, src=1)
            same(o, t)
        o_list = [tl.zeros_like(ours) for _ in range(size)]
        t_list = [torch.zeros_like(theirs) for _ in range(size)]
        dist.all_gather(o_list, ours)
        tdist.all_gather(t_list, theirs)
        for a, b in zip(o_list, t_list):
            same(a, b)
        o_cat = tl.zeros(size * ours.shape[0], *ours.shape[1:], dtype=ours.dtype)
        t_cat = torch.zeros(size * theirs.shape[0], *theirs.shape[1:], dtype=theirs.dtype)
        dist.all_gather_into_tensor(o_cat, ours)
        tdist.all_gather_into_tensor(t_cat, theirs)
        same(o_cat, t_cat)
        o_out, t_out = tl.zeros_like(ours), torch.zeros_like(theirs)
        dist.all_to_all_single(o_out, ours)
        tdist.all_to_all_single(t_out, theirs)
        same(o_out, t_out)
    tdist.destroy_process_group()


if __name__ == "__main__":
    run()
