"""Issue 10's catalog additions beside PyTorch in one run: the new composites (dist, trapezoid,
cumulative_trapezoid, vander, narrow_copy, block_diag, cartesian_prod, combinations) and the ops given complex
paths (logsumexp, logcumsumexp, any, addcmul, lerp, renorm, linear), forward only.

    python benchmarks/bench_catalog10.py [--quick] [--markdown] [--cpu-time] [--threads N]

Medians of alternating rounds (benchmarks/_timing.py); ratio = torchlite time / PyTorch time (below 1.0:
torchlite is faster). Default one thread, the steadier figure on the shared machine.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import add_run_args, apply_run_args, median_pair, print_markdown, print_progress


def cases(rng):
    real = rng.standard_normal((512, 1024)).astype(np.float32)
    real2 = rng.standard_normal((512, 1024)).astype(np.float32)
    cplx = (rng.standard_normal((512, 1024)) + 1j * rng.standard_normal((512, 1024))).astype(np.complex64)
    cplx2 = (rng.standard_normal((512, 1024)) + 1j * rng.standard_normal((512, 1024))).astype(np.complex64)
    vec = rng.standard_normal(1024).astype(np.float32)
    small = rng.standard_normal(40).astype(np.float32)
    blocks = [rng.standard_normal((64, 64)).astype(np.float32) for _ in range(8)]
    w = (rng.standard_normal((256, 1024)) + 1j * rng.standard_normal((256, 1024))).astype(np.complex64)
    return [
        ("dist p=2 512x1024 f32", (real, real2), lambda m, a, b: m.dist(a, b)),
        ("dist p=3 512x1024 f32", (real, real2), lambda m, a, b: m.dist(a, b, 3)),
        ("trapezoid dx 512x1024 f32", (real,), lambda m, a: m.trapezoid(a, dx=0.5)),
        ("trapezoid x 512x1024 f32", (real, vec), lambda m, a, x: m.trapezoid(a, x)),
        ("cumulative_trapezoid 512x1024", (real,), lambda m, a: m.cumulative_trapezoid(a)),
        ("vander 1024 N=64 f32", (vec,), lambda m, x: m.vander(x, 64)),
        ("narrow_copy 512x1024 dim1", (real,), lambda m, a: m.narrow_copy(a, 1, 100, 500)),
        ("block_diag 8 x 64x64", tuple(blocks), lambda m, *bs: m.block_diag(*bs)),
        ("cartesian_prod 1024 x 40", (vec, small), lambda m, a, b: m.cartesian_prod(a, b)),
        ("combinations 40 r=3", (small,), lambda m, a: m.combinations(a, 3)),
        ("logsumexp c64 dim1", (cplx,), lambda m, a: m.logsumexp(a, 1)),
        ("logcumsumexp c64 dim1", (cplx,), lambda m, a: m.logcumsumexp(a, 1)),
        ("any c64", (cplx,), lambda m, a: m.any(a, 1)),
        ("addcmul c64", (cplx, cplx2), lambda m, a, b: m.addcmul(a, a, b, value=0.5j)),
        ("lerp c64", (cplx, cplx2), lambda m, a, b: m.lerp(a, b, 0.3 + 0.1j)),
        ("renorm c64", (cplx,), lambda m, a: m.renorm(a, 2, 0, 1.0)),
        ("linear c64 512x1024 @ 256", (cplx, w), lambda m, a, b: m.nn.functional.linear(a, b)),
    ]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    add_run_args(p, threads=1)
    args = p.parse_args()
    apply_run_args(args, tl, torch)
    repeat = 5 if args.quick else 11
    rows = []
    for name, arrays, f in cases(np.random.default_rng(0)):
        la = [tl.tensor(a) for a in arrays]
        ta = [torch.tensor(a) for a in arrays]
        ours, theirs = median_pair(lambda: f(tl, *la), lambda: f(torch, *ta), number=1, repeat=repeat)
        row = (name, f"{args.threads} thread(s)", ours, theirs)
        rows.append(row)
        print_progress(row, 32)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
