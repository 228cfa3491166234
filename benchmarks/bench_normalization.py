"""Normalization and softmax: torchlite beside PyTorch in one run (torchlite.nn.functional vs torch.nn.functional).

    python benchmarks/bench_normalization.py [--quick] [--only layer_norm,batch_norm] [--markdown] [--cpu-time]
                                             [--threads 2] [--repeat 9]

For each case: the forward (F.*), and the backward (autograd through F.*: the dedicated backward op for
layer_norm and batch_norm, the ops rms_norm is composed of, _softmax_backward_data /
_log_softmax_backward_data) with the leaves' .grad None before each call ("backward", as in a training step after
zero_grad()) and with the gradients kept and added to ("backward, +="), float32, 2 threads (--threads). Medians of
--repeat rounds, the two libraries measured alternately; the ratio is torchlite's time over PyTorch's (below 1.0:
torchlite is faster). --cpu-time times the process's CPU time (both threads' work) instead of wall clock: on
the loaded shared machine a 2-thread call waits for its descheduled thread, which CPU time does not count.
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
from _timing import median_pair


def _cases():
    """name -> (shape, forward(F, lib, x, params))."""
    def ln(f, lib, x, p):
        return f.layer_norm(x, [x.shape[-1]], p["w"], p["b"])

    def rms(f, lib, x, p):
        return f.rms_norm(x, [x.shape[-1]], p["w"])

    def bn(f, lib, x, p):
        return f.batch_norm(x, p["rm"], p["rv"], p["wc"], p["bc"], training=True)

    def gn(f, lib, x, p):
        return f.group_norm(x, 32, p["wc"], p["bc"])

    def sm(f, lib, x, p):
        return f.softmax(x, -1)

    def lsm(f, lib, x, p):
        return f.log_softmax(x, -1)

    return {
        "layer_norm 4096x1024": ((4096, 1024), ln),
        "rms_norm 4096x1024": ((4096, 1024), rms),
        "batch_norm train 4096x1024": ((4096, 1024), bn),
        "batch_norm train 32x64x56x56": ((32, 64, 56, 56), bn),
        "group_norm 32x64x56x56 (32 groups)": ((32, 64, 56, 56), gn),
        "softmax 4096x1024 (last dim)": ((4096, 1024), sm),
        "log_softmax 4096x1024 (last dim)": ((4096, 1024), lsm),
    }


def _inputs(shape, lib, requires_grad):
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    last, channels = shape[-1], shape[1]
    p = {"w": lib.from_numpy(rng.standard_normal(last).astype(np.float32)),
         "b": lib.from_numpy(rng.standard_normal(last).astype(np.float32)),
         "wc": lib.from_numpy(rng.standard_normal(channels).astype(np.float32)),
         "bc": lib.from_numpy(rng.standard_normal(channels).astype(np.float32)),
         "rm": lib.zeros(channels), "rv": lib.ones(channels)}
    if requires_grad:
        x.requires_grad_()
        for k in ("w", "b", "wc", "bc"):
            p[k].requires_grad_()
    g = lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    return x, p, g


def _fresh_grads(y, g, x, p):
    """The backward as a training step runs it: the leaves' .grad is None (zero_grad's default), so autograd hands
    each leaf the computed gradient instead of adding it to an existing one. The "backward, +=" rows keep the
    gradients from call to call: each call then adds a 16 MB x.grad (three more passes over memory, the same work
    in both libraries)."""
    leaves = [x] + [t for t in p.values() if t.requires_grad]

    def call():
        for t in leaves:
            t.grad = None
        y.backward(g, retain_graph=True)
    return call


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    ap.add_argument("--only", default="", help="comma-separated case-name prefixes")
    ap.add_argument("--repeat", type=int, default=9, help="rounds per figure (the median is reported)")
    # --threads (default 2), --cpu-time (process CPU time; with --threads 1 the calling thread's), --markdown.
    _timing.add_run_args(ap)
    args = ap.parse_args()
    _timing.apply_run_args(args, tl, torch)
    rep = 3 if args.quick else args.repeat
    print(f"load {os.getloadavg()[0]:.2f}; threads {args.threads}, {'CPU time' if args.cpu_time else 'wall clock'}, "
          f"medians of {rep} rounds", flush=True)
    rows = []
    for name, (shape, fwd) in _cases().items():
        if args.only and not any(name.startswith(o) for o in args.only.split(",")):
            continue
        number = 3 if np.prod(shape) > 5e6 else 10
        x, p, _ = _inputs(shape, tl, False)
        tx, tp, _ = _inputs(shape, torch, False)
        a, b = median_pair(lambda: fwd(TF, tl, x, p), lambda: fwd(F, torch, tx, tp), number, rep)
        rows.append((name, "forward", a, b))
        x, p, g = _inputs(shape, tl, True)
        tx, tp, tg = _inputs(shape, torch, True)
        y, ty = fwd(TF, tl, x, p), fwd(F, torch, tx, tp)
        a, b = median_pair(_fresh_grads(y, g, x, p), _fresh_grads(ty, tg, tx, tp), number, rep)
        rows.append((name, "backward", a, b))
        a, b = median_pair(lambda: y.backward(g, retain_graph=True), lambda: ty.backward(tg, retain_graph=True),
                           number, rep)
        rows.append((name, "backward, +=", a, b))
    if args.markdown:
        print("| case | pass | torchlite ms | PyTorch ms | ratio |")
        print("|---|---|---:|---:|---:|")
        for name, what, a, b in rows:
            print(f"| {name} | {what} | {a * 1e3:.3f} | {b * 1e3:.3f} | {a / b:.2f} |")
    else:
        for name, what, a, b in rows:
            print(f"{name:34s} {what:12s} torchlite {a * 1e3:9.3f} ms  torch {b * 1e3:9.3f} ms  ratio {a / b:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
