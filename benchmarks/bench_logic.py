"""Comparison, logical and bitwise ops: torchlite beside PyTorch in one run.

    python benchmarks/bench_logic.py [--quick] [--only isclose,bitwise_and] [--markdown]

For each op: 10M elements contiguous, the same transposed, and 1-element tensors (per-call
overhead). Floating ops use float32; bitwise ops and shifts use int32 (PyTorch has them for
integers only); logical ops float32. Each figure is the median of several repeats, the two
libraries measured alternately so that load from other processes hits both alike; the ratio is
torchlite's time divided by PyTorch's (below 1.0: torchlite is faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair

SIDE = 3162  # 3162^2 ~ 10M elements

# name -> (input dtype, number of tensor inputs, call)
CASES = {
    "eq": ("float32", 2, lambda lib, x, y: lib.eq(x, y)),
    "greater": ("float32", 2, lambda lib, x, y: lib.greater(x, y)),
    "less_equal(x, 0.5)": ("float32", 1, lambda lib, x: lib.less_equal(x, 0.5)),
    "x > 0.5": ("float32", 1, lambda lib, x: x > 0.5),
    "isclose": ("float32", 2, lambda lib, x, y: lib.isclose(x, y)),
    "allclose": ("float32", 2, lambda lib, x, y: lib.allclose(x, y)),
    "equal": ("float32", 2, lambda lib, x, y: lib.equal(x, y)),
    "isnan": ("float32", 1, lambda lib, x: lib.isnan(x)),
    "isinf": ("float32", 1, lambda lib, x: lib.isinf(x)),
    "isposinf": ("float32", 1, lambda lib, x: lib.isposinf(x)),
    "isneginf": ("float32", 1, lambda lib, x: lib.isneginf(x)),
    "isfinite": ("float32", 1, lambda lib, x: lib.isfinite(x)),
    "isreal": ("float32", 1, lambda lib, x: lib.isreal(x)),
    "logical_and": ("float32", 2, lambda lib, x, y: lib.logical_and(x, y)),
    "logical_or": ("float32", 2, lambda lib, x, y: lib.logical_or(x, y)),
    "logical_xor": ("float32", 2, lambda lib, x, y: lib.logical_xor(x, y)),
    "logical_not": ("float32", 1, lambda lib, x: lib.logical_not(x)),
    "bitwise_and": ("int32", 2, lambda lib, x, y: lib.bitwise_and(x, y)),
    "x | y": ("int32", 2, lambda lib, x, y: x | y),
    "x ^ 5": ("int32", 1, lambda lib, x: x ^ 5),
    "~x": ("int32", 1, lambda lib, x: ~x),
    "x << y": ("int32", 2, lambda lib, x, y: x << y),
    "x >> 3": ("int32", 1, lambda lib, x: x >> 3),
    "x * 2 (float32)": ("float32", 1, lambda lib, x: x * 2),
    "x + 1 (float32)": ("float32", 1, lambda lib, x: x + 1),
}

SAME_VALUES = {"allclose", "equal"}


def values(dtype: str, shape, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        return rng.integers(0, 31, shape).astype(np.int32)
    v = rng.uniform(-3.0, 3.0, shape).astype(np.float32)
    v[rng.uniform(size=shape) < 0.3] = 0  # some zeros for the logical ops
    return v


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated case names")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)

    header = ["op", "10M contiguous", "10M transposed", "1 element"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':20s}" + "".join(f"{h:>30s}" for h in header[1:]))
        print(f"{'':20s}" + "   torchlite / torch = ratio   " * 3)
    for name in names:
        dtype, arity, call = CASES[name]
        cells = []
        for config in ("big", "bigt", "one"):
            shape = (1,) if config == "one" else (SIDE, SIDE)
            arrays = [values(dtype, shape, seed=i) for i in range(arity)]
            if name in SAME_VALUES:  # a full pass: every element compared
                arrays[1] = arrays[0].copy()
            if config == "bigt":  # transposed views of contiguous storage
                tl_in = [tl.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
                th_in = [torch.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
            else:
                tl_in = [tl.from_numpy(a) for a in arrays]
                th_in = [torch.from_numpy(a) for a in arrays]
            number = (2000 if args.quick else 20000) if config == "one" else (1 if args.quick else 3)
            t_tl, t_th = median_pair(lambda: call(tl, *tl_in), lambda: call(torch, *th_in), number, rep)
            unit, uname = (1e-6, "us") if config == "one" else (1e-3, "ms")
            cells.append((t_tl / unit, t_th / unit, t_tl / t_th, uname))
        if args.markdown:
            print(f"| `{name}` | " + " | ".join(f"{a:.2f} / {b:.2f} {u} = **{r:.2f}**" for a, b, r, u in cells) + " |")
        else:
            print(f"{name:20s}" + "".join(f"{a:9.2f} /{b:9.2f} {u} ={r:5.2f}" for a, b, r, u in cells))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
