"""complex32 (chalf) beside PyTorch in one run: the conversions to and from it (copy kernel), a contiguous copy
of a transposed tensor, and the arithmetic PyTorch's CPU runs on it (add, mul, abs), on 2^20 elements.

    python benchmarks/bench_complex32.py [--quick] [--markdown] [--cpu-time] [--threads N]

Medians of alternating rounds (benchmarks/_timing.py); ratio = torchlite time / PyTorch time (below 1.0:
torchlite is faster). One thread by default (the steadier figure on the shared machine).
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

import torchlite as tl

import torch

from _timing import add_run_args, apply_run_args, median_pair, print_markdown, print_progress

N = 1 << 20

OPS = {
    "complex64 -> complex32": lambda m, a, h: a.to(m.complex32),
    "complex32 -> complex64": lambda m, a, h: h.to(m.complex64),
    "float32 -> complex32": lambda m, a, h: a.real.contiguous().to(m.complex32),
    "transpose copy 1024x1024": lambda m, a, h: h.view(1024, 1024).t().contiguous(),
    "add": lambda m, a, h: m.add(h, h),
    "mul": lambda m, a, h: m.mul(h, h),
    "mul by a number": lambda m, a, h: m.mul(h, 0.5 - 2j),
    "add alpha=0.5": lambda m, a, h: m.add(h, h, alpha=0.5),
    "abs": lambda m, a, h: m.abs(h),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    add_run_args(p, threads=1)
    args = p.parse_args()
    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    apply_run_args(args, tl, torch)
    repeat = 5 if args.quick else 15
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)
    la, ta = tl.tensor(a), torch.tensor(a)
    lh, th = la.to(tl.complex32), ta.to(torch.complex32)
    rows = []
    for name, f in OPS.items():
        ours, theirs = median_pair(lambda: f(tl, la, lh), lambda: f(torch, ta, th), number=3, repeat=repeat)
        row = (f"{name} n=2^20", f"{args.threads} thread(s)", ours, theirs)
        rows.append(row)
        print_progress(row, 34)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
