"""The rows of issue 11 that the softmax11 work targets, torchlite beside PyTorch in one run (float32).

    python benchmarks/bench_softmax11.py [--only softmax,cross] [--threads 2] [--cpu-time] [--repeat 9] [--markdown]

Rows (targets, ratio = torchlite time / PyTorch time): softmax and log_softmax on 4096x1024 over the last dim,
forward (F.*) and backward (y.backward(g) through autograd: the backward op, then the accumulation into
x.grad), <= 0.7; cross_entropy on 4096x32000 logits with class indices (mean), forward and forward+backward,
<= 1.0; adaptive_avg_pool2d to (1, 1) on 32x64x56x56, forward and forward+backward through autograd (a mean in
both libraries), <= 1.0; upsample_bilinear2d_backward for a 2x bilinear interpolate of 32x64x56x56 (the op
autograd calls), <= 1.0. Calls alternate between the libraries (_timing.py); each figure is the median over
the rounds. `--cpu-time` times CPU time instead of the wall clock (process CPU time; with `--threads 1` the calling
thread's): with `--threads 1` the figure the load of other processes on the shared machine disturbs least (not the
issue's 2-thread figure).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F

import _timing


def _softmax_rows(name, op):
    rng = np.random.default_rng(0)
    xn, gn = (rng.standard_normal((4096, 1024), dtype=np.float32) for _ in range(2))

    def fwd(lib, f):
        x = lib.from_numpy(xn.copy())
        return lambda: getattr(f, op)(x, -1)

    def bwd(lib, f):
        x, g = lib.from_numpy(xn.copy()).requires_grad_(), lib.from_numpy(gn.copy())
        y = getattr(f, op)(x, -1)
        return lambda: y.backward(g, retain_graph=True)

    return [(name, "forward", fwd(tl, TF), fwd(torch, F)), (name, "backward", bwd(tl, TF), bwd(torch, F))]


def _cross_entropy_rows():
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((4096, 32000), dtype=np.float32)
    tn = rng.integers(0, 32000, 4096)

    def pair(lib, f):
        x, t = lib.from_numpy(xn), lib.from_numpy(tn)

        def both():
            xg = x.detach().requires_grad_()
            f.cross_entropy(xg, t).backward()
        return (lambda: f.cross_entropy(x, t)), both

    (lf, lb), (tf, tb) = pair(tl, TF), pair(torch, F)
    name = "cross_entropy 4096x32000"
    return [(name, "forward", lf, tf), (name, "forward+backward", lb, tb)]


def _pool_rows():
    xn = np.random.default_rng(1).standard_normal((32, 64, 56, 56), dtype=np.float32)

    def pair(lib, f):
        x = lib.from_numpy(xn.copy())

        def both():
            xg = x.detach().requires_grad_()
            y = f.adaptive_avg_pool2d(xg, 1)
            y.backward(lib.ones_like(y))
        return (lambda: f.adaptive_avg_pool2d(x, 1)), both

    (lf, lb), (tf, tb) = pair(tl, TF), pair(torch, F)
    name = "adaptive_avg_pool2d (1,1) 32x64x56x56"
    return [(name, "forward", lf, tf), (name, "forward+backward", lb, tb)]


def _bilinear_rows():
    gn = np.random.default_rng(2).standard_normal((32, 64, 112, 112), dtype=np.float32)
    lg, tg = tl.from_numpy(gn.copy()), torch.from_numpy(gn.copy())
    args = ([112, 112], [32, 64, 56, 56], False, 2.0, 2.0)
    return [("upsample_bilinear2d_backward 2x 32x64x56x56", "backward",
             lambda: tl._C._internal.upsample_bilinear2d_backward(lg, *args),
             lambda: torch.ops.aten.upsample_bilinear2d_backward(tg, *args))]


GROUPS = {
    "softmax": lambda: _softmax_rows("softmax 4096x1024", "softmax"),
    "log_softmax": lambda: _softmax_rows("log_softmax 4096x1024", "log_softmax"),
    "cross_entropy": _cross_entropy_rows,
    "adaptive_avg_pool2d": _pool_rows,
    "upsample_bilinear2d_backward": _bilinear_rows,
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="", help="comma-separated group-name prefixes")
    p.add_argument("--repeat", type=int, default=9)
    _timing.add_run_args(p)
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    only = [s for s in args.only.split(",") if s]
    # Every input first, then 10 untimed calls of each function: in a fresh process PyTorch's first ~10
    # 16 MB outputs are fresh pages from the system (2700 page faults a call: softmax 12 ms instead of
    # 2.6 ms) until glibc's adaptive mmap threshold keeps them on the heap; that would flatter torchlite.
    cases = [(group, case) for group, make in GROUPS.items()
             if not only or any(group.startswith(o) for o in only) for case in make()]
    rows = []
    for group, (name, kind, ours, theirs) in cases:
        # The 500 MB cross_entropy calls: fewer rounds.
        rep = max(3, args.repeat // 2) if group == "cross_entropy" else args.repeat
        for _ in range(2 if group == "cross_entropy" else 10):
            ours(), theirs()
        a, b = _timing.median_pair(ours, theirs, 1, rep)
        rows.append((name, kind, a, b))
        if not args.markdown:
            _timing.print_progress(rows[-1], 44)
    if args.markdown:
        _timing.print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
