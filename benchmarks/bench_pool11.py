"""Fractional max pooling and antialiased interpolation: torchlite beside PyTorch in one run.

    python benchmarks/bench_pool11.py [--quick] [--markdown]

- fractional_max_pool2d, kernel 3x3 (the example of PyTorch's docs), output ratio 0.5, on a 32x64x56x56 float32
  input with given random samples: forward, and the backward op autograd records;
- F.interpolate(antialias=True), bilinear and bicubic, 32x3x224x224 float32 -> 112x112: forward, and the
  backward op.

Medians of several repeats, the two libraries measured alternately; the ratio is torchlite's time over
PyTorch's (below 1.0: torchlite is faster). 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

from _timing import median_pair


def _pair(xt):
    return tl.from_numpy(xt.numpy().copy())


def fractional_cases():
    xt = torch.randn(32, 64, 56, 56, generator=torch.Generator().manual_seed(0))
    st = torch.rand(32, 64, 2, generator=torch.Generator().manual_seed(1))
    xl, sl = _pair(xt), _pair(st)
    out = [28, 28]
    fwd_l = lambda: tl._C._nn.fractional_max_pool2d(xl, [3, 3], out, sl)  # noqa: E731
    fwd_t = lambda: torch._C._nn.fractional_max_pool2d(xt, [3, 3], out, st)  # noqa: E731
    _, it = fwd_t()
    _, il = fwd_l()
    gt = torch.randn(32, 64, 28, 28, generator=torch.Generator().manual_seed(2))
    gl = _pair(gt)
    bwd_l = lambda: tl._C._internal.fractional_max_pool2d_backward(gl, xl, [3, 3], out, il)  # noqa: E731
    bwd_t = lambda: torch.ops.aten.fractional_max_pool2d_backward(gt, xt, [3, 3], out, it)  # noqa: E731
    return [("fractional_max_pool2d 3x3, ratio 0.5 (32x64x56x56)", "forward", fwd_l, fwd_t),
            ("fractional_max_pool2d 3x3, ratio 0.5 (32x64x56x56)", "backward", bwd_l, bwd_t)]


def antialias_cases(mode):
    xt = torch.randn(32, 3, 224, 224, generator=torch.Generator().manual_seed(3))
    xl = _pair(xt)
    fwd_l = lambda: TF.interpolate(xl, size=(112, 112), mode=mode, antialias=True)  # noqa: E731
    fwd_t = lambda: F.interpolate(xt, size=(112, 112), mode=mode, antialias=True)  # noqa: E731
    gt = torch.randn(32, 3, 112, 112, generator=torch.Generator().manual_seed(4))
    gl = _pair(gt)
    name = f"_upsample_{mode}2d_aa_backward"
    bwd_l = lambda: getattr(tl._C._internal, name)(gl, [112, 112], [32, 3, 224, 224], False, None, None)  # noqa: E731
    bwd_t = lambda: getattr(torch.ops.aten, name)(gt, [112, 112], [32, 3, 224, 224], False, None, None)  # noqa: E731
    case = f"interpolate {mode} antialias 224->112 (32x3)"
    return [(case, "forward", fwd_l, fwd_t), (case, "backward", bwd_l, bwd_t)]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep, number = (3, 1) if args.quick else (7, 3)
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    rows = []
    for name, kind, fl, ft in fractional_cases() + antialias_cases("bilinear") + antialias_cases("bicubic"):
        a, b = median_pair(fl, ft, number, rep)
        rows.append((name, kind, a, b))
    if args.markdown:
        print("| case (float32) | pass | torchlite ms | PyTorch ms | ratio |")
        print("|---|---|---:|---:|---:|")
        for name, kind, a, b in rows:
            print(f"| {name} | {kind} | {a * 1e3:.2f} | {b * 1e3:.2f} | {a / b:.2f} |")
    else:
        for name, kind, a, b in rows:
            print(f"{name:52s} {kind:9s} torchlite {a * 1e3:8.2f} ms  torch {b * 1e3:8.2f} ms  ratio {a / b:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
