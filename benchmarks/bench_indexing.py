"""Advanced indexing: torchlite beside PyTorch in one run.

    python benchmarks/bench_indexing.py [--quick] [--markdown]

Each case runs on 1M and 10M float32 elements: x[mask] (a random mask, half true), x[idx] = v
(a random permutation's first half as idx), x[idx] (gather), index_put_ with accumulate=True (idx
with repeats), masked_fill, nonzero, take_along_dim, and x[mask] = 0. Each figure is the median
of several repeats, the two libraries measured alternately so that load from other processes
hits both alike; the ratio is torchlite's time divided by PyTorch's (below 1.0: torchlite is
faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair


def inputs(n: int):
    """numpy inputs for n elements: x, a half-true mask, idx (n/2 distinct positions), idx with
    repeats, values for idx, a 2-D view for take_along_dim and its indices."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    mask = rng.random(n) < 0.5
    idx = rng.permutation(n)[: n // 2].astype(np.int64)
    rep = rng.integers(0, n, n // 2).astype(np.int64)
    vals = rng.standard_normal(n // 2).astype(np.float32)
    cols = 1000
    tidx = rng.integers(0, cols, (n // cols, cols)).astype(np.int64)
    return x, mask, idx, rep, vals, tidx, cols


def cases():
    """(name, setup(lib, arrays) -> callable)."""
    def conv(lib, a):
        return lib.from_numpy(a) if lib is tl else torch.from_numpy(a)

    def getmask(lib, d):
        x, m = conv(lib, d[0]), conv(lib, d[1])
        return lambda: x[m]

    def setidx(lib, d):
        x, i, v = conv(lib, d[0].copy()), conv(lib, d[2]), conv(lib, d[4])
        def f():
            x[i] = v
        return f

    def getidx(lib, d):
        x, i = conv(lib, d[0]), conv(lib, d[2])
        return lambda: x[i]

    def accumulate(lib, d):
        x, i, v = conv(lib, d[0].copy()), conv(lib, d[3]), conv(lib, d[4])
        return lambda: x.index_put_((i,), v, accumulate=True)

    def masked_fill(lib, d):
        x, m = conv(lib, d[0]), conv(lib, d[1])
        return lambda: x.masked_fill(m, 0.5)

    def nonzero(lib, d):
        m = conv(lib, d[1])
        return lambda: lib.nonzero(m)

    def take_along_dim(lib, d):
        x = conv(lib, d[0]).reshape(-1, d[6])
        i = conv(lib, d[5])
        return lambda: lib.take_along_dim(x, i, 1)

    def setmask(lib, d):
        x, m = conv(lib, d[0].copy()), conv(lib, d[1])
        def f():
            x[m] = 0.0
        return f

    return [("x[mask]", getmask), ("x[idx] = v", setidx), ("x[idx]", getidx),
            ("index_put_ accumulate", accumulate), ("masked_fill", masked_fill), ("nonzero", nonzero),
            ("take_along_dim", take_along_dim), ("x[mask] = 0", setmask)]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep = 3 if args.quick else 9
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    sizes = [1_000_000, 10_000_000]
    data = {n: inputs(n) for n in sizes}
    header = ["op"] + [f"f32 {n // 1_000_000}M" for n in sizes]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':24s}" + "".join(f"{h:>32s}" for h in header[1:]))
        print(f"{'':24s}" + "   torchlite / torch ms = ratio  " * len(sizes))
    for name, setup in cases():
        cells = []
        for n in sizes:
            number = 5 if n <= 1_000_000 else 1
            t_tl, t_th = median_pair(setup(tl, data[n]), setup(torch, data[n]), number, rep)
            cells.append((t_tl * 1e3, t_th * 1e3, t_tl / t_th))
        if args.markdown:
            print(f"| `{name}` | " + " | ".join(f"{a:.2f} / {b:.2f} ms = **{r:.2f}**" for a, b, r in cells) + " |")
        else:
            print(f"{name:24s}" + "".join(f"{a:10.2f} /{b:10.2f}    ={r:6.2f}" for a, b, r in cells))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
