"""torchlite.jit.script beside torch.jit.script in one run: a scripted MLP (inference, small batch:
per-op overhead), a scripted loop with control flow, each against its library's eager mode.

    python benchmarks/bench_jit_script.py [--cpu-time]

Medians of 15 alternating rounds of 200 calls (the shared machine is noisy: runs differ by 1.5x;
ratios less); float32, 1 thread. Ratios: torchlite / PyTorch (below 1.0: torchlite faster), and
scripted / eager within torchlite. --cpu-time times process CPU time (less disturbed by load).
"""
from __future__ import annotations

import os
import sys
import warnings

import torch

import torchlite as tl

from _timing import median_times, use_cpu_time


def mlp(lib):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(64, 64), nn.Linear(64, 64), nn.Linear(64, 10)

        def forward(self, x):
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))
    lib.manual_seed(0)
    return MLP().eval()


def loop(lib):
    nn = lib.nn

    class Loop(nn.Module):
        def forward(self, x, n: int):
            for i in range(n):
                if i % 2 == 0:
                    x = x * 2
                else:
                    x = x.tanh()
            return x
    return Loop().eval()


def main() -> int:
    if "--cpu-time" in sys.argv:
        use_cpu_time()
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for name, make, shape, extra in (("MLP 64-64-64-10, batch 8", mlp, (8, 64), ()),
                                     ("loop of 8 with if, 8x64", loop, (8, 64), (8,))):
        t_model, p_model = make(tl), make(torch)
        tx, px = tl.randn(*shape), torch.randn(*shape)
        t_s, p_s = tl.jit.script(t_model), torch.jit.script(p_model)
        with tl.no_grad(), torch.no_grad():
            times = median_times([lambda: t_model(tx, *extra), lambda: t_s(tx, *extra), lambda: p_model(px, *extra),
                                  lambda: p_s(px, *extra)], number=200, repeat=15)
        rows.append((name, *times))
    print(f"load average {os.getloadavg()[0]:.1f}; us per call")
    print("| | tl eager | tl script | torch eager | torch.jit.script | script: tl / torch | tl script / eager |")
    print("|---|---|---|---|---|---|---|")
    for name, te, ts, pe, ps in rows:
        print(f"| {name} | {te * 1e6:.1f} | {ts * 1e6:.1f} | {pe * 1e6:.1f} | {ps * 1e6:.1f} | {ts / ps:.2f}x | "
              f"{ts / te:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
