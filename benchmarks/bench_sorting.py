"""torchlite beside PyTorch in one run: the sorting and scan rows of issue 9 (sort, topk, cumsum on
1M-10M float32) and the order statistics built on them (median, mode, quantile, unique).

    python benchmarks/bench_sorting.py [--quick] [--threads N] [--big]

Every figure is the median of several repeats (torchlite and PyTorch timed alternately), in ms; ratio =
torchlite's time / PyTorch's (below 1.0: torchlite is faster); the last column is the ratio of the
fastest repeats, steadier on a loaded machine, where a repeat that loses its core to another process
takes several times longer. Both libraries use the same number of threads (default 2). --big adds
the 10M rows.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair_fastest


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--big", action="store_true", help="also the 10M-element rows")
    p.add_argument("-k", default="", help="only rows whose name contains this")
    p.add_argument("--repeat", type=int, default=None, help="repeats per row (default 7, 3 with --quick)")
    args = p.parse_args()
    rep = args.repeat or (3 if args.quick else 7)
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)

    data = {
        "v1m": rng.standard_normal(1 << 20, dtype=np.float32),
        "m1m": rng.standard_normal((1024, 1024), dtype=np.float32),
        "i1m": rng.integers(0, 1000, 1 << 20),
        "s64k": rng.standard_normal((64, 1024), dtype=np.float32),
    }
    if args.big:
        data["v10m"] = rng.standard_normal(10_000_000, dtype=np.float32)
        data["m10m"] = rng.standard_normal((2500, 4000), dtype=np.float32)
    T = {k: (tl.from_numpy(v), torch.from_numpy(v)) for k, v in data.items()}

    cases = [
        ("sort 1M f32", lambda L, t: L.sort(t["v1m"])),
        ("sort 1M f32 descending", lambda L, t: L.sort(t["v1m"], descending=True)),
        ("sort 1M f32 stable", lambda L, t: L.sort(t["v1m"], stable=True)),
        ("sort 1024x1024 f32, dim -1", lambda L, t: L.sort(t["m1m"], -1)),
        ("sort 1024x1024 f32, dim 0", lambda L, t: L.sort(t["m1m"], 0)),
        ("topk k=100 of 1M f32", lambda L, t: L.topk(t["v1m"], 100)),
        ("topk k=1000 of 1M f32", lambda L, t: L.topk(t["v1m"], 1000)),
        ("topk k=10 of 1024x1024, dim -1", lambda L, t: L.topk(t["m1m"], 10, -1)),
        ("topk k=512 of 1024x1024, dim -1", lambda L, t: L.topk(t["m1m"], 512, -1)),
        ("cumsum 1M f32", lambda L, t: L.cumsum(t["v1m"], 0)),
        ("cumsum 1024x1024 f32, dim -1", lambda L, t: L.cumsum(t["m1m"], -1)),
        ("cumsum 1024x1024 f32, dim 0", lambda L, t: L.cumsum(t["m1m"], 0)),
        ("median 1M f32", lambda L, t: L.median(t["v1m"])),
        ("median 1024x1024 f32, dim -1", lambda L, t: L.median(t["m1m"], -1)),
        ("nanmedian 1024x1024 f32, dim 0", lambda L, t: L.nanmedian(t["m1m"], 0)),
        ("mode 64x1024 f32, dim -1", lambda L, t: L.mode(t["s64k"], -1)),
        ("quantile q=0.3 1024x1024 f32, dim -1", lambda L, t: L.quantile(t["m1m"], 0.3, -1)),
        ("unique 1M int64 (inverse, counts)", lambda L, t: L.unique(t["i1m"], return_inverse=True, return_counts=True)),
        ("unique 1M f32", lambda L, t: L.unique(t["v1m"])),
    ]
    if args.big:
        cases += [
            ("sort 10M f32", lambda L, t: L.sort(t["v10m"])),
            ("topk k=100 of 10M f32", lambda L, t: L.topk(t["v10m"], 100)),
            ("cumsum 10M f32", lambda L, t: L.cumsum(t["v10m"], 0)),
            ("cumsum 2500x4000 f32, dim 0", lambda L, t: L.cumsum(t["m10m"], 0)),
            ("cumsum 2500x4000 f32, dim -1", lambda L, t: L.cumsum(t["m10m"], -1)),
        ]
    print(f"threads: {args.threads}; medians of {rep}")
    print(f"{'':40s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s} {'min ratio':>9s}")
    for name, f in cases:
        if args.k not in name:
            continue
        ours_t = {k: v[0] for k, v in T.items()}
        theirs_t = {k: v[1] for k, v in T.items()}
        a, b, fastest = median_pair_fastest(lambda: f(tl, ours_t), lambda: f(torch, theirs_t), repeat=rep)
        print(f"{name:40s} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {a / b:6.2f}x {fastest:8.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
