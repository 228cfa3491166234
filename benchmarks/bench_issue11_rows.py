"""The speed rows of issue 11 that were still unmet (issue-11 follow-up "ce11"), torchlite beside PyTorch in one run.

    python benchmarks/bench_issue11_rows.py [--only cross,ce_kdim,pool,lstm,softmax] [--threads 2] [--cpu-time]
                                            [--repeat 9] [--fastest] [--markdown]

float32. Rows (targets, ratio = torchlite time / PyTorch time):
- cross_entropy on 4096x32000 logits with class indices (mean): forward, and forward+backward through autograd
  (the leaf's grad is the backward's output): <= 1.0; and (group ce_options, not an issue row) forward+backward
  with label smoothing, weights and smoothing, class probabilities on 256x32000 and 4096x1000;
- max_pool2d 3x3 s2 p1, avg_pool2d 2x2, adaptive_avg_pool2d to (1, 1) and (7, 7), interpolate bilinear 2x, on
  32x64x56x56: forward, and forward+backward through autograd: <= 1.0;
- nn.LSTM (2 layers, input and hidden 256, sequence 64, batch 32): forward+backward of output.sum(): <= 1.0;
- softmax and log_softmax on 4096x1024 (last dim): forward, and backward, `y.backward(g)` with x.grad None before
  each call (the backward op; its result becomes x.grad, as after zero_grad()): <= 0.7; and the forward over dim 0;
- (group ce_few, not an issue row) cross_entropy on K-dim logits with 3-10 classes, forward and forward+backward.
Calls alternate between the libraries (_timing.py), 10 untimed calls of each first (PyTorch's first large outputs
are fresh pages); each figure is the median of the rounds. `--cpu-time` times process CPU time (all threads'
CPU, so time a thread spends descheduled by the other processes of a shared machine is not counted; but an
OpenMP thread spin-waiting for a descheduled partner is counted, which under load rounds 2-thread figures of
calls below ~20 ms up to scheduler ticks); with `--threads 1` the calling thread's CPU time, the steadiest figure.
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
from bench_softmax11 import _cross_entropy_rows  # the 4096x32000 rows, the same as there


def _cross_entropy_option_rows():
    """cross_entropy's other paths on 256x32000 and 4096x1000: label smoothing, class weights with smoothing,
    class probabilities (forward+backward)."""
    rng = np.random.default_rng(4)
    rows = []
    for n, c in ((256, 32000), (4096, 1000)):
        xn = rng.standard_normal((n, c), dtype=np.float32)
        tn, wn = rng.integers(0, c, n), rng.random(c, dtype=np.float32) + 0.5
        pn = rng.random((n, c), dtype=np.float32)
        pn /= pn.sum(1, keepdims=True)
        for label, prob, kw in (("label_smoothing 0.1", False, {"label_smoothing": 0.1}),
                                ("weight, label_smoothing 0.1", False, {"label_smoothing": 0.1, "weight": True}),
                                ("probabilities", True, {})):
            def both(lib, f, prob=prob, kw=kw, xn=xn, tn=tn, wn=wn, pn=pn):
                x, t, k = lib.from_numpy(xn), lib.from_numpy(pn if prob else tn), dict(kw)
                if k.get("weight"):
                    k["weight"] = lib.from_numpy(wn)

                def run():
                    xg = x.detach().requires_grad_()
                    f.cross_entropy(xg, t, **k).backward()
                return run
            rows.append((f"cross_entropy {n}x{c}, {label}", "forward+backward", both(tl, TF), both(torch, F)))
    return rows


def _cross_entropy_kdim_rows():
    """cross_entropy on K-dim logits (not an issue row): (8, 21, 128, 128) class indices (a segmentation loss; mean,
    and label smoothing 0.1 with ignore_index 0), and (64, 100, 256) class probabilities; forward and
    forward+backward. The composite row times log_softmax + nll_loss2d, the path these calls took before."""
    rng = np.random.default_rng(5)
    rows = []
    for shape, kind, kw in (((8, 21, 128, 128), "indices", {}),
                            ((8, 21, 128, 128), "indices", {"label_smoothing": 0.1, "ignore_index": 0}),
                            ((64, 100, 256), "probabilities", {})):
        xn = rng.standard_normal(shape, dtype=np.float32)
        if kind == "indices":
            tn = rng.integers(0, shape[1], (shape[0],) + shape[2:])
        else:
            tn = rng.random(shape, dtype=np.float32)
            tn /= tn.sum(1, keepdims=True)
        label = f"cross_entropy {'x'.join(map(str, shape))} {kind}" + "".join(f", {k} {v}" for k, v in kw.items())

        def pair(lib, f, xn=xn, tn=tn, kw=kw):
            x, t = lib.from_numpy(xn.copy()), lib.from_numpy(tn.copy())

            def both():
                xg = x.detach().requires_grad_()
                f.cross_entropy(xg, t, **kw).backward()
            return (lambda: f.cross_entropy(x, t, **kw)), both
        (lf, lb), (tf, tb) = pair(tl, TF), pair(torch, F)
        rows += [(label, "forward", lf, tf), (label, "forward+backward", lb, tb)]
        if not kw and kind == "indices":
            xl, tl_t = tl.from_numpy(xn.copy()), tl.from_numpy(tn.copy())
            rows.append((label + " (composite)", "forward", lambda: TF.nll_loss(TF.log_softmax(xl, 1), tl_t), tf))
    return rows


def _cross_entropy_few_class_rows():
    """cross_entropy on K-dim logits with few classes (not an issue row; branch h/ce11f): (16, 5, 64, 64),
    (8, 3, 128, 128), (4, 10, 32, 32, 32) class indices (mean), and (16, 5, 64, 64) with weight, label smoothing 0.1
    and ignore_index 0; forward and forward+backward."""
    rng = np.random.default_rng(6)
    rows = []
    for shape, kw in (((16, 5, 64, 64), {}), ((8, 3, 128, 128), {}), ((4, 10, 32, 32, 32), {}),
                      ((16, 5, 64, 64), {"weight": True, "label_smoothing": 0.1, "ignore_index": 0})):
        xn = rng.standard_normal(shape, dtype=np.float32)
        tn = rng.integers(0, shape[1], (shape[0],) + shape[2:])
        wn = rng.random(shape[1], dtype=np.float32) + 0.5
        label = f"cross_entropy {'x'.join(map(str, shape))}" + "".join(
            f", {k}" if v is True else f", {k} {v}" for k, v in kw.items())

        def pair(lib, f, xn=xn, tn=tn, wn=wn, kw=kw):
            x, t, k = lib.from_numpy(xn.copy()), lib.from_numpy(tn.copy()), dict(kw)
            if k.get("weight"):
                k["weight"] = lib.from_numpy(wn.copy())

            def both():
                xg = x.detach().requires_grad_()
                f.cross_entropy(xg, t, **k).backward()
            return (lambda: f.cross_entropy(x, t, **k)), both
        (lf, lb), (tf, tb) = pair(tl, TF), pair(torch, F)
        rows += [(label, "forward", lf, tf), (label, "forward+backward", lb, tb)]
    return rows


POOLS = {
    "max_pool2d 3x3 s2 p1": lambda f, x: f.max_pool2d(x, 3, 2, 1),
    "avg_pool2d 2x2": lambda f, x: f.avg_pool2d(x, 2),
    "adaptive_avg_pool2d (1,1)": lambda f, x: f.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_pool2d (7,7)": lambda f, x: f.adaptive_avg_pool2d(x, 7),
    "interpolate bilinear 2x": lambda f, x: f.interpolate(x, scale_factor=2, mode="bilinear"),
}


def _pool_rows():
    xn = np.random.default_rng(1).standard_normal((32, 64, 56, 56), dtype=np.float32)
    rows = []
    for name, op in POOLS.items():
        # One input buffer for both libraries (read only): memory-bound rows otherwise also measure which library got
        # the buffer that is faster to read (bench_bnpool11.py).
        xs = xn.copy()

        def pair(lib, f, op=op, xs=xs):
            x = lib.from_numpy(xs)
            g = lib.from_numpy(np.random.default_rng(2).standard_normal(tuple(op(f, x).shape), dtype=np.float32))

            def both():
                xg = x.detach().requires_grad_()
                op(f, xg).backward(g)
            return (lambda: op(f, x)), both
        (lf, lb), (tf, tb) = pair(tl, TF), pair(torch, F)
        rows += [(name + " 32x64x56x56", "forward", lf, tf), (name + " 32x64x56x56", "forward+backward", lb, tb)]
    return rows


def _lstm_rows():
    torch.manual_seed(0)
    m = torch.nn.LSTM(256, 256, num_layers=2)
    lm = tl.nn.LSTM(256, 256, num_layers=2)
    with torch.no_grad():
        for (name, p), (_, lp) in zip(m.named_parameters(), lm.named_parameters()):
            lp.data.copy_(tl.from_numpy(p.detach().numpy().copy()))
    xn = np.random.default_rng(3).standard_normal((64, 32, 256), dtype=np.float32)

    def run(lib, mod):
        x = lib.from_numpy(xn.copy()).requires_grad_()

        def both():
            mod.zero_grad()
            out, _ = mod(x)
            out.sum().backward()
        return both
    return [("LSTM 2x256, seq 64, batch 32", "forward+backward", run(tl, lm), run(torch, m))]


def _softmax_rows():
    rng = np.random.default_rng(0)
    xn, gn = (rng.standard_normal((4096, 1024), dtype=np.float32) for _ in range(2))
    rows = []
    for op in ("softmax", "log_softmax"):
        def fwd(lib, f, op=op):
            x = lib.from_numpy(xn.copy())
            return lambda: getattr(f, op)(x, -1)

        def bwd(lib, f, op=op):
            x, g = lib.from_numpy(xn.copy()).requires_grad_(), lib.from_numpy(gn.copy())
            y = getattr(f, op)(x, -1)

            def call():
                x.grad = None  # as after zero_grad(): the computed gradient becomes x.grad, nothing is added
                y.backward(g, retain_graph=True)
            return call
        rows.append((f"{op} 4096x1024", "forward", fwd(tl, TF), fwd(torch, F)))
        rows.append((f"{op} 4096x1024", "backward", bwd(tl, TF), bwd(torch, F)))

        def fwd0(lib, f, op=op):
            x = lib.from_numpy(xn.copy())
            return lambda: getattr(f, op)(x, 0)
        rows.append((f"{op} 4096x1024 dim 0", "forward", fwd0(tl, TF), fwd0(torch, F)))
    return rows


GROUPS = {"cross_entropy": _cross_entropy_rows, "ce_options": _cross_entropy_option_rows,
          "ce_kdim": _cross_entropy_kdim_rows, "ce_few": _cross_entropy_few_class_rows, "pool": _pool_rows, "lstm": _lstm_rows, "softmax": _softmax_rows}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="",
                   help="comma-separated group-name prefixes (cross, ce_options, ce_kdim, ce_few, pool, lstm, softmax)")
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--fastest", action="store_true",
                   help="each figure the fastest round instead of the median: on a loaded machine, with many --repeat "
                        "rounds, the rounds where both threads ran undisturbed (an estimate of the quiet figure)")
    _timing.add_run_args(p)
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    big = lambda group: group == "cross_entropy"  # noqa: E731 - 500 MB calls: fewer rounds
    _timing.run_groups(GROUPS, args.only, args.repeat, args.markdown, warmup=lambda g: 2 if big(g) else 10,
                       rounds=lambda g: max(3, args.repeat // 2) if big(g) else args.repeat, fastest=args.fastest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
