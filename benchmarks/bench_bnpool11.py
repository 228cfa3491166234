"""batch_norm 2-d training forward and adaptive_avg_pool2d to (1, 1): issue 11's rows, torchlite beside PyTorch.

    python benchmarks/bench_bnpool11.py [--only bn,pool] [--threads 2] [--cpu-time] [--repeat 31] [--fastest]
                                        [--markdown]

float32. Rows (ratio = torchlite time / PyTorch time):
- batch_norm training forward on 4096x1024 (N x C) with running statistics and momentum: issue target <= 0.7;
  its evaluation-mode forward and the 4-d 32x64x56x56 training forward: no regression;
- adaptive_avg_pool2d to (1, 1) on 32x64x56x56: forward, issue target <= 1.0; forward+backward: no regression (both
  libraries read one shared input buffer, see _pool_rows).
Calls alternate call by call between the libraries (_timing.py), after 5 untimed calls of each; each figure is
the median of --repeat calls, or with --fastest the fastest call: on the loaded shared machine a 2-thread call
often waits a whole scheduler time slice for its descheduled second thread (figures of 10-30 ms for 1 ms of
work), and the fastest of many calls is the one the load left alone. --threads 1 --cpu-time times the calling
thread's CPU time, the figure the load disturbs least.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F

import _timing


def _bn_rows():
    rng = np.random.default_rng(0)
    rows = []
    for shape, training, label in (((4096, 1024), True, "batch_norm train 4096x1024"),
                                   ((4096, 1024), False, "batch_norm eval 4096x1024"),
                                   ((32, 64, 56, 56), True, "batch_norm train 32x64x56x56")):
        xn = rng.standard_normal(shape, dtype=np.float32)
        C = shape[1]
        wn, bn = rng.standard_normal(C, dtype=np.float32), rng.standard_normal(C, dtype=np.float32)

        def make(lib, f, xn=xn, wn=wn, bn=bn, C=C, training=training):
            x, w, b = lib.from_numpy(xn.copy()), lib.from_numpy(wn.copy()), lib.from_numpy(bn.copy())
            rm, rv = lib.zeros(C), lib.ones(C)
            return lambda: f.batch_norm(x, rm, rv, w, b, training=training, momentum=0.1)
        rows.append((label, "forward", make(tl, TF), make(torch, F)))
    return rows


def _pool_rows():
    xn = np.random.default_rng(1).standard_normal((32, 64, 56, 56), dtype=np.float32)
    gn = np.random.default_rng(2).standard_normal((32, 64, 1, 1), dtype=np.float32)

    # Both libraries read the same input buffer: reading 25.7 MB is memory bound, and one buffer can be much slower to
    # read than another of the same size (after the batch_norm rows, the first of two fresh copies took 1.52 ms in
    # both libraries, the second 1.12-1.16: which library got which copy made this row 1.5-1.6 in CPU time).
    xs = xn.copy()

    def make(lib, f):
        x, g = lib.from_numpy(xs), lib.from_numpy(gn.copy())

        def both():
            xg = x.detach().requires_grad_()
            f.adaptive_avg_pool2d(xg, 1).backward(g)
        return (lambda: f.adaptive_avg_pool2d(x, 1)), both
    (lf, lb), (tf, tb) = make(tl, TF), make(torch, F)
    name = "adaptive_avg_pool2d (1,1) 32x64x56x56"
    return [(name, "forward", lf, tf), (name, "forward+backward", lb, tb)]


GROUPS = {"bn": _bn_rows, "pool": _pool_rows}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="", help="comma-separated groups (bn, pool)")
    p.add_argument("--repeat", type=int, default=31)
    p.add_argument("--fastest", action="store_true", help="the fastest call of each library, not the median")
    _timing.add_run_args(p)
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    only = [s for s in args.only.split(",") if s]
    load = os.getloadavg()
    print(f"start load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; threads {args.threads}, "
          f"{'CPU time' if args.cpu_time else 'wall clock'}, {'fastest' if args.fastest else 'median'} of "
          f"{args.repeat} alternating calls", flush=True)
    rows = []
    for group, make in GROUPS.items():
        if only and group not in only:
            continue
        for name, kind, ours, theirs in make():
            for _ in range(5):
                ours(), theirs()
            a, b = _timing.median_times([ours, theirs], 1, args.repeat, fastest=args.fastest)
            rows.append((name, kind, a, b))
            if not args.markdown:
                _timing.print_progress(rows[-1], 40)
    if args.markdown:
        _timing.print_markdown(rows)
    load = os.getloadavg()
    print(f"end load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
