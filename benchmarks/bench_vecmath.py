"""Transcendental math: torchlite beside PyTorch in one run, for every vectorized function.

    python benchmarks/bench_vecmath.py [--quick] [--only sin,cos] [--markdown]

For each function: 10M float32 contiguous, the same transposed, 10M float64, and a 1-element
float32 tensor (per-call overhead). Each figure is the median of several repeats, the two
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

# name -> (input domain, call); the domain keeps results finite and meaningful.
UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc"]
DOMAIN = {"log": "pos", "log2": "pos", "log10": "pos", "log1p": "pos", "sqrt": "pos", "rsqrt": "pos",
          "asin": "unit", "acos": "unit", "atanh": "unit", "acosh": "above1"}
BINARY = ["atan2", "logaddexp", "logaddexp2", "pow"]
POW_SCALARS = [2, 3, 0.5, -0.5, -1, -2, 2.5, 7]


def values(domain: str, shape, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low, high = {"pos": (0.01, 10.0), "unit": (-0.99, 0.99), "above1": (1.0, 10.0)}.get(domain, (-3.0, 3.0))
    return rng.uniform(low, high, shape).astype(dtype)


def cases(names):
    """(name, function of a library and its inputs, number of inputs, domain)."""
    for n in UNARY:
        if n in names:
            yield n, (lambda lib, x, n=n: getattr(lib, n)(x)), 1, DOMAIN.get(n, "any")
    if "atan2" in names:
        yield "atan2", lambda lib, x, y: lib.atan2(x, y), 2, "any"
    if "logaddexp" in names:
        yield "logaddexp", lambda lib, x, y: lib.logaddexp(x, y), 2, "any"
    if "logaddexp2" in names:
        yield "logaddexp2", lambda lib, x, y: lib.logaddexp2(x, y), 2, "any"
    if "pow" in names:
        yield "pow(x, y)", lambda lib, x, y: lib.pow(x, y), 2, "pos"
        for e in POW_SCALARS:
            yield f"pow(x, {e})", (lambda lib, x, e=e: lib.pow(x, e)), 1, "pos"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated function names")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    names = set(args.only.split(",")) if args.only else set(UNARY + BINARY)
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)

    header = ["function", "f32 10M", "f32 10M transposed", "f64 10M", "f32 1 element"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':14s}" + "".join(f"{h:>30s}" for h in header[1:]))
        print(f"{'':14s}" + "   torchlite / torch = ratio   " * 4)
    for name, call, arity, domain in cases(names):
        cells = []
        for config in ("f32", "f32t", "f64", "one"):
            dtype = np.float64 if config == "f64" else np.float32
            shape = (1,) if config == "one" else (SIDE, SIDE)
            arrays = [values(domain if i == 0 else "any", shape, dtype, seed=i) for i in range(arity)]
            if name.startswith("pow(x, y)"):
                arrays[1] = values("any", shape, dtype, 1)
            if config == "f32t":  # transposed views of contiguous storage
                tl_in = [tl.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
                th_in = [torch.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
            else:
                tl_in = [tl.from_numpy(a) for a in arrays]
                th_in = [torch.from_numpy(a) for a in arrays]
            number = 20000 if config == "one" else 1
            if args.quick:
                number = 2000 if config == "one" else 1
            t_tl, t_th = median_pair(lambda: call(tl, *tl_in), lambda: call(torch, *th_in), number, rep)
            unit, uname = (1e-6, "us") if config == "one" else (1e-3, "ms")
            cells.append((t_tl / unit, t_th / unit, t_tl / t_th, uname))
        if args.markdown:
            print(f"| `{name}` | " + " | ".join(f"{a:.2f} / {b:.2f} {u} = **{r:.2f}**" for a, b, r, u in cells) + " |")
        else:
            print(f"{name:14s}" + "".join(f"{a:9.2f} /{b:9.2f} {u} ={r:5.2f}" for a, b, r, u in cells))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
