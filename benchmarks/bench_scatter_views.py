"""The *_scatter ops and view(dtype) beside PyTorch in one run: select_scatter, slice_scatter,
diagonal_scatter, as_strided_scatter (contiguous and non-dense self, float32 and complex64), and
Tensor.view(dtype) (metadata only: the cost of one call), forward only.

    python benchmarks/bench_scatter_views.py [--quick] [--markdown] [--cpu-time] [--threads N]

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
    big = rng.standard_normal((1024, 1024)).astype(np.float32)
    row = rng.standard_normal(1024).astype(np.float32)
    half = rng.standard_normal((1024, 512)).astype(np.float32)
    cplx = (rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))).astype(np.complex64)
    crow = (rng.standard_normal(512) + 1j * rng.standard_normal(512)).astype(np.complex64)
    small = rng.standard_normal((8, 8)).astype(np.float32)
    srow = rng.standard_normal(8).astype(np.float32)
    return [
        ("select_scatter 1024^2 f32 dim0", (big, row), lambda m, a, s: m.select_scatter(a, s, 0, 3)),
        ("select_scatter 1024^2 f32 dim1", (big, row), lambda m, a, s: m.select_scatter(a, s, 1, 3)),
        ("select_scatter 512^2 c64", (cplx, crow), lambda m, a, s: m.select_scatter(a, s, 0, 3)),
        ("select_scatter 8x8 f32", (small, srow), lambda m, a, s: m.select_scatter(a, s, 0, 3)),
        ("slice_scatter 1024^2 f32 ::2", (big, half), lambda m, a, s: m.slice_scatter(a, s, 1, 0, None, 2)),
        ("slice_scatter non-dense self", (big, row[:512].reshape(1, 512).repeat(1024, 0)),
         lambda m, a, s: m.slice_scatter(a[:, ::2], s.contiguous()[:, :256], 1, 0, 256)),
        ("diagonal_scatter 1024^2 f32", (big, row), lambda m, a, s: m.diagonal_scatter(a, s)),
        ("diagonal_scatter 512^2 c64", (cplx, crow), lambda m, a, s: m.diagonal_scatter(a, s)),
        ("as_strided_scatter 1024^2 f32", (big, half),
         lambda m, a, s: m.as_strided_scatter(a, s, (1024, 512), (1024, 2), 1)),
        ("view(int32) 1024^2 f32", (big,), lambda m, a: a.view(m.int32)),
        ("view(float64) 1024^2 f32", (big,), lambda m, a: a.view(m.float64)),
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
        number = 200 if "view(" in name or "8x8" in name else 1
        ours, theirs = median_pair(lambda: f(tl, *la), lambda: f(torch, *ta), number=number, repeat=repeat)
        row = (name, f"{args.threads} thread(s)", ours, theirs)
        rows.append(row)
        print_progress(row, 32)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
