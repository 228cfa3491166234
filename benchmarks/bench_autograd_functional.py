"""autograd.functional, checkpointing and torch.func: torchlite beside PyTorch in one run.

    python benchmarks/bench_autograd_functional.py [--quick] [--markdown] [--threads N]

Each row is a whole call (forward + the backward passes it makes), float32, 2 threads, medians of
several rounds with the two libraries alternating; the ratio is torchlite's time over PyTorch's.
torchlite computes Jacobian-vector products by double backward and vmap as a per-sample loop, and
PyTorch's `vectorize=True`/vmap batch the backward passes: the rows show what that costs.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair


def _mlp(lib, width, depth):
    lib.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [lib.nn.Linear(width, width), lib.nn.Tanh()]
    return lib.nn.Sequential(*layers)


def cases(rng):
    x16 = rng.standard_normal(16).astype(np.float32)
    x256 = rng.standard_normal(256).astype(np.float32)
    batch = rng.standard_normal((64, 512)).astype(np.float32)
    samples = rng.standard_normal((32, 64)).astype(np.float32)
    out = {}
    for lib in (tl, torch):
        F = lib.autograd.functional
        small, wide = _mlp(lib, 16, 2), _mlp(lib, 512, 4)
        lin = lib.nn.Linear(64, 10)
        params = {k: v.detach() for k, v in lin.named_parameters()}
        a16, a256 = lib.from_numpy(x16.copy()), lib.from_numpy(x256.copy())
        b, s = lib.from_numpy(batch.copy()), lib.from_numpy(samples.copy())
        v256 = lib.ones(256)
        ck = lib.utils.checkpoint.checkpoint

        def loss(p, x, lib=lib, lin=lin):
            return lib.func.functional_call(lin, p, (x,)).pow(2).sum()

        out[lib] = {
            "jacobian 16->16 MLP": lambda F=F, m=small, a=a16: F.jacobian(m, a),
            "jacobian vectorize=True": lambda F=F, m=small, a=a16: F.jacobian(m, a, vectorize=True),
            "hessian 16 (scalar MLP)": lambda F=F, m=small, a=a16: F.hessian(lambda x: m(x).sum(), a),
            "jvp 256 (double backward)": lambda F=F, a=a256, v=v256: F.jvp(lambda x: x.sin() * x.exp(), a, v),
            "hvp 256": lambda F=F, a=a256, v=v256: F.hvp(lambda x: (x.sin() * x.exp()).sum(), a, v),
            "MLP 64x512x4 fwd+bwd plain": lambda m=wide, x=b: m(x.requires_grad_()).sum().backward(),
            "  checkpoint use_reentrant=False": lambda m=wide, x=b, ck=ck: ck(m, x, use_reentrant=False).sum().backward(),
            "  checkpoint use_reentrant=True": lambda m=wide, x=b, ck=ck: ck(m, x, use_reentrant=True).sum().backward(),
            "func.vmap(grad) 32 samples": lambda lib=lib, p=params, x=s, loss=loss:
                lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(p, x),
            "func.jacrev 16->16 MLP": lambda lib=lib, m=small, a=a16: lib.func.jacrev(m)(a),
            "func.jacfwd 16->16 MLP": lambda lib=lib, m=small, a=a16: lib.func.jacfwd(m)(a),
        }
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument("--threads", type=int, default=2, help="threads of both libraries (default 2)")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    table = cases(np.random.default_rng(0))
    if args.markdown:
        print("| call | torchlite / PyTorch | ratio |")
        print("|---|---|---|")
    for name in table[tl]:
        a, b = median_pair(table[tl][name], table[torch][name], 1, rep)
        if args.markdown:
            print(f"| {name.strip()} | {a * 1e3:.2f} / {b * 1e3:.2f} ms | **{a / b:.2f}** |")
        else:
            print(f"{name:36s} {a * 1e3:9.2f} / {b * 1e3:9.2f} ms = {a / b:6.2f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
