"""Pooling: torchlite beside PyTorch in one run (torchlite.nn.functional vs torch.nn.functional).

    python benchmarks/bench_pooling.py [--quick] [--markdown]

The cases of issue 11 on a 32x64x56x56 float32 input: max_pool2d 3x3 stride 2 padding 1, avg_pool2d
2x2, adaptive_avg_pool2d to (1, 1) and (7, 7); forward alone, and backward (the backward op autograd
records, given the forward's saved outputs). Medians of several repeats, the two libraries measured
alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster). 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

from _timing import median_pair

SHAPE = (32, 64, 56, 56)

# name -> (forward(F, x), backward(lib, nn, g, x, saved) or None, saved(F, x) or None)
CASES = {
    "max_pool2d 3x3 s2 p1": (
        lambda f, x: f.max_pool2d(x, 3, 2, 1),
        lambda nn, g, x, s: nn.max_pool2d_with_indices_backward(g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, s),
        lambda f, x: f.max_pool2d(x, 3, 2, 1, return_indices=True)[1]),
    "avg_pool2d 2x2": (
        lambda f, x: f.avg_pool2d(x, 2),
        lambda nn, g, x, s: nn.avg_pool2d_backward(g, x, [2, 2], [2, 2], [0, 0], False, True, None),
        None),
    "adaptive_avg_pool2d (1,1)": (
        lambda f, x: f.adaptive_avg_pool2d(x, 1),
        None, None),
    "adaptive_avg_pool2d (7,7)": (
        lambda f, x: f.adaptive_avg_pool2d(x, 7),
        lambda nn, g, x, s: nn._adaptive_avg_pool2d_backward(g, x),
        None),
}


def backward_whole(f, lib, x):
    """The full backward through autograd (for adaptive (1, 1), which PyTorch runs as a mean)."""
    def run():
        xg = x.detach().requires_grad_()
        y = f(xg)
        y.backward(lib.ones_like(y))
    return run


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep, number = (3, 2) if args.quick else (7, 5)
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    xt = torch.randn(SHAPE, generator=torch.Generator().manual_seed(0))
    xl = tl.from_numpy(xt.numpy().copy())
    rows = []
    for name, (fwd, bwd, saved) in CASES.items():
        a, b = median_pair(lambda: fwd(TF, xl), lambda: fwd(F, xt), number, rep)
        rows.append((name, "forward", a, b))
        yt, yl = fwd(F, xt), fwd(TF, xl)
        gt = torch.randn(yt.shape, generator=torch.Generator().manual_seed(1))
        gl = tl.from_numpy(gt.numpy().copy())
        if bwd is None:
            a, b = median_pair(backward_whole(lambda x: fwd(TF, x), tl, xl),
                               backward_whole(lambda x: fwd(F, x), torch, xt), number, rep)
            rows.append((name, "forward+backward", a, b))
            continue
        st = saved(F, xt) if saved else None
        sl = saved(TF, xl) if saved else None
        a, b = median_pair(lambda: bwd(tl._C._internal, gl, xl, sl), lambda: bwd(torch.ops.aten, gt, xt, st), number, rep)
        rows.append((name, "backward", a, b))
    if args.markdown:
        print("| case (32x64x56x56 float32) | pass | torchlite ms | PyTorch ms | ratio |")
        print("|---|---|---:|---:|---:|")
        for name, kind, a, b in rows:
            print(f"| {name} | {kind} | {a * 1e3:.2f} | {b * 1e3:.2f} | {a / b:.2f} |")
    else:
        for name, kind, a, b in rows:
            print(f"{name:28s} {kind:17s} torchlite {a * 1e3:8.2f} ms  torch {b * 1e3:8.2f} ms  ratio {a / b:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
