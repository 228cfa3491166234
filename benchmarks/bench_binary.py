"""Binary/ternary arithmetic: torchlite beside PyTorch in one run, for every op of the family.

    python benchmarks/bench_binary.py [--quick] [--only fmod,clamp] [--markdown]

For each op: 10M float32 contiguous, the same with transposed inputs, and 1-element float32 tensors
(per-call overhead). Each figure is the median of several repeats, the two libraries measured
alternately so that load from other processes hits both alike; the ratio is torchlite's time divided
by PyTorch's (below 1.0: torchlite is faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair

SIDE = 3162  # 3162^2 ~ 10M elements

# name -> (number of tensor inputs, call, domain of the inputs: "any" in [-3, 3), "pos" in [0.5, 3)).
OPS = {
    "add": (2, lambda lib, x, y: lib.add(x, y), "any"),
    "sub": (2, lambda lib, x, y: lib.sub(x, y, alpha=2), "any"),
    "mul": (2, lambda lib, x, y: lib.mul(x, y), "any"),
    "div": (2, lambda lib, x, y: lib.div(x, y), "pos"),
    "div trunc": (2, lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"), "pos"),
    "div floor": (2, lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), "pos"),
    "true_divide": (2, lambda lib, x, y: lib.true_divide(x, y), "pos"),
    "floor_divide": (2, lambda lib, x, y: lib.floor_divide(x, y), "pos"),
    "rsub": (2, lambda lib, x, y: lib.rsub(x, y), "any"),
    "pow": (2, lambda lib, x, y: lib.pow(x, y), "pos"),
    "pow(x, 2.5)": (1, lambda lib, x: lib.pow(x, 2.5), "pos"),
    "float_power": (2, lambda lib, x, y: lib.float_power(x, y), "pos"),
    "fmod": (2, lambda lib, x, y: lib.fmod(x, y), "pos"),
    "fmod(x, 1.5)": (1, lambda lib, x: lib.fmod(x, 1.5), "any"),
    "remainder": (2, lambda lib, x, y: lib.remainder(x, y), "pos"),
    "remainder(x, 1.5)": (1, lambda lib, x: lib.remainder(x, 1.5), "any"),
    "copysign": (2, lambda lib, x, y: lib.copysign(x, y), "any"),
    "hypot": (2, lambda lib, x, y: lib.hypot(x, y), "any"),
    "maximum": (2, lambda lib, x, y: lib.maximum(x, y), "any"),
    "minimum": (2, lambda lib, x, y: lib.minimum(x, y), "any"),
    "fmax": (2, lambda lib, x, y: lib.fmax(x, y), "any"),
    "fmin": (2, lambda lib, x, y: lib.fmin(x, y), "any"),
    "lerp(x, y, 0.3)": (2, lambda lib, x, y: lib.lerp(x, y, 0.3), "any"),
    "lerp(x, y, w)": (3, lambda lib, x, y, w: lib.lerp(x, y, w), "any"),
    "addcmul": (3, lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5), "any"),
    "addcdiv": (3, lambda lib, x, y, z: lib.addcdiv(x, y, z, value=0.5), "pos"),
    "clamp(x, -1, 1)": (1, lambda lib, x: lib.clamp(x, -1, 1), "any"),
    "clamp(x, lo, hi)": (3, lambda lib, x, lo, hi: lib.clamp(x, lo, hi), "any"),
    "clamp_min": (1, lambda lib, x: lib.clamp_min(x, 0.0), "any"),
    "clamp_max": (1, lambda lib, x: lib.clamp_max(x, 0.0), "any"),
    "heaviside": (2, lambda lib, x, y: lib.heaviside(x, y), "any"),
    "nextafter": (2, lambda lib, x, y: lib.nextafter(x, y), "any"),
    "ldexp": (2, lambda lib, x, y: lib.ldexp(x, y), "any"),
}
INT_OPS = {  # integer-only ops, on int32
    "gcd": (2, lambda lib, x, y: lib.gcd(x, y)),
    "lcm": (2, lambda lib, x, y: lib.lcm(x, y)),
}


def values(domain: str, shape, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    low, high = (0.5, 3.0) if domain == "pos" else (-3.0, 3.0)
    return rng.uniform(low, high, shape).astype(dtype)


def cases(names):
    for name, (arity, call, domain) in OPS.items():
        if not names or name.split("(")[0].split(" ")[0] in names:
            yield name, arity, call, domain, np.float32
    for name, (arity, call) in INT_OPS.items():
        if not names or name in names:
            yield name + " (int32)", arity, call, "any", np.int32


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated op names")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    names = set(args.only.split(",")) if args.only else set()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)

    header = ["op", "10M", "10M transposed", "1 element"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':20s}" + "".join(f"{h:>30s}" for h in header[1:]))
        print(f"{'':20s}" + "   torchlite / torch = ratio   " * 3)
    for name, arity, call, domain, dtype in cases(names):
        cells = []
        for config in ("big", "transposed", "one"):
            shape = (1,) if config == "one" else (SIDE, SIDE)
            arrays = [values(domain, shape, dtype, seed=i) for i in range(arity)]
            if config == "transposed":  # transposed views of contiguous storage
                tl_in = [tl.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
                th_in = [torch.from_numpy(np.ascontiguousarray(a.T)).t() for a in arrays]
            else:
                tl_in = [tl.from_numpy(a) for a in arrays]
                th_in = [torch.from_numpy(a) for a in arrays]
            number = (2000 if args.quick else 20000) if config == "one" else 1
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
