"""Diagonals, triangles and the range/matrix factories: torchlite beside PyTorch in one run.

    python benchmarks/bench_diag_factories.py [--quick] [--only tril,linspace] [--markdown]

Each row runs the same call in both libraries (large inputs for the kernels, tiny ones for the
per-call overhead); each figure is the median of several repeats, the two libraries measured
alternately so that load from other processes hits both alike. The ratio is torchlite's time divided
by PyTorch's (below 1.0: torchlite is faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair

N = 4096  # matrices are N x N float32 (64 MiB)


def inputs(lib):
    rng = np.random.default_rng(0)
    m = lib.from_numpy(rng.standard_normal((N, N)).astype(np.float32))
    v = lib.from_numpy(rng.standard_normal(N).astype(np.float32))
    return {"m": m, "mt": m.t(), "v": v, "b": lib.from_numpy(rng.standard_normal((64, 64, 64)).astype(np.float32)),
            "small": lib.ones(3, 3), "arr": rng.standard_normal(1000), "lst": rng.standard_normal(1000).tolist()}


# name -> call(lib, inputs)
CASES = {
    f"tril {N}x{N}": lambda L, d: L.tril(d["m"]),
    f"triu {N}x{N} transposed": lambda L, d: L.triu(d["mt"], 1),
    f"tril_ {N}x{N} (in place)": lambda L, d: d["m"].tril_(N),  # keeps everything: the zero-writing walk only
    "triu 64x64x64 batch": lambda L, d: L.triu(d["b"]),
    f"diag_embed {N}": lambda L, d: L.diag_embed(d["v"]),
    f"diag {N}x{N} (copy)": lambda L, d: L.diag(d["m"]),
    f"eye {N}": lambda L, d: L.eye(N),
    "linspace 10M": lambda L, d: L.linspace(-3.0, 7.0, 10_000_000),
    "linspace 10M int64": lambda L, d: L.linspace(-3, 70_000, 10_000_000, dtype=L.int64),
    "logspace 1M": lambda L, d: L.logspace(-3.0, 3.0, 1_000_000),
    "tril_indices 2000": lambda L, d: L.tril_indices(2000, 2000),
    f"fill_diagonal_ {N}x{N}": lambda L, d: d["m"].fill_diagonal_(1.0),
    "diagonal 3x3 (view)": lambda L, d: d["small"].diagonal(),
    "tril 3x3": lambda L, d: L.tril(d["small"]),
    "eye 3": lambda L, d: L.eye(3),
    "linspace 5": lambda L, d: L.linspace(0.0, 1.0, 5),
    "resize_ (same size)": lambda L, d: d["small"].resize_(3, 3),
    "asarray(tensor)": lambda L, d: L.asarray(d["small"]),
    "asarray(ndarray 1000)": lambda L, d: L.asarray(d["arr"]),
    "tensor(list of 1000 floats)": lambda L, d: L.tensor(d["lst"]),
}


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.2f} us"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    p.add_argument("--only", help="comma-separated substrings of case names")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    torch.set_num_threads(2)
    tl.set_num_threads(2)
    d_tl, d_torch = inputs(tl), inputs(torch)
    rows = []
    for name, call in CASES.items():
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        big = not any(s in name for s in ("3x3", "eye 3", "linspace 5", "resize_", "asarray", "tensor("))
        number, repeat = (1, 5 if args.quick else 9) if big else (200 if args.quick else 2000, 5 if args.quick else 9)
        t_tl, t_torch = median_pair(lambda: call(tl, d_tl), lambda: call(torch, d_torch), number, repeat)
        rows.append((name, t_tl, t_torch))
        if not args.markdown:
            print(f"{name:32s} {fmt(t_tl):>12s} {fmt(t_torch):>12s}  ratio {t_tl / t_torch:5.2f}", flush=True)
    if args.markdown:
        print("| op | torchlite / PyTorch |\n|---|---|")
        for name, a, b in rows:
            print(f"| `{name}` | {fmt(a)} / {fmt(b)} = **{a / b:.2f}** |")


if __name__ == "__main__":
    main()
