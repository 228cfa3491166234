"""Elementwise fusion: a chain of 5 pointwise ops on 10M float32 elements, torchlite beside PyTorch
in one run.

    python benchmarks/bench_jit_fusion.py [--repeat 9] [--size 10000000]

The chain is `((x * y + 1).sigmoid() * z).tanh()` (mul, add, sigmoid, mul, tanh). Rows:
torchlite eager, torchlite traced without fusion (the interpreter's node walk), torchlite traced
with fusion (`torchlite.jit.fuser("fuser1")`: one prim::FusionGroup run in cache-sized blocks),
PyTorch eager, and torch.jit.trace under `torch.jit.fuser("fuser1")` (NNC, PyTorch's CPU fuser,
which needs its profiling runs first; the script prints the graph PyTorch ran, so the table says
whether it fused). Inference (no_grad); default threads (the machine's cores) for both libraries.
Medians of `--repeat` rounds, all rows alternating call by call (the machine is shared and noisy).
Ratios: each row's time over torchlite eager's, and over PyTorch eager's.
"""
from __future__ import annotations

import argparse
import statistics
import warnings

import numpy as np
import torch

import torchlite as tl

from _timing import alternating_times


def chain(x, y, z):
    return ((x * y + 1).sigmoid() * z).tanh()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--size", type=int, default=10_000_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(args.size).astype(np.float32) for _ in range(3)]
    tx = [tl.from_numpy(a.copy()) for a in arrays]
    px = [torch.from_numpy(a.copy()) for a in arrays]

    traced = tl.jit.trace(chain, tuple(tx))
    p_traced = torch.jit.trace(chain, tuple(px))

    def tl_fused():
        with tl.jit.fuser("fuser1"):
            return traced(*tx)

    def pt_fused():
        with torch.jit.fuser("fuser1"):
            return p_traced(*px)

    with tl.no_grad(), torch.no_grad():
        # Bit equality of the fused run with eager, and PyTorch's profiling runs before timing.
        same = bool(tl.equal(tl_fused(), chain(*tx)))
        for _ in range(3):
            pt_fused()
        with torch.jit.fuser("fuser1"):
            pt_graph = torch.jit.last_executed_optimized_graph()
        pt_kinds = sorted({n.kind() for n in pt_graph.nodes()})
        rows = [("torchlite eager", lambda: chain(*tx)),
                ("torchlite traced, no fusion", lambda: traced(*tx)),
                ("torchlite traced + fused", tl_fused),
                ("torch eager", lambda: chain(*px)),
                ("torch.jit.trace + fuser1", pt_fused)]
        times = alternating_times([f for _, f in rows], number=1, repeat=args.repeat)
    med = [statistics.median(t) for t in times]
    print(f"{args.size} float32 elements, {tl.get_num_threads()} torchlite threads, {torch.get_num_threads()} torch "
          f"threads, median of {args.repeat} rounds")
    print(f"fused result bit-identical to torchlite eager: {same}")
    print(f"torch.jit fuser1 ran node kinds: {', '.join(pt_kinds)}")
    print("| run | median ms | / torchlite eager | / torch eager |")
    print("|---|---|---|---|")
    for (name, _), m in zip(rows, med):
        print(f"| {name} | {m * 1e3:.1f} | {m / med[0]:.2f}x | {m / med[3]:.2f}x |")
    print(f"speed-up of fusion over torchlite eager: {med[0] / med[2]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
