"""torchlite beside PyTorch in one run: cat and stack of 100 tensors (issue 9's speed row), small
(100 elements) and large (10k elements) pieces, joined along dim 0 and along the last dim, plus a
few shape ops (repeat, roll, repeat_interleave, unfold_backward).

    python benchmarks/bench_joining.py [--quick] [--threads N]

Every figure is the median of several repeats (torchlite and PyTorch timed alternately), per call in
µs; ratio = torchlite's time / PyTorch's (below 1.0: torchlite is faster).
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)

    def pieces(shape):
        arrays = [rng.standard_normal(shape, dtype=np.float32) for _ in range(100)]
        return [tl.from_numpy(a) for a in arrays], [torch.from_numpy(a) for a in arrays]

    small, large = pieces((10, 10)), pieces((100, 100))
    big = rng.standard_normal((1000, 1000), dtype=np.float32)
    B = (tl.from_numpy(big), torch.from_numpy(big))
    windows = rng.standard_normal((998, 1000, 3), dtype=np.float32)
    W = (tl.from_numpy(windows), torch.from_numpy(windows))
    reps = rng.integers(0, 4, 10000)
    R = (tl.from_numpy(reps), torch.from_numpy(reps))

    cases = [
        ("cat 100 x (10,10) f32, dim 0", small, lambda L, ts: L.cat(ts, 0), 2000),
        ("cat 100 x (10,10) f32, dim -1", small, lambda L, ts: L.cat(ts, -1), 2000),
        ("stack 100 x (10,10) f32, dim 0", small, lambda L, ts: L.stack(ts, 0), 2000),
        ("stack 100 x (10,10) f32, dim -1", small, lambda L, ts: L.stack(ts, -1), 2000),
        ("cat 100 x (100,100) f32, dim 0", large, lambda L, ts: L.cat(ts, 0), 200),
        ("cat 100 x (100,100) f32, dim -1", large, lambda L, ts: L.cat(ts, -1), 200),
        ("stack 100 x (100,100) f32, dim 0", large, lambda L, ts: L.stack(ts, 0), 200),
        ("stack 100 x (100,100) f32, dim -1", large, lambda L, ts: L.stack(ts, -1), 200),
        ("repeat (1000,1000) f32 by (2, 3)", B, lambda L, t: t.repeat(2, 3), 10),
        ("roll (1000,1000) f32 by (3, 5)", B, lambda L, t: L.roll(t, (3, 5), (0, 1)), 20),
        ("rot90 (1000,1000) f32", B, lambda L, t: L.rot90(t), 20),
        ("repeat_interleave 10k counts", R, lambda L, t: L.repeat_interleave(t), 50),
        ("unfold_backward (1000,1000) size 3", W,
         lambda L, t: (L.ops.aten.unfold_backward if L is torch else L._C._internal.unfold_backward)(t, [1000, 1000], 0, 3, 1), 10),
    ]
    print(f"threads: {args.threads}; medians of {rep}")
    print(f"{'':40s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, pair, f, number in cases:
        calls = max(1, number // (3 if args.quick else 1))
        a, b = median_pair(lambda: f(tl, pair[0]), lambda: f(torch, pair[1]), number=calls, repeat=rep)
        print(f"{name:40s} {a * 1e6:8.1f}µs {b * 1e6:8.1f}µs {a / b:6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
