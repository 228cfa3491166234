"""Reductions: torchlite beside PyTorch and NumPy in one run.

    python benchmarks/bench_reductions.py [--quick] [--ops sum,amax] [--dtypes float32,int32] [--threads 2]

For each op: over all elements, over the inner (contiguous, dim=1) and the outer (strided, dim=0)
dim of a 4096 x 4096 tensor, for each dtype (float32, float64, int32 by default; an op that has no
int32 form, such as mean, is left out there); and a 4 x 4 float32 tensor (per-call overhead).
The three libraries are timed alternately, call by call, so that load from other processes hits
them alike; figures are medians of the repeats, ratios are torchlite's time divided by the peer's
(below 1.0: torchlite is faster). The last column is torchlite's read bandwidth.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import torchlite as tl

try:
    import torch
except ImportError:  # the peers are optional
    torch = None


def bench(fns, number: int, repeat: int) -> list:
    """Median seconds per call of each callable (None stays None), timed alternately after a warm-up call."""
    live = [f for f in fns if f is not None]
    for f in live:
        f()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for k, f in enumerate(fns):
            if f is None:
                continue
            t0 = time.perf_counter()
            for _ in range(number):
                f()
            times[k].append((time.perf_counter() - t0) / number)
    return [statistics.median(t) if t else None for t in times]


def np_max_dim(x, d):
    return x.max(axis=d), x.argmax(axis=d)


def np_min_dim(x, d):
    return x.min(axis=d), x.argmin(axis=d)


# name -> (torchlite / torch call, numpy call or None, float only); `m` is the module, `d` the dim (None: all).
OPS = {
    "sum": (lambda m, x, d: m.sum(x) if d is None else m.sum(x, d), lambda x, d: x.sum(axis=d), False),
    "mean": (lambda m, x, d: m.mean(x) if d is None else m.mean(x, d), lambda x, d: x.mean(axis=d), True),
    "prod": (lambda m, x, d: m.prod(x) if d is None else m.prod(x, d), lambda x, d: x.prod(axis=d), False),
    "amax": (lambda m, x, d: m.amax(x) if d is None else m.amax(x, d), lambda x, d: x.max(axis=d), False),
    "amin": (lambda m, x, d: m.amin(x) if d is None else m.amin(x, d), lambda x, d: x.min(axis=d), False),
    "argmax": (lambda m, x, d: m.argmax(x) if d is None else m.argmax(x, d), lambda x, d: x.argmax(axis=d), False),
    "argmin": (lambda m, x, d: m.argmin(x) if d is None else m.argmin(x, d), lambda x, d: x.argmin(axis=d), False),
    "max.dim": (lambda m, x, d: m.max(x) if d is None else m.max(x, d), np_max_dim, False),
    "min.dim": (lambda m, x, d: m.min(x) if d is None else m.min(x, d), np_min_dim, False),
    "var": (lambda m, x, d: m.var(x) if d is None else m.var(x, d), lambda x, d: x.var(axis=d, ddof=1), True),
    "logsumexp": (lambda m, x, d: m.logsumexp(x, (0, 1) if d is None else d), None, True),
}


def fmt(s):
    return "        -" if s is None else f"{s * 1e3:9.3f}"


def ratio(a, b):
    return "     -" if b is None else f"{a / b:6.2f}"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + ",".join(OPS))
    p.add_argument("--dtypes", default="float32,float64,int32")
    p.add_argument("--where", default="all,inner,outer", help="subset of all,inner,outer")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    rep = 3 if args.quick else 9
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    ops = args.ops.split(",")
    wheres = [w for w in (("all", None), ("inner", 1), ("outer", 0)) if w[0] in args.where.split(",")]
    print(f"threads: {args.threads}; medians of {rep}, the libraries timed alternately")
    print(f"{'':34s} {'torchlite':>9s} {'torch':>9s} {'numpy':>9s}  (ms)  {'/torch':>6s} {'/numpy':>6s}  GB/s")
    rng = np.random.default_rng(0)
    for dtype in args.dtypes.split(","):
        if dtype.startswith("int"):
            base = rng.integers(-1000, 1000, (4096, 4096)).astype(dtype)
        else:
            base = (rng.standard_normal((4096, 4096)) * 0.01 + 1).astype(dtype)
        x = tl.from_numpy(base)
        t = torch.from_numpy(base) if torch else None
        for name in ops:
            fn, npfn, float_only = OPS[name]
            if float_only and dtype.startswith("int"):
                continue
            for where, d in wheres:
                n = 1 if args.quick else 2
                tl_s, torch_s, np_s = bench([lambda: fn(tl, x, d), (lambda: fn(torch, t, d)) if torch else None,
                                             (lambda: npfn(base, d)) if npfn else None], n, rep)
                gbs = base.nbytes / tl_s / 1e9
                print(f"{name + ' ' + dtype + ' ' + where:34s} {fmt(tl_s)} {fmt(torch_s)} {fmt(np_s)}        "
                      f"{ratio(tl_s, torch_s)} {ratio(tl_s, np_s)}  {gbs:5.1f}", flush=True)
    small = rng.standard_normal((4, 4)).astype("float32")
    x = tl.from_numpy(small)
    t = torch.from_numpy(small) if torch else None
    for name in ops:
        fn, npfn, _ = OPS[name]
        n = 2000 if args.quick else 20000
        tl_s, torch_s, np_s = bench([lambda: fn(tl, x, 1), (lambda: fn(torch, t, 1)) if torch else None,
                                     (lambda: npfn(small, 1)) if npfn else None], n, rep)
        print(f"{name + ' 4x4 dim=1 (overhead)':34s} {fmt(tl_s)} {fmt(torch_s)} {fmt(np_s)}        "
              f"{ratio(tl_s, torch_s)} {ratio(tl_s, np_s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
