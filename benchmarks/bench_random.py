"""Random ops: torchlite beside PyTorch in one run (both draw the same numbers for a seed).

    python benchmarks/bench_random.py [--quick]

Each figure is the median of several repeats, the two libraries timed alternately so that load
from other processes hits both alike; the ratio is torchlite's time over PyTorch's. Both draw
sequentially from one generator (PyTorch's CPU random kernels are serial), so threads do not matter.
"""
from __future__ import annotations

import argparse

import torchlite as tl

import torch

from _timing import median_pair

N = 10_000_000


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    bufs = {tl: tl.empty(N), torch: torch.empty(N)}
    cases = [
        ("rand 10M f32", lambda L: L.rand(N)),
        ("rand 10M f64", lambda L: L.rand(N, dtype=L.float64)),
        ("randn 10M f32", lambda L: L.randn(N)),
        ("randn 10M f64", lambda L: L.randn(N, dtype=L.float64)),
        ("randint 10M int64 [0, 100)", lambda L: L.randint(0, 100, (N,))),
        ("randperm 1M", lambda L: L.randperm(1_000_000)),
        ("uniform_ 10M f32 in place", lambda L: bufs[L].uniform_(-1, 1)),
        ("normal_ 10M f32 in place", lambda L: bufs[L].normal_(0, 2)),
        ("bernoulli_(0.3) 10M f32", lambda L: bufs[L].bernoulli_(0.3)),
        ("exponential_ 10M f32", lambda L: bufs[L].exponential_()),
        ("rand 1 element (per call)", lambda L: L.rand(1)),
    ]
    print(f"medians of {rep}")
    print(f"{'':34s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, f in cases:
        a, b = median_pair(lambda: f(tl), lambda: f(torch), repeat=rep)
        unit, scale = ("us", 1e6) if "per call" in name else ("ms", 1e3)
        print(f"{name:34s} {a * scale:8.2f}{unit} {b * scale:8.2f}{unit} {a / b:6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
