"""affine_grid + grid_sample: torchlite beside PyTorch in one run.

    python benchmarks/bench_grid_sample.py [--quick] [--only bilinear,bicubic] [--markdown]

A spatial-transformer-sized batch: 16 x 32 x 64 x 64 float32 images warped by an affine grid of the same
size, each mode (zeros padding, align_corners=False), forward and forward+backward (gradients for the
image and the grid); and a 3-D trilinear case. Medians of several repeats, the two libraries measured
alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster). float32,
2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F

from _timing import median_pair, print_markdown, print_progress


def _data(shape, k):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape, dtype=np.float32)
    theta = np.tile(np.eye(k, k + 1, dtype=np.float32), (shape[0], 1, 1))
    theta += 0.1 * rng.standard_normal(theta.shape, dtype=np.float32)
    return x, theta


# name -> (input shape, mode)
CASES = {
    "bilinear 16x32x64x64": ((16, 32, 64, 64), "bilinear"),
    "nearest 16x32x64x64": ((16, 32, 64, 64), "nearest"),
    "bicubic 16x32x64x64": ((16, 32, 64, 64), "bicubic"),
    "trilinear 4x8x24x24x24": ((4, 8, 24, 24, 24), "bilinear"),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated case-name prefixes")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    only = [s for s in args.only.split(",") if s]
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    rows = []
    for name, (shape, mode) in CASES.items():
        if only and not any(name.startswith(o) for o in only):
            continue
        x, theta = _data(shape, len(shape) - 2)

        def run(lib, f, backward):
            xi, th = lib.from_numpy(x), lib.from_numpy(theta)
            if backward:
                xi.requires_grad_()
                th.requires_grad_()
            grid = f.affine_grid(th, list(shape), align_corners=False)
            out = f.grid_sample(xi, grid, mode=mode, align_corners=False)
            if backward:
                out.sum().backward()
            return out

        fwd = median_pair(lambda: run(tl, TF, False), lambda: run(torch, F, False), 1, rep)
        both = median_pair(lambda: run(tl, TF, True), lambda: run(torch, F, True), 1, rep)
        rows.append((name, "forward", *fwd))
        rows.append((name, "forward+backward", *both))
        if not args.markdown:
            for r in rows[-2:]:
                print_progress(r, 24)
    if args.markdown:
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
