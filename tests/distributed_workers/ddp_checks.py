"""Run under `mpiexec -n N` (tests/test_ddp_mpi.py): the data-parallel layer over a real process group, every
check on every rank.

    mpiexec -n 2 python tests/distributed_workers/ddp_checks.py RESULTS_DIR [check ...]

Each rank writes RESULTS_DIR/rank<r>.json, {check: "ok" | traceback} (a file per rank: mpiexec may interleave
the ranks' stdout within a line).

The reference of the DDP checks is torchlite in one process on the concatenated batch; that of SyncBatchNorm is
PyTorch's BatchNorm on the concatenated batch."""
import datetime
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import torchlite as tl  # noqa: E402
import torchlite.distributed as dist  # noqa: E402
from torchlite.distributed.optim import ZeroRedundancyOptimizer  # noqa: E402
from torchlite.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

B = 4  # per-rank batch


def close(a, b, what, atol=1e-5, rtol=1e-5):
    a = a.detach().numpy() if isinstance(a, tl.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, tl.Tensor) else np.asarray(b)
    if not np.allclose(a, b, atol=atol, rtol=rtol):
        raise AssertionError(f"rank {dist.get_rank()}: {what}: max difference {np.abs(a - b).max()}")


def mlp(seed):
    tl.manual_seed(seed)
    return tl.nn.Sequential(tl.nn.Linear(12, 32), tl.nn.ReLU(), tl.nn.Linear(32, 32), tl.nn.ReLU(),
                            tl.nn.Linear(32, 5))


def global_batch(n, seed):
    g = tl.Generator().manual_seed(seed)
    return tl.randn(n, 12, generator=g), tl.randint(0, 5, (n,), generator=g)


def local(t, rank, per_rank=B):
    return t[rank * per_rank:(rank + 1) * per_rank]


def check_ddp_matches_one_process(rank, world):
    """N ranks x batch B, several SGD steps with momentum == one process x batch N*B."""
    model = mlp(100 + rank)  # different on each rank: construction broadcasts rank 0's
    ddp = DDP(model, bucket_cap_mb=0.0005)  # three buckets
    assert len(ddp.reducer.buckets) > 2
    ref = mlp(100)
    for p, q in zip(model.parameters(), ref.parameters()):
        close(p, q, "parameters broadcast from rank 0", atol=0, rtol=0)
    opt = tl.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = tl.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    loss_fn = tl.nn.CrossEntropyLoss()
    for step in range(5):
        x, y = global_batch(world * B, step)
        opt.zero_grad()
        loss_fn(ddp(local(x, rank)), local(y, rank)).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(ref(x), y).backward()
        ref_opt.step()
    for p, q in zip(model.parameters(), ref.parameters()):
        close(p, q, "weights after 5 steps")


def check_no_sync_accumulation(rank, world):
    model, ref = mlp(1), mlp(1)
    ddp = DDP(model, gradient_as_bucket_view=True)
    loss_fn = tl.nn.MSELoss(reduction="sum")
    micro = [global_batch(world * B, 10 + i) for i in range(3)]
    with ddp.no_sync():
        for x, _ in micro[:2]:
            loss_fn(ddp(local(x, rank)), tl.zeros(B, 5)).backward()
    x, _ = micro[2]
    loss_fn(ddp(local(x, rank)), tl.zeros(B, 5)).backward()
    for x, _ in micro:
        loss_fn(ref(x), tl.zeros(world * B, 5)).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        close(p.grad * world, q.grad, "accumulated gradient (sum over ranks = reference)")


class Branchy(tl.nn.Module):
    """`never` is unused everywhere; `rank0_only` is used on rank 0 alone."""

    def __init__(self):
        super().__init__()
        tl.manual_seed(3)
        self.trunk = tl.nn.Linear(12, 8)
        self.never = tl.nn.Linear(8, 8)
        self.rank0_only = tl.nn.Linear(8, 8)

    def forward(self, x):
        h = self.trunk(x)
        if dist.get_rank() == 0:
            h = self.rank0_only(h)
        return h


class WithUnused(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = tl.nn.Linear(12, 8)
        self.never = tl.nn.Linear(8, 8)

    def forward(self, x):
        return self.trunk(x)


def check_unused_parameters(rank, world):
    model = Branchy()
    ddp = DDP(model, find_unused_parameters=True)
    x, _ = global_batch(world * B, 20)
    for _ in range(2):  # a second iteration: the reduction of the first one finished
        model.zero_grad()
        ddp(local(x, rank)).sum().backward()
    assert model.never.weight.grad is None, "a parameter no rank used keeps no gradient"
    g = model.rank0_only.weight.grad
    assert g is not None, "a parameter used on another rank gets the averaged gradient"
    # rank 0's local gradient divided by the world size, on every rank
    expected = tl.zeros(8, 8)
    if rank == 0:
        ref = Branchy()
        ref(local(x, 0)).sum().backward()
        expected = ref.rank0_only.weight.grad / world
    dist.broadcast(expected, 0)
    close(g, expected, "gradient of a parameter used on rank 0 only")
    # without find_unused_parameters: PyTorch's error at the next forward
    plain = DDP(WithUnused())
    plain(local(x, rank)).sum().backward()
    try:
        plain(local(x, rank))
    except RuntimeError as e:
        assert "Expected to have finished reduction in the prior iteration" in str(e), str(e)
    else:
        raise AssertionError("no error for unused parameters")


def check_buffers_broadcast(rank, world):
    model = tl.nn.Sequential(tl.nn.Linear(12, 6), tl.nn.BatchNorm1d(6))
    ddp = DDP(model)
    with tl.no_grad():
        model[1].running_mean.fill_(float(rank))  # diverging buffers
    ddp.eval()
    x, _ = global_batch(world * B, 30)
    ddp(local(x, rank))
    close(model[1].running_mean, tl.zeros(6), "buffers broadcast from rank 0 before forward", atol=0, rtol=0)
    ddp2 = DDP(tl.nn.Sequential(tl.nn.Linear(12, 6), tl.nn.BatchNorm1d(6)), forward_sync_buffers=False)
    with tl.no_grad():
        ddp2.module[1].running_mean.fill_(float(rank))
    ddp2.eval()
    ddp2(local(x, rank))
    close(ddp2.module[1].running_mean, tl.full((6,), float(rank)), "buffers left alone", atol=0, rtol=0)


def check_sync_batchnorm(rank, world):
    """Uneven per-rank batches (rank r holds B + r samples): forward, running stats, input and weight grads as
    BatchNorm2d on the concatenated batch (PyTorch)."""
    import torch
    sizes = [B + r for r in range(world)]
    g = torch.Generator().manual_seed(5)
    x = torch.randn(sum(sizes), 3, 2, 2, generator=g, dtype=torch.float64)
    gy = torch.randn(sum(sizes), 3, 2, 2, generator=g, dtype=torch.float64)
    ref = torch.nn.BatchNorm2d(3, dtype=torch.float64)
    with torch.no_grad():
        ref.weight.uniform_(0.5, 1.5, generator=g)
        ref.bias.uniform_(-1, 1, generator=g)
    ours = tl.nn.SyncBatchNorm.convert_sync_batchnorm(tl.nn.BatchNorm2d(3, dtype=tl.float64))
    ours.load_state_dict({k: tl.from_numpy(v.numpy().copy()) for k, v in ref.state_dict().items()})
    xr = x.clone().requires_grad_()
    yr = ref(xr)
    yr.backward(gy)
    start = sum(sizes[:rank])
    xs = tl.from_numpy(x[start:start + sizes[rank]].numpy().copy()).requires_grad_()
    y = ours(xs)
    y.backward(tl.from_numpy(gy[start:start + sizes[rank]].numpy().copy()))
    close(y, yr.detach()[start:start + sizes[rank]].numpy(), "SyncBatchNorm output", atol=1e-10)
    close(xs.grad, xr.grad[start:start + sizes[rank]].numpy(), "SyncBatchNorm input grad", atol=1e-10)
    close(ours.running_mean, ref.running_mean.numpy(), "running_mean", atol=1e-10)
    close(ours.running_var, ref.running_var.numpy(), "running_var", atol=1e-10)
    for name in ("weight", "bias"):
        grad = getattr(ours, name).grad.clone()
        dist.all_reduce(grad)  # each rank holds its share; DDP would sum (average) them
        close(grad, getattr(ref, name).grad.numpy(), f"{name} grad summed over ranks", atol=1e-10)


def check_zero_matches_adam(rank, world):
    model, ref = mlp(7), mlp(7)
    ddp = DDP(model)
    opt = ZeroRedundancyOptimizer(ddp.parameters(), tl.optim.Adam, lr=0.01)
    ref_opt = tl.optim.Adam(ref.parameters(), lr=0.01)
    loss_fn = tl.nn.CrossEntropyLoss()
    for step in range(4):
        x, y = global_batch(world * B, 40 + step)
        opt.zero_grad()
        loss_fn(ddp(local(x, rank)), local(y, rank)).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(ref(x), y).backward()
        ref_opt.step()
    for p, q in zip(model.parameters(), ref.parameters()):
        close(p, q, "ZeRO Adam weights")
    owned = sum(p.numel() for g in opt.optim.param_groups for p in g["params"])
    assert owned < sum(p.numel() for p in model.parameters()), "each rank keeps a shard only"
    opt.consolidate_state_dict(to=0)
    if rank == 0:
        sd, ref_sd = opt.state_dict(), ref_opt.state_dict()
        assert sd["param_groups"] == ref_sd["param_groups"]
        assert sorted(sd["state"]) == sorted(ref_sd["state"])
        for i, st in ref_sd["state"].items():
            for k, v in st.items():
                close(sd["state"][i][k], v, f"consolidated state {i}.{k}")


def main(results_dir, wanted):
    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    results = {}
    for name, fn in list(globals().items()):
        if not name.startswith("check_") or (wanted and name[len("check_"):] not in wanted):
            continue
        try:
            fn(rank, world)
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()
        dist.barrier()
    with open(os.path.join(results_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
