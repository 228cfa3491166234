"""Optimizer steps: torchlite beside PyTorch in one run.

    python benchmarks/bench_optim.py [--quick] [--markdown]

A model-like set of float32 parameters (MODELS below: a few large matrices and many small vectors) with
gradients set, then `optimizer.step()` timed. torchlite's default (the fused C++ step, one pass per
parameter) against PyTorch's CPU default (foreach=None: the single-tensor loop of tensor ops), PyTorch's
foreach=True and fused=True, and torchlite's own op-by-op path (foreach=False). Medians of alternating
repeats; ratios are torchlite's default over each PyTorch path (below 1.0: torchlite is faster). 2 threads.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import torchlite as tl

MODELS = {
    "4 x 1M + 40 x 1k": [(1024, 1024)] * 4 + [(1000,)] * 40,
    "200 x 10k (many small)": [(100, 100)] * 200,
}
OPTIMIZERS = {
    "SGD momentum": ("SGD", dict(lr=0.01, momentum=0.9, weight_decay=1e-4)),
    "Adam": ("Adam", dict(lr=1e-3)),
    "AdamW": ("AdamW", dict(lr=1e-3, weight_decay=0.01)),
    "Adagrad": ("Adagrad", dict(lr=0.01)),
}


def make(lib, shapes, name, options):
    rng = np.random.default_rng(0)
    params = []
    for s in shapes:
        p = lib.tensor(rng.standard_normal(s).astype("float32")).requires_grad_()
        p.grad = lib.tensor(rng.standard_normal(s).astype("float32"))
        params.append(p)
    opt = getattr(lib.optim, name)(params, **options)
    opt.step()  # creates the state
    return opt.step


def median_time(step, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(2)
    tl.set_num_threads(2)
    repeat = 5 if args.quick else 21
    rows = []
    for model, shapes in MODELS.items():
        for label, (name, options) in OPTIMIZERS.items():
            variants = {
                "tl fused": make(tl, shapes, name, options),
                "tl op-by-op": make(tl, shapes, name, dict(options, foreach=False)),
                "torch default": make(torch, shapes, name, options),
                "torch foreach": make(torch, shapes, name, dict(options, foreach=True)),
                "torch fused": make(torch, shapes, name, dict(options, fused=True)),
            }
            samples = {k: [] for k in variants}
            for _ in range(repeat):  # alternate the variants within each repeat
                for k, step in variants.items():
                    samples[k].append(median_time(step, 1))
            ms = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
            rows.append((model, label, ms))
    if args.markdown:
        print("| parameters | optimizer | tl fused ms | tl op-by-op ms | torch default ms | torch foreach ms | "
              "torch fused ms | tl / torch default | tl / torch foreach | tl / torch fused |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for model, label, ms in rows:
            print(f"| {model} | {label} | {ms['tl fused']:.2f} | {ms['tl op-by-op']:.2f} | {ms['torch default']:.2f} | "
                  f"{ms['torch foreach']:.2f} | {ms['torch fused']:.2f} | {ms['tl fused'] / ms['torch default']:.2f} | "
                  f"{ms['tl fused'] / ms['torch foreach']:.2f} | {ms['tl fused'] / ms['torch fused']:.2f} |")
    else:
        for model, label, ms in rows:
            print(f"{model:26s} {label:14s} " + "  ".join(f"{k} {v:7.2f}ms" for k, v in ms.items()) +
                  f"   ratio vs torch default {ms['tl fused'] / ms['torch default']:.2f}")


if __name__ == "__main__":
    main()
