"""Setting from Python an attribute that a scripted module's compiled code only reads (`scripted.scale = v`):
the per-call cost once set (read at run time) against never set (a constant), and the cost of a set followed by a
call, torchlite beside torch.jit.script in one run.

    python benchmarks/bench_jit_attribute_set.py [--repeat 31]

The module is an MLP 4-4-4 (Linear-ReLU x2, Linear) whose output is multiplied by `self.scale`; inference
(no_grad), 1 thread, process CPU time, medians of `--repeat` rounds (500 calls per round for calls, 200 sets per
round for set+call: a new value each time, or two values alternating)."""
from __future__ import annotations

import argparse
import statistics
import time

import torch

import torchlite as tl


def mlp(lib):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 1.0
            self.fc1, self.fc2, self.fc3 = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x):
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x))))) * self.scale
    lib.manual_seed(0)
    return lib.jit.script(MLP().eval())


def _per_call(m, x, lib, n=500):
    with lib.no_grad():
        t0 = time.process_time()
        for _ in range(n):
            m(x)
        return (time.process_time() - t0) / n * 1e6


def _per_set(m, x, lib, values, n=200):
    with lib.no_grad():
        t0 = time.process_time()
        for i in range(n):
            m.scale = values(i)
            m(x)
        return (time.process_time() - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=31)
    args = ap.parse_args()
    torch.set_num_threads(1)
    tl.set_num_threads(1)
    rows = {}
    mods = {}
    for lib, name in ((tl, "torchlite"), (torch, "torch.jit")):
        constant, set_once = mlp(lib), mlp(lib)
        set_once.scale = 2.0
        mods[name] = (lib, constant, set_once, lib.ones(1, 4))
    for r in range(args.repeat):
        for name, (lib, constant, set_once, x) in mods.items():
            rows.setdefault((name, "call, never set"), []).append(_per_call(constant, x, lib))
            rows.setdefault((name, "call, set once"), []).append(_per_call(set_once, x, lib))
            rows.setdefault((name, "set + call"), []).append(_per_set(set_once, x, lib, lambda i: 1.0 + (i % 2)))
    first = []
    for _ in range(max(3, args.repeat // 5)):  # the first set: one compilation (a new module each time)
        m = mlp(tl)
        x = tl.ones(1, 4)
        t0 = time.process_time()
        m.scale = 3.0
        m(x)
        first.append((time.process_time() - t0) * 1e6)
    print("| library | case | us (median CPU) |")
    print("|---|---|---|")
    for (name, case), v in rows.items():
        print(f"| {name} | {case} | {statistics.median(v):.2f} |")
    print(f"| torchlite | first set + call (compiles) | {statistics.median(first):.0f} |")


if __name__ == "__main__":
    main()
