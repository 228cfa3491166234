"""Special functions: torchlite beside PyTorch in one run (erfinv, lgamma, digamma, polygamma,
mvlgamma, i0, logit, xlogy and torch.special's kernels).

    python benchmarks/bench_special.py [--quick] [--only erfinv,i0] [--f64] [--markdown]

For each function: 10M float32 contiguous, the same transposed, and a 1-element float32 tensor
(per-call overhead); `--f64` adds 10M float64. Each figure is the median of several repeats, the
two libraries measured alternately so that load from other processes hits both alike; the ratio
is torchlite's time divided by PyTorch's (below 1.0: torchlite is faster). Both use 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair

SIDE = 3162  # 3162^2 ~ 10M elements

# name -> (call on a library and its inputs, input domains); the domains keep results finite.
CASES = {
    "erfinv": (lambda lib, x: lib.erfinv(x), ["unit"]),
    "lgamma": (lambda lib, x: lib.lgamma(x), ["any"]),
    "digamma": (lambda lib, x: lib.digamma(x), ["any"]),
    "polygamma(1, x)": (lambda lib, x: lib.polygamma(1, x), ["pos"]),
    "polygamma(3, x)": (lambda lib, x: lib.polygamma(3, x), ["pos"]),
    "mvlgamma(x, 2)": (lambda lib, x: lib.mvlgamma(x, 2), ["above1"]),
    "i0": (lambda lib, x: lib.i0(x), ["any"]),
    "logit": (lambda lib, x: lib.logit(x), ["prob"]),
    "logit(eps)": (lambda lib, x: lib.logit(x, 1e-3), ["prob"]),
    "xlogy": (lambda lib, x, y: lib.xlogy(x, y), ["any", "pos"]),
    "special.erfcx": (lambda lib, x: lib.special.erfcx(x), ["any"]),
    "special.i0e": (lambda lib, x: lib.special.i0e(x), ["any"]),
    "special.i1": (lambda lib, x: lib.special.i1(x), ["any"]),
    "special.i1e": (lambda lib, x: lib.special.i1e(x), ["any"]),
    "special.ndtr": (lambda lib, x: lib.special.ndtr(x), ["any"]),
    "special.ndtri": (lambda lib, x: lib.special.ndtri(x), ["prob"]),
    "special.log_ndtr": (lambda lib, x: lib.special.log_ndtr(x), ["any"]),
    "special.entr": (lambda lib, x: lib.special.entr(x), ["pos"]),
    "special.xlog1py": (lambda lib, x, y: lib.special.xlog1py(x, y), ["any", "pos"]),
    "special.zeta": (lambda lib, x, y: lib.special.zeta(x, y), ["above1", "pos"]),
    "special.bessel_j0": (lambda lib, x: lib.special.bessel_j0(x), ["any"]),
    "special.bessel_j1": (lambda lib, x: lib.special.bessel_j1(x), ["any"]),
}


def values(domain: str, shape, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low, high = {"pos": (0.01, 10.0), "unit": (-0.99, 0.99), "above1": (1.5, 10.0),
                 "prob": (0.001, 0.999)}.get(domain, (-5.0, 5.0))
    return rng.uniform(low, high, shape).astype(dtype)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated prefixes of case names (polygamma: both rows)")
    p.add_argument("--f64", action="store_true", help="also 10M float64")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    only = [o.strip() for o in args.only.split(",") if o.strip()]
    names = [n for n in CASES if any(n.startswith(o) for o in only)] if only else list(CASES)
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    configs = ["f32", "f32t"] + (["f64"] if args.f64 else []) + ["one"]
    titles = {"f32": "f32 10M", "f32t": "f32 10M transposed", "f64": "f64 10M", "one": "f32 1 element"}

    if args.markdown:
        print("| function | " + " | ".join(titles[c] for c in configs) + " |")
        print("|" + "---|" * (len(configs) + 1))
    else:
        print(f"{'':20s}" + "".join(f"{titles[c]:>30s}" for c in configs))
        print(f"{'':20s}" + "   torchlite / torch = ratio   " * len(configs))
    for name in names:
        call, domains = CASES[name]
        cells = []
        for config in configs:
            dtype = np.float64 if config == "f64" else np.float32
            shape = (1,) if config == "one" else (SIDE, SIDE)
            arrays = [values(d, shape, dtype, seed=i) for i, d in enumerate(domains)]
            if config == "f32t":  # transposed views of contiguous storage
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
