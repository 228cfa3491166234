"""pdist: torchlite beside PyTorch in one run.

    python benchmarks/bench_pdist.py [--quick] [--markdown]

pdist of 1024 x 64 float32 rows for p = 2, 1 and 3, forward and forward+backward. Medians of several
repeats, the two libraries measured alternately; the ratio is torchlite's time over PyTorch's (below 1.0:
torchlite is faster). float32, 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair, print_markdown, print_progress


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    x = np.random.default_rng(0).standard_normal((1024, 64), dtype=np.float32)
    rows = []
    for norm in (2.0, 1.0, 3.0):
        def run(lib, backward):
            xi = lib.from_numpy(x)
            if backward:
                xi.requires_grad_()
            y = lib.pdist(xi, norm)
            if backward:
                y.sum().backward()
            return y

        name = f"pdist 1024x64 p={norm:g}"
        rows.append((name, "forward", *median_pair(lambda: run(tl, False), lambda: run(torch, False), 1, rep)))
        rows.append((name, "forward+backward", *median_pair(lambda: run(tl, True), lambda: run(torch, True), 1, rep)))
        if not args.markdown:
            for r in rows[-2:]:
                print_progress(r, 22)
    if args.markdown:
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
