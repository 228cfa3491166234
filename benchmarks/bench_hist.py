"""torchlite beside PyTorch in one run: the counting and statistics ops (bincount, histc, histogram,
searchsorted, bucketize, diff, cov, corrcoef, renorm, norm), and their 1-element call overhead.

    python benchmarks/bench_hist.py [--quick] [--threads N]

Every figure is the median of several repeats (torchlite and PyTorch timed alternately), in ms (µs for
the tiny calls); ratio = torchlite's time / PyTorch's (below 1.0: torchlite is faster). Both libraries
use the same number of threads (default 2).
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)

    arrays = {
        "x10m": rng.standard_normal(10_000_000, dtype=np.float32),
        "ints": rng.integers(0, 1000, 10_000_000),
        "w": rng.random(10_000_000, dtype=np.float32),
        "seq": np.sort(rng.standard_normal(100_000)).astype(np.float32),
        "vals": rng.standard_normal(1_000_000, dtype=np.float32),
        "big": rng.standard_normal((4096, 4096), dtype=np.float32),
        "obs": rng.standard_normal((100, 10_000), dtype=np.float32),
        "edges": np.linspace(-3, 3, 65).astype(np.float32),
        "one": np.array([0.5], dtype=np.float32),
        "one_i": np.array([3]),
    }
    T = {k: (tl.from_numpy(v), torch.from_numpy(v)) for k, v in arrays.items()}

    cases = [
        ("bincount 10M int64 in [0, 1000)", lambda L, t: L.bincount(t["ints"])),
        ("bincount 10M, float32 weights", lambda L, t: L.bincount(t["ints"], t["w"])),
        ("histc 10M f32, 100 bins", lambda L, t: L.histc(t["x10m"], 100, -3, 3)),
        ("histogram 10M f32, 100 bins", lambda L, t: L.histogram(t["x10m"], 100, range=(-3.0, 3.0))),
        ("histogram 10M f32, 64 edges tensor", lambda L, t: L.histogram(t["x10m"], t["edges"])),
        ("searchsorted 1M in 100K f32", lambda L, t: L.searchsorted(t["seq"], t["vals"])),
        ("bucketize 1M in 100K f32, right", lambda L, t: L.bucketize(t["vals"], t["seq"], right=True)),
        ("diff 10M f32", lambda L, t: L.diff(t["x10m"])),
        ("diff 4096x4096 f32, dim 0", lambda L, t: L.diff(t["big"], dim=0)),
        ("cov 100 x 10K f32", lambda L, t: L.cov(t["obs"])),
        ("corrcoef 100 x 10K f32", lambda L, t: L.corrcoef(t["obs"])),
        ("norm 4096x4096 f32 (all)", lambda L, t: L.norm(t["big"])),
        ("norm 4096x4096 f32, p=1, dim 1", lambda L, t: L.norm(t["big"], 1, 1)),
        ("norm 4096x4096 f32, p=3, dim 0", lambda L, t: L.norm(t["big"], 3, 0)),
        ("norm 4096x4096 f32, p=inf, dim 1", lambda L, t: L.norm(t["big"], float("inf"), 1)),
        ("renorm 4096x4096 f32, p=2, dim 0", lambda L, t: L.renorm(t["big"], 2, 0, 10.0)),
    ]
    tiny = [
        ("1-element histc", lambda L, t: L.histc(t["one"], 10, 0, 1)),
        ("1-element bincount", lambda L, t: L.bincount(t["one_i"])),
        ("1-element searchsorted", lambda L, t: L.searchsorted(t["edges"], t["one"])),
        ("1-element norm", lambda L, t: L.norm(t["one"])),
        ("1-element diff (2 elements)", lambda L, t: L.diff(t["edges"][:2])),
    ]
    ours_t = {k: v[0] for k, v in T.items()}
    theirs_t = {k: v[1] for k, v in T.items()}
    print(f"threads: {args.threads}; medians of {rep}")
    print(f"{'':40s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, f in cases:
        a, b = median_pair(lambda: f(tl, ours_t), lambda: f(torch, theirs_t), repeat=rep)
        print(f"{name:40s} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {a / b:6.2f}x", flush=True)
    for name, f in tiny:
        a, b = median_pair(lambda: f(tl, ours_t), lambda: f(torch, theirs_t), number=2000, repeat=rep)
        print(f"{name:40s} {a * 1e6:8.2f}us {b * 1e6:8.2f}us {a / b:6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
