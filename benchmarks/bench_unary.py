"""Unary catalog ops (rounding, sign, basic unary, aliases): torchlite beside PyTorch in one run.

    python benchmarks/bench_unary.py [--quick] [--only ceil,floor] [--markdown]

For each op: 10M float32 contiguous, the same transposed, and a 1-element float32 tensor
(per-call overhead). The transcendental functions are in bench_vecmath.py; this file covers the
other unary ops and the aliases (which must cost no more than the op they call). Each figure is
the median of several repeats, the two libraries measured alternately so that load from other
processes hits both alike; the ratio is torchlite's time divided by PyTorch's (below 1.0:
torchlite is faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair

SIDE = 3162  # 3162^2 ~ 10M elements

# name -> (input domain, call on a library and its input). Domains keep the aliases of
# inverse functions inside their domains and give nan_to_num something to replace.
CASES = {
    "abs": ("any", lambda lib, x: lib.abs(x)),
    "absolute": ("any", lambda lib, x: lib.absolute(x)),
    "neg": ("any", lambda lib, x: lib.neg(x)),
    "negative": ("any", lambda lib, x: lib.negative(x)),
    "positive": ("any", lambda lib, x: lib.positive(x)),
    "sign": ("any", lambda lib, x: lib.sign(x)),
    "sgn": ("any", lambda lib, x: lib.sgn(x)),
    "signbit": ("any", lambda lib, x: lib.signbit(x)),
    "reciprocal": ("any", lambda lib, x: lib.reciprocal(x)),
    "relu": ("any", lambda lib, x: lib.relu(x)),
    "square": ("any", lambda lib, x: lib.square(x)),
    "ceil": ("any", lambda lib, x: lib.ceil(x)),
    "floor": ("any", lambda lib, x: lib.floor(x)),
    "round": ("any", lambda lib, x: lib.round(x)),
    "round(decimals=2)": ("any", lambda lib, x: lib.round(x, decimals=2)),
    "trunc": ("any", lambda lib, x: lib.trunc(x)),
    "fix": ("any", lambda lib, x: lib.fix(x)),
    "frac": ("any", lambda lib, x: lib.frac(x)),
    "sinc": ("any", lambda lib, x: lib.sinc(x)),
    "deg2rad": ("any", lambda lib, x: lib.deg2rad(x)),
    "rad2deg": ("any", lambda lib, x: lib.rad2deg(x)),
    "nan_to_num": ("special", lambda lib, x: lib.nan_to_num(x)),
    "angle": ("any", lambda lib, x: lib.angle(x)),
    "arcsin": ("unit", lambda lib, x: lib.arcsin(x)),
    "arccos": ("unit", lambda lib, x: lib.arccos(x)),
    "arctan": ("any", lambda lib, x: lib.arctan(x)),
    "arcsinh": ("any", lambda lib, x: lib.arcsinh(x)),
    "arccosh": ("above1", lambda lib, x: lib.arccosh(x)),
    "arctanh": ("unit", lambda lib, x: lib.arctanh(x)),
}


def values(domain: str, shape, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low, high = {"unit": (-0.99, 0.99), "above1": (1.0, 10.0)}.get(domain, (-3.0, 3.0))
    a = rng.uniform(low, high, shape).astype(np.float32)
    if domain == "special":  # one element in 16 is nan, inf or -inf
        flat = a.reshape(-1)
        flat[::48] = np.nan
        flat[16::48] = np.inf
        flat[32::48] = -np.inf
    return a


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated op names")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    rep = 5 if args.quick else 11
    tl.set_num_threads(2)
    torch.set_num_threads(2)

    header = ["op", "f32 10M", "f32 10M transposed", "f32 1 element"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':18s}" + "".join(f"{h:>30s}" for h in header[1:]))
        print(f"{'':18s}" + "   torchlite / torch = ratio   " * 3)
    for name in names:
        domain, call = CASES[name]
        cells = []
        for config in ("f32", "f32t", "one"):
            shape = (1,) if config == "one" else (SIDE, SIDE)
            a = values(domain, shape, seed=0)
            if config == "f32t":  # transposed views of contiguous storage
                x_tl, x_th = tl.from_numpy(np.ascontiguousarray(a.T)).t(), torch.from_numpy(np.ascontiguousarray(a.T)).t()
            else:
                x_tl, x_th = tl.from_numpy(a), torch.from_numpy(a)
            # 1-element calls: many short alternating rounds, so both libraries see the same load.
            number, repeat = (200, 4 * rep + 1) if config == "one" else (1, rep)
            t_tl, t_th = median_pair(lambda: call(tl, x_tl), lambda: call(torch, x_th), number, repeat)
            unit, uname = (1e-6, "us") if config == "one" else (1e-3, "ms")
            cells.append((t_tl / unit, t_th / unit, t_tl / t_th, uname))
        if args.markdown:
            print(f"| `{name}` | " + " | ".join(f"{a:.2f} / {b:.2f} {u} = **{r:.2f}**" for a, b, r, u in cells) + " |")
        else:
            print(f"{name:18s}" + "".join(f"{a:9.2f} /{b:9.2f} {u} ={r:5.2f}" for a, b, r, u in cells))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
