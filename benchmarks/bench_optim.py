"""Optimizer steps, and a small training step, torchlite beside PyTorch in one run.

    python benchmarks/bench_optim.py [--quick] [--markdown] [--only optimizers|mlp]

A model-like set of float32 parameters (MODELS below: a few large matrices and many small vectors) with
gradients set, then `optimizer.step()` timed. torchlite's default (the fused C++ step, one pass per
parameter) against PyTorch's CPU default (foreach=None: the single-tensor loop of tensor ops), PyTorch's
foreach=True and fused=True (where PyTorch has a fused kernel), and torchlite's own op-by-op path
(foreach=False). Then one training step of an MLP 784-256-256-10 on a batch of 64 (zero_grad, forward,
cross_entropy, backward, SGD step), whole and by phase. Medians of alternating repeats; ratios are
torchlite's over PyTorch's (below 1.0: torchlite is faster). float32, 2 threads.
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
    "100 x 10k": [(100, 100)] * 100,
}
OPTIMIZERS = {
    "SGD momentum": ("SGD", dict(lr=0.01, momentum=0.9, weight_decay=1e-4)),
    "Adam": ("Adam", dict(lr=1e-3)),
    "AdamW": ("AdamW", dict(lr=1e-3, weight_decay=0.01)),
    "Adagrad": ("Adagrad", dict(lr=0.01)),
    "RMSprop": ("RMSprop", dict(lr=0.01)),
    "RMSprop centered momentum": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9)),
    "Adadelta": ("Adadelta", dict()),
    "Adamax": ("Adamax", dict()),
    "NAdam": ("NAdam", dict()),
    "RAdam": ("RAdam", dict()),
    "Rprop": ("Rprop", dict()),
    "ASGD": ("ASGD", dict()),
}
TORCH_FUSED = {"SGD", "Adam", "AdamW", "Adagrad"}  # the optimizers with a fused=True kernel in PyTorch


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


def mlp_step(lib, batch=64):
    """One training step of an MLP 784-256-256-10 (float32), and its phases as separate callables."""
    rng = np.random.default_rng(0)
    model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 256), lib.nn.ReLU(),
                              lib.nn.Linear(256, 10))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype("float32") * 0.05))
    x = lib.tensor(rng.standard_normal((batch, 784)).astype("float32"))
    y = lib.tensor(rng.integers(0, 10, batch))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    def forward():
        with lib.no_grad():
            return F.cross_entropy(model(x), y)

    def forward_backward():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()

    def no_grad(fn):
        def run():
            with lib.no_grad():
                return fn()
        return run

    # the step's parts, one op at a time on the step's shapes (where its time goes)
    l1, l2, l3 = model[0], model[2], model[4]
    h = lib.tensor(rng.standard_normal((batch, 256)).astype("float32"))
    logits = lib.tensor(rng.standard_normal((batch, 10)).astype("float32"))
    step()
    return {"whole step": step, "forward (no grad)": forward, "zero_grad + forward + backward": forward_backward,
            "SGD step": opt.step,
            "op: linear 784->256 (no grad)": no_grad(lambda: F.linear(x, l1.weight, l1.bias)),
            "op: linear 256->256 (no grad)": no_grad(lambda: F.linear(h, l2.weight, l2.bias)),
            "op: linear 256->10 (no grad)": no_grad(lambda: F.linear(h, l3.weight, l3.bias)),
            "op: relu 64x256": no_grad(lambda: F.relu(h)),
            "op: cross_entropy 64x10": no_grad(lambda: F.cross_entropy(logits, y))}


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
    ap.add_argument("--only", choices=["optimizers", "mlp"])
    ap.add_argument("--optimizer", action="append", choices=sorted(OPTIMIZERS),
                    help="only these rows of the optimizer table (repeatable)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    tl.set_num_threads(2)
    repeat = 5 if args.quick else 21
    if args.only != "mlp":
        optimizer_table(args, repeat)
    if args.only != "optimizers":
        mlp_table(args, repeat * 5)


def mlp_table(args, repeat):
    ours, theirs = mlp_step(tl), mlp_step(torch)
    rows = []
    for phase in ours:
        samples = {"tl": [], "torch": []}
        for _ in range(repeat):
            samples["tl"].append(median_time(ours[phase], 1))
            samples["torch"].append(median_time(theirs[phase], 1))
        rows.append((phase, statistics.median(samples["tl"]) * 1e3, statistics.median(samples["torch"]) * 1e3))
    if args.markdown:
        print("\n| MLP 784-256-256-10, batch 64 | tl ms | torch ms | tl / torch |")
        print("|---|---|---|---|")
        for phase, a, b in rows:
            print(f"| {phase} | {a:.3f} | {b:.3f} | {a / b:.2f} |")
    else:
        for phase, a, b in rows:
            print(f"MLP {phase:32s} tl {a:7.3f}ms  torch {b:7.3f}ms  ratio {a / b:.2f}")


def optimizer_table(args, repeat):
    rows = []
    for model, shapes in MODELS.items():
        for label, (name, options) in OPTIMIZERS.items():
            if args.optimizer and label not in args.optimizer:
                continue
            if model == "100 x 10k" and name not in ("Adam", "RMSprop", "NAdam", "RAdam"):
                continue
            variants = {
                "tl fused": make(tl, shapes, name, options),
                "tl op-by-op": make(tl, shapes, name, dict(options, foreach=False)),
                "torch default": make(torch, shapes, name, options),
                "torch foreach": make(torch, shapes, name, dict(options, foreach=True)),
            }
            if name in TORCH_FUSED:
                variants["torch fused"] = make(torch, shapes, name, dict(options, fused=True))
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
            ours, fused = ms["tl fused"], ms.get("torch fused")
            fused_ms, fused_ratio = ("-", "-") if fused is None else (f"{fused:.2f}", f"{ours / fused:.2f}")
            print(f"| {model} | {label} | {ours:.2f} | {ms['tl op-by-op']:.2f} | {ms['torch default']:.2f} | "
                  f"{ms['torch foreach']:.2f} | {fused_ms} | {ours / ms['torch default']:.2f} | "
                  f"{ours / ms['torch foreach']:.2f} | {fused_ratio} |")
    else:
        for model, label, ms in rows:
            print(f"{model:26s} {label:14s} " + "  ".join(f"{k} {v:7.2f}ms" for k, v in ms.items()) +
                  f"   ratio vs torch default {ms['tl fused'] / ms['torch default']:.2f}")


if __name__ == "__main__":
    main()
