"""Issue 14's DDP rows: data-parallel training of the MLP 784-256-256-10 and of the digits CNN
(benchmarks/bench_examples.py's model) with 2 processes, torchlite (MPI) beside PyTorch DDP (gloo), one thread
per process.

    python benchmarks/bench_ddp.py [--steps 30] [--markdown]

The script measures one process stepping on the whole batch (2 x B), then starts itself under
`mpiexec -n 2` (each rank B samples) and measures there, rank 0 reporting:
- step: forward + backward (with DDP's all-reduces) + SGD step, median over steps (the ranks start each step
  together, after a barrier);
- overlap (buckets of --bucket-cap-mb, 0.25 MB by default, in both libraries): the backward of a DDP step, its bucket all-reduces launched from the gradient hooks while backward
  runs and waited at its end ("overlapped"), against the same backward under no_sync() followed by the same
  buckets all-reduced afterwards ("after"): the saving is the communication hidden behind the backward.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

import torchlite as tl

B = {"mlp": 64, "cnn": 32}  # per-rank batch


def build(L, kind, seed=0):
    nn = L.nn
    L.manual_seed(seed)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))


def data(L, kind, n, seed=0):
    L.manual_seed(seed)
    x = L.randn(n, 784) if kind == "mlp" else L.randn(n, 1, 8, 8)
    return x, L.randint(0, 10, (n,))


def median_ms(times):
    return 1e3 * statistics.median(times)


def single_step(L, kind):
    """One process, batch 2B: a function timing one training step."""
    model = build(L, kind)
    opt = L.optim.SGD(model.parameters(), lr=0.01)
    x, y = data(L, kind, 2 * B[kind])

    def step():
        t = time.perf_counter()
        opt.zero_grad()
        L.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        return time.perf_counter() - t
    return step


def single(kind, steps):
    """Median ms per step of each library, their steps alternating (load from other processes hits both)."""
    fns = {"torchlite": single_step(tl, kind), "torch": single_step(torch, kind)}
    times = {lib: [] for lib in fns}
    for i in range(steps + 3):
        for lib, f in fns.items():
            t = f()
            if i >= 3:
                times[lib].append(t)
    return {lib: median_ms(t) for lib, t in times.items()}


def flat_buckets(L, params, cap_bytes):
    """Parameters grouped as torchlite's DDP buckets them (reverse order, up to cap_bytes): the same collectives for
    the all-reduce-after runs."""
    buckets, cur, size = [], [], 0
    for p in reversed(list(params)):
        cur.append(p)
        size += p.numel() * 4
        if size >= cap_bytes:
            buckets.append(cur)
            cur, size = [], 0
    return buckets + ([cur] if cur else [])


def ddp_step(L, dist, kind, rank, cap_mb):
    """2 processes, batch B each: a function timing one DDP step and one no_sync step with the all-reduces after
    its backward; (step, backward overlapped, backward then all-reduce) seconds."""
    model = build(L, kind)
    ddp = L.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap_mb)
    opt = L.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = data(L, kind, 2 * B[kind])
    x, y = x[rank * B[kind]:(rank + 1) * B[kind]], y[rank * B[kind]:(rank + 1) * B[kind]]
    buckets = flat_buckets(L, model.parameters(), int(cap_mb * 1024 * 1024))
    flats = [L.zeros(sum(p.numel() for p in bucket)) for bucket in buckets]  # reused, as DDP's bucket buffers

    def step():
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = L.nn.functional.cross_entropy(ddp(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        # the same backward, the same buckets all-reduced after it
        dist.barrier()
        opt.zero_grad()
        with ddp.no_sync():
            loss = L.nn.functional.cross_entropy(ddp(x), y)
        t4 = time.perf_counter()
        loss.backward()
        works = []
        for bucket, flat in zip(buckets, flats):
            L.cat([p.grad.reshape(-1) for p in bucket], out=flat)
            works.append(dist.all_reduce(flat, async_op=True))
        for w in works:
            w.wait()
        t5 = time.perf_counter()
        return t3 - t0, t2 - t1, t5 - t4
    return step


def distributed(dist, tdist, kind, steps, rank, cap_mb):
    fns = {"torchlite": ddp_step(tl, dist, kind, rank, cap_mb), "torch": ddp_step(torch, tdist, kind, rank, cap_mb)}
    times = {lib: [] for lib in fns}
    for i in range(steps + 3):
        for lib, f in fns.items():
            t = f()
            if i >= 3:
                times[lib].append(t)
    return {lib: [median_ms([t[k] for t in ts]) for k in range(3)] for lib, ts in times.items()}


def worker(steps, cap_mb):
    import faulthandler
    import signal
    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <rank pid>` prints where a stuck rank is
    import torch.distributed as tdist
    import torchlite.distributed as dist
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    world = int(os.environ.get("PMI_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "1")))
    dist.init_process_group("mpi")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    tdist.init_process_group("gloo", rank=rank, world_size=world)
    result = {}
    for kind in ("mlp", "cnn"):
        result[kind] = distributed(dist, tdist, kind, steps, rank, cap_mb)
    if rank == 0:
        print("RESULT " + json.dumps(result), flush=True)
    tdist.destroy_process_group()
    dist.destroy_process_group()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--worker", action="store_true")
    # 25 MB (the default) puts each of these small models in one bucket, launched by the last gradient: nothing
    # could overlap. 0.25 MB gives the MLP (1.03 MB of gradients) and the CNN (0.58 MB) two buckets each: the later
    # layers' bucket is all-reduced while the first layer's gradients are computed.
    p.add_argument("--bucket-cap-mb", type=float, default=0.25)
    args = p.parse_args()
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    if args.worker:
        worker(args.steps, args.bucket_cap_mb)
        return 0
    one = {kind: single(kind, args.steps) for kind in ("mlp", "cnn")}
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    out = subprocess.run([mpiexec if os.path.exists(mpiexec) else "mpiexec", "-n", "2", sys.executable,
                          os.path.abspath(__file__), "--worker", "--steps", str(args.steps),
                          "--bucket-cap-mb", str(args.bucket_cap_mb)],
                         capture_output=True, text=True, timeout=900,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        print(out.stdout, out.stderr, file=sys.stderr)
        return 1
    two = json.loads(line[len("RESULT "):])
    names = {"mlp": f"MLP 784-256-256-10, batch 2x{B['mlp']}", "cnn": f"digits CNN, batch 2x{B['cnn']}"}
    rows = []
    for kind in ("mlp", "cnn"):
        for lib in ("torchlite", "torch"):
            s1 = one[kind][lib]
            step, ov, after = two[kind][lib]
            rows.append((names[kind], lib, s1, step, ov, after))
    if args.markdown:
        print("| model | library | 1 process, batch 2B (ms/step) | 2 processes, batch B each (ms/step) | "
              "speed-up | backward, all-reduce overlapped (ms) | backward, then all-reduce (ms) | hidden |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, lib, s1, step, ov, after in rows:
            print(f"| {name} | {lib} | {s1:.2f} | {step:.2f} | {s1 / step:.2f} | {ov:.2f} | {after:.2f} | "
                  f"{100 * (after - ov) / after:.0f}% |")
    else:
        for name, lib, s1, step, ov, after in rows:
            print(f"{name:36s} {lib:9s} 1 proc {s1:7.2f} ms  2 procs {step:7.2f} ms  speed-up {s1 / step:4.2f}  "
                  f"backward overlapped {ov:7.2f} ms  after {after:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
