"""Padding, interpolation and embedding: torchlite beside PyTorch in one run (float32, 2 threads).

    python benchmarks/bench_resampling.py [--repeat N] [--markdown]

Cases (issue 11): interpolate bilinear 2x on 32x64x56x56 (forward, and its backward op as autograd calls
it), F.pad reflect on the same input (forward and backward op), embedding lookup and its weight gradient
(32000x512 table, 4096 indices). Medians of several repeats, the two
libraries measured alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster).
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

from _timing import median_pair


def cases():
    x = torch.randn(32, 64, 56, 56)
    lx = tl.tensor(x.numpy())
    g2 = torch.randn(32, 64, 112, 112)
    lg2 = tl.tensor(g2.numpy())
    gp = torch.randn(32, 64, 62, 62)
    lgp = tl.tensor(gp.numpy())
    A = torch.ops.aten
    N = tl._C._internal
    yield ("interpolate bilinear 2x, 32x64x56x56",
           lambda: TF.interpolate(lx, scale_factor=2, mode="bilinear"),
           lambda: F.interpolate(x, scale_factor=2, mode="bilinear"))
    yield ("upsample_bilinear2d_backward (2x)",
           lambda: N.upsample_bilinear2d_backward(lg2, [112, 112], [32, 64, 56, 56], False, 2.0, 2.0),
           lambda: A.upsample_bilinear2d_backward(g2, [112, 112], [32, 64, 56, 56], False, 2.0, 2.0))
    yield ("interpolate nearest 2x, 32x64x56x56",
           lambda: TF.interpolate(lx, scale_factor=2),
           lambda: F.interpolate(x, scale_factor=2))
    yield ("pad reflect (3, 3, 3, 3), 32x64x56x56",
           lambda: TF.pad(lx, [3, 3, 3, 3], mode="reflect"),
           lambda: F.pad(x, [3, 3, 3, 3], mode="reflect"))
    yield ("reflection_pad2d_backward",
           lambda: N.reflection_pad2d_backward(lgp, lx, [3, 3, 3, 3]),
           lambda: A.reflection_pad2d_backward(gp, x, [3, 3, 3, 3]))
    yield ("pad constant (3, 3, 3, 3), 32x64x56x56",
           lambda: TF.pad(lx, [3, 3, 3, 3]),
           lambda: F.pad(x, [3, 3, 3, 3]))
    w = torch.randn(32000, 512)
    lw = tl.tensor(w.numpy())
    idx = torch.randint(0, 32000, (4096,), generator=torch.Generator().manual_seed(0))
    lidx = tl.tensor(idx.numpy())
    ge = torch.randn(4096, 512)
    lge = tl.tensor(ge.numpy())
    yield ("embedding 32000x512, 4096 indices",
           lambda: TF.embedding(lidx, lw),
           lambda: F.embedding(idx, w))
    yield ("embedding_dense_backward 32000x512, 4096",
           lambda: N.embedding_dense_backward(lge, lidx, 32000, -1, False),
           lambda: A.embedding_dense_backward(ge, idx, 32000, -1, False))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(2)
    tl.set_num_threads(2)
    rows = []
    for name, f_tl, f_torch in cases():
        t_tl, t_torch = median_pair(f_tl, f_torch, 1, args.repeat)
        rows.append((name, t_tl * 1e3, t_torch * 1e3, t_tl / t_torch))
        if not args.markdown:
            print(f"{name:45s} torchlite {t_tl * 1e3:8.2f} ms  torch {t_torch * 1e3:8.2f} ms  ratio {t_tl / t_torch:5.2f}")
    if args.markdown:
        print("| case | torchlite ms | torch ms | ratio |\n|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r[0]} | {r[1]:.2f} | {r[2]:.2f} | {r[3]:.2f} |")


if __name__ == "__main__":
    main()
