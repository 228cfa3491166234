"""The fused optimizer steps (FusedOptimizerAdaptiveKernels.cpp, FusedOptimizerKernels.cpp) in their flag variants, one thread,
CPU time, torchlite beside PyTorch in one run; optionally saves the parameters after the steps so two builds
can be compared bit for bit.

    python benchmarks/bench_optim_adaptive.py [--repeat 31] [--size N] [--save out.npz]

Each case: one float32 parameter of N elements (and a float64 one), gradient set, one warm-up step (state),
then `step()` timed with time.process_time (one thread: CPU time is wall time without the other sessions'
load). Medians over --repeat alternating runs; the ratio is torchlite's median over PyTorch's.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import torchlite as tl

CASES = {
    "RMSprop": ("RMSprop", dict(lr=0.01)),
    "RMSprop wd": ("RMSprop", dict(lr=0.01, weight_decay=1e-2)),
    "RMSprop centered momentum": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9)),
    "RMSprop centered alpha=0.3": ("RMSprop", dict(lr=0.01, centered=True, alpha=0.3)),
    "Adadelta wd": ("Adadelta", dict(weight_decay=1e-2)),
    "Adamax": ("Adamax", dict()),
    "Adamax wd beta1=0.3": ("Adamax", dict(weight_decay=1e-2, betas=(0.3, 0.999))),
    "NAdam": ("NAdam", dict()),
    "NAdam decoupled": ("NAdam", dict(weight_decay=1e-2, decoupled_weight_decay=True)),
    "RAdam": ("RAdam", dict()),
    "RAdam wd": ("RAdam", dict(weight_decay=1e-2)),
    "ASGD": ("ASGD", dict(t0=0)),
    "ASGD wd": ("ASGD", dict(weight_decay=1e-2)),
    # FusedOptimizerKernels.cpp
    "SGD momentum wd": ("SGD", dict(lr=0.01, momentum=0.9, weight_decay=1e-4)),
    "SGD nesterov": ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True)),
    "Adam": ("Adam", dict(lr=1e-3)),
    "Adam wd amsgrad": ("Adam", dict(lr=1e-3, weight_decay=1e-2, amsgrad=True)),
    "AdamW beta1=0.3": ("AdamW", dict(lr=1e-3, weight_decay=1e-2, betas=(0.3, 0.999))),
    "Adagrad wd": ("Adagrad", dict(lr=0.01, weight_decay=1e-2)),
}


def make(lib, name, options, n, dtype):
    rng = np.random.default_rng(0)
    p = lib.tensor(rng.standard_normal(n).astype(dtype)).requires_grad_()
    p.grad = lib.tensor(rng.standard_normal(n).astype(dtype))
    opt = getattr(lib.optim, name)([p], **options)
    opt.step()
    return p, opt.step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=31)
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--save")
    ap.add_argument("--no-bench", action="store_true")
    args = ap.parse_args()
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    saved = {}
    print(f"{'case':32} {'dtype':8} {'torchlite ms':>12} {'torch ms':>10} {'ratio':>6}")
    for label, (name, options) in CASES.items():
        for dtype in ("float32", "float64"):
            p, step = make(tl, name, options, args.size, dtype)
            for _ in range(8):  # RAdam's first steps take the un-rectified branch: both are covered
                step()
            saved[f"{label}|{dtype}"] = p.detach().numpy().copy()
            if args.no_bench:
                continue
            tp, tstep = make(torch, name, options, args.size, dtype)
            ours, theirs = [], []
            for _ in range(args.repeat):
                t0 = time.process_time(); step(); ours.append(time.process_time() - t0)
                t0 = time.process_time(); tstep(); theirs.append(time.process_time() - t0)
            a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
            print(f"{label:32} {dtype:8} {a:12.3f} {b:10.3f} {a / b:6.2f}", flush=True)
    if args.save:
        np.savez(args.save, **saved)


if __name__ == "__main__":
    main()
