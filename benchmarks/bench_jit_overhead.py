"""The interpreter's per-op overhead: a small MLP on tiny tensors (so each op's arithmetic is negligible
and its time is the call's overhead), eager, scripted, traced and frozen, torchlite beside PyTorch in
one run.

    python benchmarks/bench_jit_overhead.py [--cpu-time] [--repeat 15] [--width 4] [--batch 1]

The MLP is Linear-ReLU-Linear-ReLU-Linear (5 ops) at width 4, batch 1. Per-op overhead is a call's
time over its 5 ops; the issue's goal is a scripted MLP's per-op overhead <= 0.5x eager torchlite's
(column "/ tl eager"). Inference (no_grad), float32, 1 thread, medians of `--repeat` alternating
rounds of 500 calls; --cpu-time times process CPU time (the figure the load of other sessions on the
shared machine disturbs least). Ratios are within one run.
"""
from __future__ import annotations

import argparse
import os
import warnings

import torch

import torchlite as tl

from _timing import median_times, use_cpu_time

N_OPS = 5


def mlp(lib, width):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(width, width), nn.Linear(width, width), nn.Linear(width, width)

        def forward(self, x):
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))
    lib.manual_seed(0)
    return MLP().eval()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    if args.cpu_time:
        use_cpu_time()
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    t_model, p_model = mlp(tl, args.width), mlp(torch, args.width)
    tx, px = tl.randn(args.batch, args.width), torch.randn(args.batch, args.width)
    with tl.no_grad(), torch.no_grad():
        rows = [("torchlite eager", t_model, tx), ("torchlite script", tl.jit.script(t_model), tx),
                ("torchlite trace", tl.jit.trace(t_model, tx), tx),
                ("torchlite script + optimize_for_inference", tl.jit.optimize_for_inference(tl.jit.script(t_model)), tx),
                ("torch eager", p_model, px), ("torch.jit.script", torch.jit.script(p_model), px),
                ("torch.jit.trace", torch.jit.trace(p_model, px), px),
                ("torch.jit.script + optimize_for_inference",
                 torch.jit.optimize_for_inference(torch.jit.script(p_model)), px)]
        for _, m, x in rows:
            assert m(x).shape == (args.batch, args.width)
        times = median_times([lambda m=m, x=x: m(x) for _, m, x in rows], number=500, repeat=args.repeat)
    eager, torch_script = times[0], times[5]
    clock = "process CPU time" if args.cpu_time else "wall time"
    print(f"MLP {args.width}-{args.width}-{args.width}-{args.width}, batch {args.batch} ({N_OPS} ops), {clock}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| run | us per call | us per op | / tl eager | / torch.jit.script |")
    print("|---|---|---|---|---|")
    for (name, _, _), t in zip(rows, times):
        print(f"| {name} | {t * 1e6:.2f} | {t * 1e6 / N_OPS:.2f} | {t / eager:.2f}x | {t / torch_script:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
