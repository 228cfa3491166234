"""Activations: torchlite beside PyTorch in one run (torchlite.nn.functional vs torch.nn.functional).

    python benchmarks/bench_activations.py [--quick] [--only gelu,silu] [--markdown]

For each activation: the forward on 10M float32 contiguous elements, its backward op on 10M
(grad_output and the input, as autograd calls it: `elu_backward`, `gelu_backward`, ...), and the forward
on a 1-element tensor (per-call overhead). Medians of several repeats, the two libraries measured
alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster). 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl
import torchlite.nn.functional as TF

import torch
import torch.nn.functional as F

from _timing import median_pair

SIDE = 3162  # 3162^2 ~ 10M elements

# name -> (forward(F, x), backward(lib, g, x) or None); lib is torch.ops.aten or torchlite._C._internal.
OPS = {
    "relu": (lambda f, x: f.relu(x), None),
    "relu6": (lambda f, x: f.relu6(x), None),
    "leaky_relu": (lambda f, x: f.leaky_relu(x, 0.01), lambda b, g, x: b.leaky_relu_backward(g, x, 0.01, False)),
    "elu": (lambda f, x: f.elu(x), lambda b, g, x: b.elu_backward(g, 1.0, 1.0, 1.0, False, x)),
    "selu": (lambda f, x: f.selu(x), None),
    "celu": (lambda f, x: f.celu(x, 1.5), None),
    "gelu": (lambda f, x: f.gelu(x), lambda b, g, x: b.gelu_backward(g, x)),
    "gelu tanh": (lambda f, x: f.gelu(x, approximate="tanh"), lambda b, g, x: b.gelu_backward(g, x, approximate="tanh")),
    "silu": (lambda f, x: f.silu(x), lambda b, g, x: b.silu_backward(g, x)),
    "mish": (lambda f, x: f.mish(x), lambda b, g, x: b.mish_backward(g, x)),
    "softplus": (lambda f, x: f.softplus(x), lambda b, g, x: b.softplus_backward(g, x, 1.0, 20.0)),
    "softsign": (lambda f, x: f.softsign(x), None),
    "softshrink": (lambda f, x: f.softshrink(x), lambda b, g, x: b.softshrink_backward(g, x, 0.5)),
    "hardshrink": (lambda f, x: f.hardshrink(x), lambda b, g, x: b.hardshrink_backward(g, x, 0.5)),
    "tanhshrink": (lambda f, x: f.tanhshrink(x), None),
    "hardtanh": (lambda f, x: f.hardtanh(x), lambda b, g, x: b.hardtanh_backward(g, x, -1.0, 1.0)),
    "hardsigmoid": (lambda f, x: f.hardsigmoid(x), lambda b, g, x: b.hardsigmoid_backward(g, x)),
    "hardswish": (lambda f, x: f.hardswish(x), lambda b, g, x: b.hardswish_backward(g, x)),
    "logsigmoid": (lambda f, x: f.logsigmoid(x), None),
    "threshold": (lambda f, x: f.threshold(x, 0.1, 20.0), lambda b, g, x: b.threshold_backward(g, x, 0.1)),
    "glu": (lambda f, x: f.glu(x), None),
    "prelu": (lambda f, x: f.prelu(x, x.new_ones(1) * 0.25), None),
    "rrelu (eval)": (lambda f, x: f.rrelu(x), None),
}


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
    rng = np.random.default_rng(0)
    big = rng.uniform(-4.0, 4.0, (SIDE, SIDE)).astype(np.float32)
    grad = rng.uniform(-1.0, 1.0, (SIDE, SIDE)).astype(np.float32)
    one = rng.uniform(-4.0, 4.0, (1,)).astype(np.float32)
    x_tl, x_th = tl.from_numpy(big), torch.from_numpy(big)
    g_tl, g_th = tl.from_numpy(grad), torch.from_numpy(grad)
    o_tl, o_th = tl.from_numpy(one), torch.from_numpy(one)
    pair = rng.uniform(-4.0, 4.0, (2,)).astype(np.float32)  # glu halves its input: 2 elements
    p_tl, p_th = tl.from_numpy(pair), torch.from_numpy(pair)

    header = ["op", "forward 10M", "backward 10M", "forward 1 element"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'':14s}" + "".join(f"{h:>30s}" for h in header[1:]))
    for name, (fwd, bwd) in OPS.items():
        if names and name.split(" ")[0] not in names:
            continue
        cells = [median_pair(lambda: fwd(TF, x_tl), lambda: fwd(F, x_th), 1, rep) + ("ms",)]
        if bwd is not None:
            cells.append(median_pair(lambda: bwd(tl._C._internal, g_tl, x_tl), lambda: bwd(torch.ops.aten, g_th, x_th), 1, rep)
                         + ("ms",))
        else:
            cells.append(None)
        number = 2000 if args.quick else 20000
        s_tl, s_th = (p_tl, p_th) if name == "glu" else (o_tl, o_th)
        cells.append(median_pair(lambda: fwd(TF, s_tl), lambda: fwd(F, s_th), number, rep) + ("us",))
        text = []
        for c in cells:
            if c is None:
                text.append("-")
                continue
            a, b, u = c
            scale = 1e3 if u == "ms" else 1e6
            text.append(f"{a * scale:.2f} / {b * scale:.2f} {u} = **{a / b:.2f}**" if args.markdown
                        else f"{a * scale:8.2f} /{b * scale:8.2f} {u} ={a / b:5.2f}")
        if args.markdown:
            print(f"| `{name}` | " + " | ".join(text) + " |")
        else:
            print(f"{name:14s}" + "".join(f"{t:>30s}" for t in text))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
