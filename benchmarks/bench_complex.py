"""The complex pointwise kernels beside PyTorch's in one run: mul, div, exp and abs of 1M-element complex64 and
complex128 tensors (and add as the memory-bound reference).

    python benchmarks/bench_complex.py [--quick] [--markdown] [--cpu-time] [--threads N]

Medians of alternating rounds (benchmarks/_timing.py); ratio = torchlite time / PyTorch time (below 1.0:
torchlite is faster). `--threads N` sets both libraries' intra-op threads (default: 1, the steadier figure
on the shared machine); `--cpu-time` times process CPU time instead of wall time.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import add_run_args, apply_run_args, median_pair, print_markdown, print_progress

N = 1 << 20

OPS = {
    "add": lambda m, a, b: m.add(a, b),
    "mul": lambda m, a, b: m.mul(a, b),
    "div": lambda m, a, b: m.div(a, b),
    "exp": lambda m, a, b: m.exp(a),
    "abs": lambda m, a, b: m.abs(a),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    add_run_args(p, threads=1)
    args = p.parse_args()
    apply_run_args(args, tl, torch)
    repeat = 5 if args.quick else 15
    rng = np.random.default_rng(0)
    rows = []
    for dt in ("complex64", "complex128"):
        a = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(dt)
        b = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(dt)
        la, lb, ta, tb = tl.tensor(a), tl.tensor(b), torch.tensor(a), torch.tensor(b)
        for name, f in OPS.items():
            ours, theirs = median_pair(lambda: f(tl, la, lb), lambda: f(torch, ta, tb), number=3, repeat=repeat)
            row = (f"{name} {dt} n=2^20", f"{args.threads} thread(s)", ours, theirs)
            rows.append(row)
            print_progress(row, 26)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
