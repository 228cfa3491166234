"""Losses: torchlite beside PyTorch in one run (torchlite.nn.functional vs torch.nn.functional).

    python benchmarks/bench_losses.py [--quick] [--only cross_entropy,mse_loss] [--markdown]

cross_entropy on 4096 x 32000 logits with class indices (the issue's case), forward and forward+backward;
mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy_with_logits and binary_cross_entropy on
10M float32 elements (mean reduction), forward and forward+backward. Medians of several repeats, the two
libraries measured alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is
faster). float32, 2 threads.
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

N_ELEM = 10_000_000


def _logits():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 32000), dtype=np.float32)
    t = rng.integers(0, 32000, 4096)
    return x, t


def _pair(shape_seed):
    rng = np.random.default_rng(shape_seed)
    return rng.standard_normal(N_ELEM, dtype=np.float32), rng.standard_normal(N_ELEM, dtype=np.float32)


def _probs():
    rng = np.random.default_rng(3)
    return rng.uniform(0.01, 0.99, N_ELEM).astype(np.float32), rng.uniform(0, 1, N_ELEM).astype(np.float32)


# name -> (data(), call(F, *tensors)); the first tensor is the one differentiated.
CASES = {
    "cross_entropy 4096x32000": (_logits, lambda f, x, t: f.cross_entropy(x, t)),
    "mse_loss 10M": (lambda: _pair(1), lambda f, x, t: f.mse_loss(x, t)),
    "l1_loss 10M": (lambda: _pair(1), lambda f, x, t: f.l1_loss(x, t)),
    "smooth_l1_loss 10M": (lambda: _pair(1), lambda f, x, t: f.smooth_l1_loss(x, t)),
    "huber_loss 10M": (lambda: _pair(1), lambda f, x, t: f.huber_loss(x, t)),
    "bce_with_logits 10M": (lambda: _pair(2), lambda f, x, t: f.binary_cross_entropy_with_logits(x, t)),
    "binary_cross_entropy 10M": (_probs, lambda f, x, t: f.binary_cross_entropy(x, t)),
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
    for name, (data, call) in CASES.items():
        if only and not any(name.startswith(o) for o in only):
            continue
        arrays = data()
        tt = [torch.from_numpy(a) for a in arrays]
        lt = [tl.from_numpy(a) for a in arrays]
        fwd = median_pair(lambda: call(TF, *lt), lambda: call(F, *tt), 1, rep)

        def step(lib_f, ts, lib):
            x = ts[0].detach().requires_grad_()
            call(lib_f, x, *ts[1:]).backward()

        both = median_pair(lambda: step(TF, lt, tl), lambda: step(F, tt, torch), 1, rep)
        rows.append((name, "forward", *fwd))
        rows.append((name, "forward+backward", *both))
        if not args.markdown:
            for r in rows[-2:]:
                print_progress(r, 28)
    if args.markdown:
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
