"""Convolution and linear: torchlite beside PyTorch in one run, float32, 2 threads.

    python benchmarks/bench_convolution.py [--quick] [--only conv2d,resnet] [--markdown] [--split]
                                           [--threads N] [--cpu-time]

`--split` adds one row per gradient (convolution_backward with output_mask asking for the input's,
the weight's or the bias's alone, beside PyTorch's with the same mask). `--cpu-time` times with
time.process_time instead of the wall clock (use with --threads 1: the CPU time of a single-threaded
call is what load from other processes on the shared machine disturbs least).

Each case times the forward (F.conv*/F.linear) and the backward (convolution_backward with every
gradient asked for, as autograd calls it; linear: the three gradient products). Medians of several
repeats, the two libraries measured alternately; the ratio is torchlite's time over PyTorch's (below
1.0: torchlite is faster).
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
from _timing import median_pair

# name -> (input shape, weight shape, conv kwargs: stride, padding, dilation, groups)
CASES = {
    "conv2d 32x3x32x32 -> 64, 3x3 pad 1": ((32, 3, 32, 32), (64, 3, 3, 3), dict(padding=1)),
    "resnet 32x64x56x56 -> 64, 3x3 pad 1": ((32, 64, 56, 56), (64, 64, 3, 3), dict(padding=1)),
    "depthwise 32x64x56x56, 3x3 pad 1": ((32, 64, 56, 56), (64, 1, 3, 3), dict(padding=1, groups=64)),
    "conv1d 32x64x1024 -> 128, k 5 pad 2": ((32, 64, 1024), (128, 64, 5), dict(padding=2)),
    "conv_transpose2d 32x64x28x28 -> 32, 4x4 s 2": ((32, 64, 28, 28), (64, 32, 4, 4), dict(stride=2, padding=1)),
}


def conv_case(name, ishape, wshape, kw, rep, split=False):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(ishape).astype(np.float32)
    w = (rng.standard_normal(wshape) * 0.1).astype(np.float32)
    transposed = name.startswith("conv_transpose")
    bias_n = wshape[1] * kw.get("groups", 1) if transposed else wshape[0]
    b = rng.standard_normal(bias_n).astype(np.float32)
    nd = len(ishape) - 2
    fname = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"
    xs = (tl.from_numpy(x), torch.from_numpy(x))
    ws = (tl.from_numpy(w), torch.from_numpy(w))
    bs = (tl.from_numpy(b), torch.from_numpy(b))
    fwd = median_pair(lambda: getattr(TF, fname)(xs[0], ws[0], bs[0], **kw),
                      lambda: getattr(F, fname)(xs[1], ws[1], bs[1], **kw), repeat=rep)
    out = getattr(F, fname)(xs[1], ws[1], bs[1], **kw)
    g = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    gs = (tl.from_numpy(g), torch.from_numpy(g))
    stride = kw.get("stride", 1)
    pad = kw.get("padding", 0)
    args = ([bias_n], [stride] * nd, [pad] * nd, [1] * nd, transposed, [0] * nd, kw.get("groups", 1), [True, True, True])
    bwd = median_pair(lambda: tl._C._internal.convolution_backward(gs[0], xs[0], ws[0], *args),
                      lambda: torch.ops.aten.convolution_backward(gs[1], xs[1], ws[1], *args), repeat=rep)
    if not split:
        return fwd, bwd
    parts = []
    for i in range(3):
        a = args[:-1] + ([j == i for j in range(3)],)
        parts.append(median_pair(lambda: tl._C._internal.convolution_backward(gs[0], xs[0], ws[0], *a),
                                 lambda: torch.ops.aten.convolution_backward(gs[1], xs[1], ws[1], *a), repeat=rep))
    return fwd, bwd, parts


def linear_case(rep):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    w = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    g = rng.standard_normal((4096, 1024)).astype(np.float32)
    T = [(tl.from_numpy(a), torch.from_numpy(a)) for a in (x, w, b, g)]
    fwd = median_pair(lambda: TF.linear(T[0][0], T[1][0], T[2][0]), lambda: F.linear(T[0][1], T[1][1], T[2][1]), repeat=rep)

    def back(lib, i):
        xr = T[0][i].requires_grad_() if not T[0][i].requires_grad else T[0][i]
        return lambda: lib.autograd.grad((TF if i == 0 else F).linear(xr, T[1][i], T[2][i]), [xr], T[3][i])
    bwd = median_pair(back(tl, 0), back(torch, 1), repeat=rep)
    return fwd, bwd


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--split", action="store_true", help="time each gradient of convolution_backward alone too")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cpu-time", action="store_true",
                   help="CPU time instead of wall clock (with --threads 1, the calling thread's)")
    p.add_argument("--repeat", type=int, default=0, help="rounds per figure (default 7, 3 with --quick)")
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    rep = args.repeat or (3 if args.quick else 7)
    only = [s for s in args.only.split(",") if s]
    rows, split_rows = [], []
    for name, (ishape, wshape, kw) in CASES.items():
        if only and not any(o in name for o in only):
            continue
        r = conv_case(name, ishape, wshape, kw, rep, args.split)
        rows.append((name, *r[:2]))
        if args.split:
            split_rows += [(name, what, *t) for what, t in zip(("grad_input", "grad_weight", "grad_bias"), r[2])]
        print(rows[-1], file=sys.stderr)
    if not only or any(o in "linear" for o in only):
        rows.append(("linear 4096x1024 -> 1024 + bias", *linear_case(rep)))
    if args.markdown:
        print("| case | forward (torchlite / torch) | backward (torchlite / torch) |")
        print("|---|---|---|")
    for name, (f_tl, f_th), (b_tl, b_th) in rows:
        cells = [f"{f_tl * 1e3:.2f} / {f_th * 1e3:.2f} ms = **{f_tl / f_th:.2f}**",
                 f"{b_tl * 1e3:.2f} / {b_th * 1e3:.2f} ms = **{b_tl / b_th:.2f}**"]
        print(f"| {name} | " + " | ".join(cells) + " |" if args.markdown else f"{name:45s} " + "   ".join(cells))
    if split_rows:
        print("\n| case | gradient alone | torchlite / torch |" if args.markdown else "")
        if args.markdown:
            print("|---|---|---|")
        for name, what, a, b in split_rows:
            cell = f"{a * 1e3:.2f} / {b * 1e3:.2f} ms = **{a / b:.2f}**"
            print(f"| {name} | {what} | {cell} |" if args.markdown else f"{name:45s} {what:12s} {cell}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
