"""nn.Module per-call overhead: torchlite beside PyTorch in one run.

    python benchmarks/bench_module.py [--markdown]

What a module call costs beyond its forward, the thing Module's ``_call_impl`` fast path is for:
a tiny module whose forward returns its input, called directly, with a forward hook, and nested
three deep in Sequential; plus state_dict() and named_parameters() of a 50-layer model and
``clip_grad_norm_`` over 100 gradients. Medians of several repeats, the two libraries measured
alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster).
float32, 2 threads.
"""
from __future__ import annotations

import argparse

import torch

import torchlite as tl

from _timing import median_pair


def cases(lib):
    nn = lib.nn

    class Tiny(nn.Module):
        def forward(self, x):
            return x

    x = lib.ones(1)
    tiny = Tiny()
    hooked = Tiny()
    hooked.register_forward_hook(lambda m, a, out: None)
    nested = nn.Sequential(nn.Sequential(nn.Sequential(Tiny())))
    deep = nn.Sequential(*[nn.PReLU(8) for _ in range(50)])
    grads = [nn.Parameter(lib.ones(64)) for _ in range(100)]
    for p in grads:
        p.grad = lib.ones(64)
    return {
        "call Tiny (forward returns input)": (lambda: tiny(x), 20000),
        "call Tiny with a forward hook": (lambda: hooked(x), 20000),
        "call Sequential^3(Tiny)": (lambda: nested(x), 10000),
        "state_dict() of 50 layers": (lambda: deep.state_dict(), 200),
        "named_parameters() of 50 layers": (lambda: list(deep.named_parameters()), 2000),
        "clip_grad_norm_ over 100 grads": (lambda: nn.utils.clip_grad_norm_(grads, 1e9), 200),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(2)
    tl.set_num_threads(2) if hasattr(tl, "set_num_threads") else None
    ours, theirs = cases(tl), cases(torch)
    rows = []
    for name, (f_tl, number) in ours.items():
        t_tl, t_torch = median_pair(f_tl, theirs[name][0], number, repeat=7)
        rows.append((name, t_tl * 1e6, t_torch * 1e6, t_tl / t_torch))
    if args.markdown:
        print("| case | torchlite (us) | PyTorch (us) | ratio |\n|---|---|---|---|")
        for name, a, b, r in rows:
            print(f"| {name} | {a:.2f} | {b:.2f} | {r:.2f} |")
    else:
        for name, a, b, r in rows:
            print(f"{name:36s} torchlite {a:9.2f} us   torch {b:9.2f} us   ratio {r:5.2f}")


if __name__ == "__main__":
    main()
