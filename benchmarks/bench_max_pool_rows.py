"""The max pools' forward rows beside PyTorch (aten/native/cpu/MaxPoolRows.cpp; docs/kernels/pooling.md), and
group_norm's forward and backward (docs/kernels/normalization.md), torchlite beside PyTorch in one run.

    python benchmarks/bench_max_pool_rows.py [--threads 1] [--cpu-time] [--repeat 15] [--only max,group] [--markdown]

Rows (float32 unless named; ratio = torchlite time / PyTorch time): max_pool2d on 32x64x56x56 (3x3 s2 p1 with and
without indices, 2x2 s2, 3x3 s1 p1; float64, bfloat16, float16; a channels-last input), max_pool1d k3 s2 p1 on
32x64x3136 (no indices: PyTorch's values-only kernel; with indices), max_pool3d 3x3x3 s2 p1 on 32x64x16x14x14;
group_norm 32x64x56x56 with 32 groups: forward, and the backward of a retained graph (`y.backward(g)`, the grads
reset before each call). Calls alternate between the libraries (_timing.py); each figure is the median of the rounds.
"""
from __future__ import annotations

import argparse

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F

import _timing


def _max_pool_rows():
    base = np.random.default_rng(0).standard_normal((32, 64, 56, 56), dtype=np.float32)
    rows = []

    def add(name, make, call):
        xl, xt = make(tl), make(torch)
        rows.append((name, "forward", lambda: call(TF, xl), lambda: call(F, xt)))

    f32 = lambda lib: lib.from_numpy(base)  # noqa: E731
    add("max_pool2d 3x3 s2 p1, indices", f32, lambda f, x: f.max_pool2d(x, 3, 2, 1, return_indices=True))
    add("max_pool2d 3x3 s2 p1", f32, lambda f, x: f.max_pool2d(x, 3, 2, 1))
    add("max_pool2d 2x2 s2", f32, lambda f, x: f.max_pool2d(x, 2, 2))
    add("max_pool2d 3x3 s1 p1", f32, lambda f, x: f.max_pool2d(x, 3, 1, 1))
    for label, name in (("float64", "float64"), ("bfloat16", "bfloat16"), ("float16", "float16")):
        add(f"max_pool2d 3x3 s2 p1 {label}", lambda lib, n=name: lib.from_numpy(base).to(getattr(lib, n)),
            lambda f, x: f.max_pool2d(x, 3, 2, 1))
    add("max_pool2d 3x3 s2 p1 channels-last", lambda lib: lib.from_numpy(base).contiguous(memory_format=lib.channels_last),
        lambda f, x: f.max_pool2d(x, 3, 2, 1))
    b1 = np.ascontiguousarray(base.reshape(32, 64, -1)[:, :, :3136])
    add("max_pool1d k3 s2 p1 32x64x3136", lambda lib: lib.from_numpy(b1), lambda f, x: f.max_pool1d(x, 3, 2, 1))
    add("max_pool1d k3 s2 p1 32x64x3136, indices", lambda lib: lib.from_numpy(b1),
        lambda f, x: f.max_pool1d(x, 3, 2, 1, return_indices=True))
    b3 = base.reshape(32, 64, 16, 14, 14)
    add("max_pool3d 3x3x3 s2 p1 32x64x16x14x14", lambda lib: lib.from_numpy(b3), lambda f, x: f.max_pool3d(x, 3, 2, 1))
    return rows


def _group_norm_rows():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
    g = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
    w, b = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)

    def make(lib, f):
        X, G, W, B = (lib.from_numpy(a) for a in (x, g, w, b))
        Xg, Wg, Bg = (t.detach().requires_grad_() for t in (X, W, B))
        Y = f.group_norm(Xg, 32, Wg, Bg)

        def backward():
            Xg.grad = Wg.grad = Bg.grad = None
            Y.backward(G, retain_graph=True)
        return (lambda: f.group_norm(X, 32, W, B)), backward

    (fl, bl), (ft, bt) = make(tl, TF), make(torch, F)
    name = "group_norm 32x64x56x56 (32 groups)"
    return [(name, "forward", fl, ft), (name, "backward", bl, bt)]


GROUPS = {"max_pool": _max_pool_rows, "group_norm": _group_norm_rows}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="", help="comma-separated group-name prefixes (max_pool, group_norm)")
    p.add_argument("--repeat", type=int, default=15)
    _timing.add_run_args(p)
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    _timing.run_groups(GROUPS, args.only, args.repeat, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
