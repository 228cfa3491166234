"""Complex convolutions beside PyTorch's in one run: complex64 conv2d 8x16x32x32 -> 32 channels 3x3 (padding 1)
and conv1d 8x32x512 -> 64 channels k 5 (padding 2), forward and forward+backward (input, weight and bias
gradients), plus the float32 convolution of the same shape as the reference (both libraries compute a complex
convolution as three real ones, Gauss's trick, so the complex ratio follows the real one).

    python benchmarks/bench_complex_conv.py [--quick] [--markdown] [--cpu-time] [--threads N]

Medians of alternating rounds (benchmarks/_timing.py); ratio = torchlite time / PyTorch time (below 1.0:
torchlite is faster). Default: 1 thread (the steadier figure on the shared machine).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import add_run_args, apply_run_args, median_pair, print_markdown, print_progress

CASES = [
    # name, F function, input shape, weight shape, keyword arguments
    ("conv2d 8x16x32x32->32 3x3", "conv2d", (8, 16, 32, 32), (32, 16, 3, 3), dict(padding=1)),
    ("conv1d 8x32x512->64 k5", "conv1d", (8, 32, 512), (64, 32, 5), dict(padding=2)),
]


def arrays(shape, dtype, rng):
    a = rng.standard_normal(shape)
    if dtype == "complex64":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    add_run_args(p, threads=1)
    args = p.parse_args()
    apply_run_args(args, tl, torch)
    repeat = 5 if args.quick else 11
    rng = np.random.default_rng(0)
    rows = []
    for name, fn, xs, ws, kw in CASES:
        for dt in ("complex64", "float32"):
            x, w, b = arrays(xs, dt, rng), arrays(ws, dt, rng), arrays((ws[0],), dt, rng)
            libs = {}
            for lib in (tl, torch):
                X, W, B = (lib.tensor(a) for a in (x, w, b))
                Xg, Wg, Bg = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
                f = getattr(lib.nn.functional, fn)
                g = lib.tensor(arrays(f(X, W, B, **kw).shape, dt, np.random.default_rng(1)))

                def fwd(f=f, X=X, W=W, B=B):
                    return f(X, W, B, **kw)

                def fwd_bwd(f=f, lib=lib, Xg=Xg, Wg=Wg, Bg=Bg, g=g):
                    return lib.autograd.grad(f(Xg, Wg, Bg, **kw), (Xg, Wg, Bg), g)

                libs[lib] = (fwd, fwd_bwd)
            for i, kind in enumerate(("forward", "forward+backward")):
                ours, theirs = median_pair(libs[tl][i], libs[torch][i], number=1, repeat=repeat)
                row = (f"{name} {dt}", f"{kind}, {args.threads}t", ours, theirs)
                rows.append(row)
                print_progress(row, 38)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
