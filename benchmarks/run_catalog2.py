"""Issue 9's speed table: every row the issue names (plus the rows found slow beside them),
torchlite beside PyTorch in one run, written as markdown to benchmarks/bench_catalog2.md.

    python benchmarks/run_catalog2.py [--threads 2] [--rounds 3] [--only TEXT] [--out FILE]

Per row: torchlite and PyTorch are called alternately (`repeat` times each, after a warm-up), the
median of each is taken, and that is done `rounds` times; the table gives the median of the
rounds' medians and the median of the rounds' ratios (torchlite / PyTorch: below 1.0, torchlite
is faster). Rows whose ratio lands in [0.85, 1.15] get `rounds` more rounds, the shared machine's
noise being largest there. The ratio of the fastest calls is printed beside it: under heavy load from
other processes (a load average of 10 on 2 cores moves medians by 5x) it is the steadier figure. Both libraries run with the same number of threads.
"""
from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

import torchlite as tl


def median_pair(ours, theirs, repeat: int, clock=time.perf_counter) -> tuple[float, float, float, float]:
    """(median, min) of torchlite's calls, then of PyTorch's, called alternately."""
    ours(), theirs()  # warm-up: first-touch page faults, lazy initialisation
    a, b = [], []
    for _ in range(repeat):
        t = clock(); ours(); a.append(clock() - t)
        t = clock(); theirs(); b.append(clock() - t)
    return statistics.median(a), statistics.median(b), min(a), min(b)


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    d = {
        "big": rng.standard_normal((4096, 4096), dtype=np.float32),
        "rows": rng.standard_normal((4096, 1024), dtype=np.float32),
        "gidx": rng.integers(0, 4096, (4096, 1024)),
        "cidx": rng.integers(0, 1024, (4096, 1024)),
        "rows64": rng.standard_normal((4096, 1024)),
        "m1m": rng.standard_normal((1024, 1024), dtype=np.float32),
        "probs": rng.random(1 << 20, dtype=np.float32),
    }
    for tag, n in (("1M", 1 << 20), ("10M", 10 << 20)):
        d[f"v{tag}"] = rng.standard_normal(n, dtype=np.float32)
        d[f"i{tag}"] = rng.integers(0, n, n)              # n random positions into n
        d[f"mask{tag}"] = rng.random(n) < 0.5
        d[f"half{tag}"] = rng.permutation(n)[: n // 2]     # distinct positions for x[idx] = v
        d[f"hv{tag}"] = rng.standard_normal(n // 2, dtype=np.float32)
    return d


def cases():
    """(name, make(L, t) -> zero-argument callable) for every row."""
    rows = []
    for op in ("max", "argmax", "min"):
        for d in (1, 0):
            rows.append((f"{op} over dim {d}, 4096×4096 f32", lambda L, t, op=op, d=d: lambda: getattr(L, op)(t["big"], d)))
    rows.append(("sum over dim 0, 4096×4096 f32", lambda L, t: lambda: L.sum(t["big"], 0)))
    for n in ("1M", "10M"):
        rows += [
            (f"cumsum {n} f32", lambda L, t, n=n: lambda: L.cumsum(t[f"v{n}"], 0)),
            (f"sort {n} f32", lambda L, t, n=n: lambda: L.sort(t[f"v{n}"])),
            (f"topk k=100 of {n} f32", lambda L, t, n=n: lambda: L.topk(t[f"v{n}"], 100)),
            (f"gather {n} of {n} f32", lambda L, t, n=n: lambda: L.gather(t[f"v{n}"], 0, t[f"i{n}"])),
            (f"scatter_add {n} into {n} f32", lambda L, t, n=n: lambda: L.scatter_add(t[f"v{n}"], 0, t[f"i{n}"], t[f"v{n}"])),
            (f"index_select {n} of {n} f32", lambda L, t, n=n: lambda: L.index_select(t[f"v{n}"], 0, t[f"i{n}"])),
            (f"x[mask] {n} f32 (half true)", lambda L, t, n=n: lambda: t[f"v{n}"][t[f"mask{n}"]]),
            (f"x[idx] = v, {n} f32 (n/2 positions)", lambda L, t, n=n: setidx(t, n)),
        ]
    rows += [
        ("cumsum 4096×4096 f32, dim -1", lambda L, t: lambda: L.cumsum(t["big"], -1)),
        ("cumsum 4096×4096 f32, dim 0", lambda L, t: lambda: L.cumsum(t["big"], 0)),
        ("gather 4096×1024 f32, dim 0", lambda L, t: lambda: L.gather(t["rows"], 0, t["gidx"])),
        ("gather 4096×1024 f32, dim 1", lambda L, t: lambda: L.gather(t["rows"], 1, t["cidx"])),
        ("scatter_add 4096×1024 f32, dim 0", lambda L, t: lambda: L.scatter_add(t["rows"], 0, t["gidx"], t["rows"])),
        ("scatter_add 4096×1024 f32, dim 1", lambda L, t: lambda: L.scatter_add(t["rows"], 1, t["cidx"], t["rows"])),
        ("cat 100 × (100, 1000) f32, dim 0", lambda L, t: lambda: L.cat(t["parts"], 0)),
        ("cat 100 × (100, 1000) f32, dim 1", lambda L, t: lambda: L.cat(t["parts"], 1)),
        ("stack 100 × (100, 1000) f32, dim 0", lambda L, t: lambda: L.stack(t["parts"], 0)),
        ("stack 100 × (100, 1000) f32, dim 2", lambda L, t: lambda: L.stack(t["parts"], 2)),
        # beside the rows: those found slow while doing it
        ("sum over dim 1, 4096×1024 f64", lambda L, t: lambda: L.sum(t["rows64"], 1)),
        ("x.norm(), 4096×4096 f32", lambda L, t: lambda: t["big"].norm()),
        ("linalg.vector_norm, 10M f32", lambda L, t: lambda: L.linalg.vector_norm(t["v10M"])),
        ("nanmedian over dim 0, 1024×1024 f32", lambda L, t: lambda: L.nanmedian(t["m1m"], 0)),
        ("multinomial 1M categories, 1000 with replacement", lambda L, t: lambda: L.multinomial(t["probs"], 1000, True)),
        ("tril_indices(2000, 2000)", lambda L, t: lambda: L.tril_indices(2000, 2000)),
        ("randn 10M f32", lambda L, t: lambda: L.randn(10_000_000)),
    ]
    return rows


def setidx(t, n):
    x = t[f"v{n}"].clone()
    i, v = t[f"half{n}"], t[f"hv{n}"]

    def f():
        x[i] = v
    return f


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", default="")
    p.add_argument("--out", default="benchmarks/bench_catalog2.md")
    # One thread's CPU time instead of wall-clock time: what the op costs, whatever share of the cores other
    # processes take (under a load average of 10 on 2 cores wall-clock times are mostly waiting for a core).
    p.add_argument("--cpu-time", action="store_true", help="time.thread_time of one thread (implies --threads 1)")
    args = p.parse_args()
    if args.cpu_time:
        args.threads = 1
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    arrays = inputs()
    parts = [np.random.default_rng(1).standard_normal((100, 1000), dtype=np.float32) for _ in range(100)]
    T = {tl: {k: tl.from_numpy(v) for k, v in arrays.items()}, torch: {k: torch.from_numpy(v) for k, v in arrays.items()}}
    T[tl]["parts"] = [tl.from_numpy(a) for a in parts]
    T[torch]["parts"] = [torch.from_numpy(a) for a in parts]

    lines = []
    load_start = os.getloadavg()[0]
    for name, make in cases():
        if args.only not in name:
            continue
        ours, theirs = make(tl, T[tl]), make(torch, T[torch])
        rounds = []
        for r in range(2 * args.rounds):
            if r == args.rounds and not 0.85 <= statistics.median(x[0] / x[1] for x in rounds) <= 1.15:
                break
            rounds.append(median_pair(ours, theirs, args.repeat, time.thread_time if args.cpu_time else time.perf_counter))
        a = statistics.median(x[0] for x in rounds)
        b = statistics.median(x[1] for x in rounds)
        ratio = statistics.median(x[0] / x[1] for x in rounds)
        best = min(x[2] for x in rounds) / min(x[3] for x in rounds)
        # the 1-minute load average as the row ends: other processes' share of the 2 cores
        line = (f"| {name} | {a * 1e3:.2f} | {b * 1e3:.2f} | **{ratio:.2f}** | {best:.2f} | {len(rounds)} "
                f"| {os.getloadavg()[0]:.1f} |")
        print(line, flush=True)
        lines.append(line)

    cmd = "python benchmarks/run_catalog2.py " + shlex.join(sys.argv[1:])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(args.out, "w") as f:
        f.write("# Issue 9 speed table\n\n")
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        f.write(f"`{cmd.strip()}` ({when}, commit {commit or '?'}; {args.threads} thread{'s' if args.threads != 1 else ''} for both libraries, torch "
                f"{torch.__version__}; {'CPU time of the calling thread, time.thread_time; ' if args.cpu_time else ''}"
                f"a shared 2-core machine, load average {load_start:.1f} at the start and "
                f"{os.getloadavg()[0]:.1f} at the end).\n\n")
        f.write(f"Each row: {args.rounds} rounds (twice as many for ratios in [0.85, 1.15]) of {args.repeat} "
                "alternating calls of each library; times are the median of the rounds' medians, the ratio the "
                "median of the rounds' ratios (torchlite / PyTorch, below 1.0 torchlite is faster); the ratio of minima "
                "(fastest call of each over all rounds) is the figure least moved by load from other processes; load: the "
                "1-minute load average as the row ended (2.0 fills both cores).\n\n")
        f.write("| case | torchlite ms | torch ms | ratio | ratio of minima | rounds | load |\n"
                "|---|---|---|---|---|---|---|\n")
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
