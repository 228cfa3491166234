"""torchlite.jit beside torch.jit in one run: a traced MLP and a traced chain of small ops run by each
library's interpreter, against each library's eager mode.

    python benchmarks/bench_jit.py

Inference (no_grad) on a small batch, where per-op overhead dominates; the fastest of 15
alternating rounds (the machine is shared: medians swing 2x between runs); ratios are torchlite's
time over PyTorch's (below 1.0: torchlite is faster). float32, 1 thread. The interpreter walks the
graph node by node calling the boxed ops (no fusion yet), so the traced forms show what the
interpreter costs per node beside eager Python dispatch.
"""
from __future__ import annotations

import warnings

import torch

import torchlite as tl

from _timing import median_times


def mlp(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).eval()


def chain(x):
    return ((x * 2 + 1).tanh() - x).relu().sum(1)


def main() -> int:
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for name, make, shape in (("MLP 64-64-64-10, batch 8", mlp, (8, 64)), ("6-op chain, 8x64", lambda lib: chain, (8, 64))):
        t_model, p_model = make(tl), make(torch)
        tx, px = tl.randn(*shape), torch.randn(*shape)
        t_traced = tl.jit.trace(t_model, tx)
        p_traced = torch.jit.trace(p_model, px)
        with tl.no_grad(), torch.no_grad():
            t_eager, t_jit, p_eager, p_jit = median_times(
                [lambda: t_model(tx), lambda: t_traced(tx), lambda: p_model(px), lambda: p_traced(px)],
                number=200, repeat=15, fastest=True)
        rows.append((name, t_eager, t_jit, p_eager, p_jit))
    print(f"{'':28s} {'tl eager':>9s} {'tl trace':>9s} {'pt eager':>9s} {'pt trace':>9s}   us/call;"
          " tl trace / pt trace, tl trace / tl eager")
    for name, te, tj, pe, pj in rows:
        print(f"{name:28s} {te * 1e6:9.1f} {tj * 1e6:9.1f} {pe * 1e6:9.1f} {pj * 1e6:9.1f}   "
              f"{tj / pj:5.2f}x  {tj / te:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
