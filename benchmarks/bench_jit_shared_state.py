"""Per-call cost of a scripted module's state (docs/jit.md, "Assigning module attributes"): torchlite beside
torch.jit.script in one run.

    python benchmarks/bench_jit_shared_state.py [--cpu-time] [--repeat 31]

Rows (a Linear 4-4 on batch 1, so the module's own work is small and the state's cost shows):
- `stateless`: the Linear alone (no state: no copy, no lock);
- `counter`: plus `self.count += 1` (an int copied in and out, the module's lock held from push to pull);
- `list by helper`: plus `put(self.lst, 0, n)`, a helper setting an item of a 16-int list attribute (a run-time
  attribute since the helper changes it: attribute_containers.py);
- `list read`: plus `first(self.lst)`, a helper that only reads it (stays a constant: costs nothing per call).
Inference (no_grad), float32, 1 thread, medians of `--repeat` alternating rounds of 300 calls.
"""

import argparse
import os
import warnings
from typing import List

import torch

import torchlite as tl

from _timing import add_run_args, apply_run_args, median_times


def put(lst: List[int], i: int, v: int):
    lst[i] = v


def first(lst: List[int]) -> int:
    return lst[0]


def models(lib):
    nn = lib.nn

    class Stateless(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)

    class Counter(Stateless):
        def __init__(self):
            super().__init__()
            self.count = 0

        def forward(self, x):
            self.count += 1
            return self.fc(x)

    class ListByHelper(Stateless):
        lst: List[int]

        def __init__(self):
            super().__init__()
            self.lst = list(range(16))

        def forward(self, x):
            put(self.lst, 0, x.dim())
            return self.fc(x)

    class ListRead(ListByHelper):
        def forward(self, x):
            return self.fc(x) + first(self.lst)

    lib.manual_seed(0)
    return [("stateless", Stateless()), ("counter", Counter()), ("list by helper", ListByHelper()),
            ("list read", ListRead())]


def main() -> int:
    parser = argparse.ArgumentParser()
    add_run_args(parser, threads=1)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    apply_run_args(args, tl, torch)
    warnings.simplefilter("ignore")
    tx, px = tl.randn(1, 4), torch.randn(1, 4)
    rows = []
    for (name, tm), (_, pm) in zip(models(tl), models(torch)):
        rows.append((name, tl.jit.script(tm.eval()), torch.jit.script(pm.eval())))
    fns = []
    with tl.no_grad(), torch.no_grad():
        for _, t, p in rows:
            fns += [lambda t=t: t(tx), lambda p=p: p(px)]
        times = median_times(fns, number=300, repeat=args.repeat)
    clock = ("thread CPU time" if args.threads == 1 else "process CPU time") if args.cpu_time else "wall time"
    print(f"scripted module state, Linear 4-4 batch 1, {clock}, load average {os.getloadavg()[0]:.1f}")
    print("| module | torchlite us | torch.jit.script us | ratio |")
    print("|---|---|---|---|")
    for i, (name, _, _) in enumerate(rows):
        t, p = times[2 * i], times[2 * i + 1]
        print(f"| {name} | {t * 1e6:.2f} | {p * 1e6:.2f} | {t / p:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
