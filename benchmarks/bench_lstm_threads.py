"""Issue 11's LSTM row on several threads: nn.LSTM 2 layers, 256 -> 256, sequence 64, batch 32, forward +
out.sum().backward(), float32; torchlite and PyTorch alternating call by call in one process.

    OMP_WAIT_POLICY=passive python benchmarks/bench_lstm_threads.py [--threads 2] [--repeat 31]

Prints, per library, medians of the wall clock, of the calling thread's CPU time and of the process's CPU time,
and the fastest wall clock. On a loaded shared machine the 2-thread wall clock measures the scheduler more than the
code (OpenMP threads spinning at barriers while the other thread waits for a core); with OMP_WAIT_POLICY=passive
(set before the start: both libraries' OpenMP runtimes read it once) waiting threads sleep, so the process CPU time is
the work done and the calling thread's CPU time, with evenly split work, approximates the quiet wall clock.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

import torchlite as tl


def make(lib, mod, xn):
    x = lib.from_numpy(xn.copy()).requires_grad_()

    def both():
        mod.zero_grad()
        out, _ = mod(x)
        out.sum().backward()
    return both


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=31)
    args = p.parse_args()
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    m = torch.nn.LSTM(256, 256, num_layers=2)
    lm = tl.nn.LSTM(256, 256, num_layers=2)
    with torch.no_grad():
        for (_, tp), (_, lp) in zip(m.named_parameters(), lm.named_parameters()):
            lp.data.copy_(tl.from_numpy(tp.detach().numpy().copy()))
    xn = np.random.default_rng(3).standard_normal((64, 32, 256), dtype=np.float32)
    fns = {"torchlite": make(tl, lm, xn), "torch": make(torch, m, xn)}
    for _ in range(5):
        for f in fns.values():
            f()
    times: dict[str, list[tuple[float, float, float]]] = {k: [] for k in fns}
    start_load = os.getloadavg()[0]
    for _ in range(args.repeat):
        for k, f in fns.items():
            w, t, c = time.perf_counter(), time.thread_time(), time.process_time()
            f()
            times[k].append((time.perf_counter() - w, time.thread_time() - t, time.process_time() - c))
    med = {k: [statistics.median(r[i] for r in v) * 1e3 for i in range(3)] for k, v in times.items()}
    fastest = {k: min(r[0] for r in v) * 1e3 for k, v in times.items()}
    print(f"threads {args.threads}, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}, "
          f"load {start_load:.1f} -> {os.getloadavg()[0]:.1f}, medians of {args.repeat}")
    for k in fns:
        print(f"  {k:10s} wall {med[k][0]:7.1f} ms  calling thread CPU {med[k][1]:7.1f} ms  "
              f"process CPU {med[k][2]:7.1f} ms  fastest wall {fastest[k]:7.1f} ms")
    a, b = med["torchlite"], med["torch"]
    print(f"  ratio      wall {a[0] / b[0]:.2f}  calling thread CPU {a[1] / b[1]:.2f}  process CPU {a[2] / b[2]:.2f}  "
          f"fastest wall {fastest['torchlite'] / fastest['torch']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
