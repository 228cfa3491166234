"""Frozen vs traced vs eager inference, torchlite beside PyTorch in one run: an MLP and a small
CNN (conv-bn-relu-pool twice, then linear), each traced, then frozen (torchlite.jit.freeze /
torch.jit.freeze: parameters become constants, batch_norm folds into the conv).

    python benchmarks/bench_jit_freeze.py

Inference under no_grad, float32, 1 thread; the fastest of 15 alternating rounds (the machine is
shared and noisy: medians swing 2x between runs). Ratios are torchlite's time over PyTorch's
(below 1.0: torchlite is faster), and frozen over traced within each library.
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


def cnn(lib):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(16 * 4 * 4, 10)).eval()
    with lib.no_grad():
        for m in model:
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    return model


def main() -> int:
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    cases = (("MLP 64-64-64-10, batch 8", mlp, (8, 64)),
             ("CNN 2x(conv-bn-relu-pool), 4x3x16x16", cnn, (4, 3, 16, 16)))
    for name, make, shape in cases:
        t_model, p_model = make(tl), make(torch)
        tx, px = tl.randn(*shape), torch.randn(*shape)
        t_traced, p_traced = tl.jit.trace(t_model, tx), torch.jit.trace(p_model, px)
        t_frozen, p_frozen = tl.jit.freeze(t_traced), torch.jit.freeze(p_traced)
        with tl.no_grad(), torch.no_grad():
            times = median_times(
                [lambda: t_model(tx), lambda: t_traced(tx), lambda: t_frozen(tx),
                 lambda: p_model(px), lambda: p_traced(px), lambda: p_frozen(px)],
                number=100, repeat=15, fastest=True)
        rows.append((name, times))
    print(f"{'':38s} {'tl eager':>9s} {'tl trace':>9s} {'tl frozen':>9s} {'pt eager':>9s} {'pt trace':>9s}"
          f" {'pt frozen':>9s}   us/call; frozen tl/pt, traced tl/pt, tl frozen/traced")
    for name, (te, tt, tf, pe, pt, pf) in rows:
        print(f"{name:38s} {te * 1e6:9.1f} {tt * 1e6:9.1f} {tf * 1e6:9.1f} {pe * 1e6:9.1f} {pt * 1e6:9.1f}"
              f" {pf * 1e6:9.1f}   {tf / pf:5.2f}x {tt / pt:5.2f}x {tf / tt:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
