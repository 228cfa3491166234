"""Reductions: torchlite beside PyTorch and NumPy in one run.

    python benchmarks/bench_reductions.py [--quick] [--ops sum,amax] [--threads 2]

For each op: over all elements, over the inner (contiguous, dim=1) and the outer (strided, dim=0)
dim of a 4096 x 4096 float32 tensor; the same in float64; and a 16-element tensor (per-call
overhead). Figures are medians of several repeats; ratios are torchlite's time divided by the
peer's (below 1.0: torchlite is faster). The last column is torchlite's read bandwidth.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import timeit

import numpy as np

import torchlite as tl

try:
    import torch
except ImportError:  # the peers are optional
    torch = None


def bench(fn, number: int, repeat: int) -> float:
    """Median seconds per call (after one warm-up call)."""
    fn()
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


# name -> (torchlite / torch call, numpy call or None); `m` is the module, `d` the dim (None: all elements).
OPS = {
    "sum": (lambda m, x, d: m.sum(x) if d is None else m.sum(x, d), lambda x, d: x.sum(axis=d)),
    "mean": (lambda m, x, d: m.mean(x) if d is None else m.mean(x, d), lambda x, d: x.mean(axis=d)),
    "prod": (lambda m, x, d: m.prod(x) if d is None else m.prod(x, d), lambda x, d: x.prod(axis=d)),
    "amax": (lambda m, x, d: m.amax(x) if d is None else m.amax(x, d), lambda x, d: x.max(axis=d)),
    "argmax": (lambda m, x, d: m.argmax(x) if d is None else m.argmax(x, d), lambda x, d: x.argmax(axis=d)),
    "max.dim": (lambda m, x, d: m.max(x) if d is None else m.max(x, d), None),
    "var": (lambda m, x, d: m.var(x) if d is None else m.var(x, d), lambda x, d: x.var(axis=d, ddof=1)),
    "logsumexp": (lambda m, x, d: m.logsumexp(x, (0, 1) if d is None else d), None),
}


def fmt(s):
    return "        -" if s is None else f"{s * 1e3:9.3f}"


def ratio(a, b):
    return "     -" if b is None else f"{a / b:6.2f}"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + ",".join(OPS))
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    ops = args.ops.split(",")
    print(f"{'':34s} {'torchlite':>9s} {'torch':>9s} {'numpy':>9s}  (ms)  {'/torch':>6s} {'/numpy':>6s}  GB/s")
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64"):
        base = rng.standard_normal((4096, 4096)).astype(dtype) * 0.01 + 1
        x = tl.from_numpy(base)
        t = torch.from_numpy(base) if torch else None
        for name in ops:
            fn, npfn = OPS[name]
            for where, d in (("all", None), ("inner", 1), ("outer", 0)):
                n = 1 if args.quick else 3
                tl_s = bench(lambda: fn(tl, x, d), n, rep)
                torch_s = bench(lambda: fn(torch, t, d), n, rep) if torch else None
                np_s = bench(lambda: npfn(base, d), n, rep) if npfn else None
                gbs = base.nbytes / tl_s / 1e9
                print(f"{name + ' ' + dtype + ' ' + where:34s} {fmt(tl_s)} {fmt(torch_s)} {fmt(np_s)}        "
                      f"{ratio(tl_s, torch_s)} {ratio(tl_s, np_s)}  {gbs:5.1f}")
    small = rng.standard_normal((4, 4)).astype("float32")
    x = tl.from_numpy(small)
    t = torch.from_numpy(small) if torch else None
    for name in ops:
        fn, npfn = OPS[name]
        n = 2000 if args.quick else 20000
        tl_s = bench(lambda: fn(tl, x, 1), n, rep)
        torch_s = bench(lambda: fn(torch, t, 1), n, rep) if torch else None
        np_s = bench(lambda: npfn(small, 1), n, rep) if npfn else None
        print(f"{name + ' 4x4 dim=1 (overhead)':34s} {fmt(tl_s)} {fmt(torch_s)} {fmt(np_s)}        "
              f"{ratio(tl_s, torch_s)} {ratio(tl_s, np_s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
