"""Issue 11's normalization, softmax, pooling and resampling rows timed by CPU time on one thread.

    python benchmarks/bench_issue11_cputime.py [--only bn,softmax] [--repeat 15] [--markdown]

The issue's figures are wall-clock times on 2 threads (bench_normalization.py, bench_pooling.py,
bench_resampling.py). On a shared machine under load (load average ~10 on 2 cores) a 2-thread call waits
for its descheduled thread and those figures move 10x between rounds. This script runs both libraries on
ONE thread and reads the calling thread's CPU time (time.thread_time), which excludes the time the thread
was not running: a steadier comparison of the work each library does (cache and memory-bandwidth
contention from other processes still shows). It is not the issue's 2-thread figure. Calls alternate
between torchlite and PyTorch; each row gives the minimum and the median over the rounds, and the ratio
(torchlite / PyTorch) of both.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F


def _fresh_grad_backward(y, g, leaves):
    """y.backward(g) as a training step runs it after zero_grad(): the leaves' .grad is None, so each computed
    gradient becomes .grad (nothing is added to an existing one), as bench_normalization's "backward" rows."""
    def call():
        for t in leaves:
            t.grad = None
        y.backward(g, retain_graph=True)
    return call


def _rows_norm(lib, f):
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((4096, 1024)).astype(np.float32))
    g = lib.from_numpy(rng.standard_normal((4096, 1024)).astype(np.float32))
    w = lib.from_numpy(rng.standard_normal(1024).astype(np.float32))
    b = lib.from_numpy(rng.standard_normal(1024).astype(np.float32))
    calls = {
        "batch_norm train 4096x1024": lambda x, w, b: f.batch_norm(x, None, None, w, b, training=True),
        "layer_norm 4096x1024": lambda x, w, b: f.layer_norm(x, [1024], w, b),
        "rms_norm 4096x1024": lambda x, w, b: f.rms_norm(x, [1024], w),
        "softmax 4096x1024": lambda x, w, b: f.softmax(x, -1),
        "log_softmax 4096x1024": lambda x, w, b: f.log_softmax(x, -1),
    }
    out = {}
    for name, fn in calls.items():
        out[(name, "forward")] = (lambda fn=fn: fn(x, w, b))
        xr, wr, br = (t.clone().requires_grad_() for t in (x, w, b))
        y = fn(xr, wr, br)
        out[(name, "backward")] = _fresh_grad_backward(y, g, (xr, wr, br))
    return out


def _rows_pool(lib, f, nn):
    x = lib.from_numpy(np.random.default_rng(1).standard_normal((32, 64, 56, 56)).astype(np.float32))
    y, idx = f.max_pool2d(x, 3, 2, 1, return_indices=True)
    g7 = f.adaptive_avg_pool2d(x, 7)
    out = {
        ("max_pool2d 3x3 s2 p1", "forward"): lambda: f.max_pool2d(x, 3, 2, 1),
        ("max_pool2d 3x3 s2 p1", "backward"):
            lambda: nn.max_pool2d_with_indices_backward(y, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx),
        ("avg_pool2d 2x2", "forward"): lambda: f.avg_pool2d(x, 2),
        ("adaptive_avg_pool2d (1,1)", "forward"): lambda: f.adaptive_avg_pool2d(x, 1),
        ("adaptive_avg_pool2d (7,7)", "forward"): lambda: f.adaptive_avg_pool2d(x, 7),
        ("adaptive_avg_pool2d (7,7)", "backward"): lambda: nn._adaptive_avg_pool2d_backward(g7, x),
        ("interpolate bilinear 2x", "forward"): lambda: f.interpolate(x, scale_factor=2, mode="bilinear"),
    }
    return out




def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated case-name prefixes")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    ours = {**_rows_norm(tl, TF), **_rows_pool(tl, TF, tl._C._internal)}
    theirs = {**_rows_norm(torch, F), **_rows_pool(torch, F, torch.ops.aten)}
    rows = []
    for key, a in ours.items():
        if args.only and not any(key[0].startswith(o) for o in args.only.split(",")):
            continue
        b = theirs[key]
        a(), b()
        ta, tb = [], []
        for _ in range(args.repeat):
            for f, out in ((a, ta), (b, tb)):
                t0 = time.thread_time()
                f()
                out.append(time.thread_time() - t0)
        rows.append((*key, min(ta), min(tb), statistics.median(ta), statistics.median(tb)))
        if not args.markdown:
            r = rows[-1]
            print(f"{r[0]:30s} {r[1]:9s} min {r[2] * 1e3:8.3f} / {r[3] * 1e3:8.3f} ms ratio {r[2] / r[3]:.2f}   "
                  f"median ratio {r[4] / r[5]:.2f}", flush=True)
    if args.markdown:
        print("| case (float32, 1 thread, CPU time) | pass | torchlite min ms | PyTorch min ms | ratio (min) | ratio (median) |")
        print("|---|---|---:|---:|---:|---:|")
        for name, what, a, b, ma, mb in rows:
            print(f"| {name} | {what} | {a * 1e3:.3f} | {b * 1e3:.3f} | {a / b:.2f} | {ma / mb:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
