"""Scripted torchlite.nn modules beside PyTorch's in one run: an LSTM, a TransformerEncoderLayer and a
MultiheadAttention (inference, small inputs: the scripted graph's overhead matters), each scripted and eager
in both libraries.

    python benchmarks/bench_jit_script_nn.py [--cpu-time]

Medians of 11 alternating rounds of 50 calls; float32, 1 thread; the shared machine is noisy (say the load
with the figures). Ratios: torchlite / PyTorch (below 1.0: torchlite faster) for the scripted modules and
for eager, and scripted / eager within torchlite.
"""
from __future__ import annotations

import os
import sys
import warnings

import torch

import torchlite as tl

from _timing import median_times, use_cpu_time

CASES = {
    "LSTM(32, 64, 2 layers), seq 20, batch 8": (lambda nn: nn.LSTM(32, 64, num_layers=2), (20, 8, 32)),
    "TransformerEncoderLayer(64, 4, 128), seq 16, batch 4": (
        lambda nn: nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0), (16, 4, 64)),
    "MultiheadAttention(64, 4), self-attention, seq 16, batch 4": (lambda nn: nn.MultiheadAttention(64, 4),
                                                                  (16, 4, 64)),
}


def _call(m, x, mha):
    return (lambda: m(x, x, x)) if mha else (lambda: m(x))


def main():
    if "--cpu-time" in sys.argv:
        use_cpu_time()
    torch.set_num_threads(1)
    tl.set_num_threads(1) if hasattr(tl, "set_num_threads") else None
    warnings.filterwarnings("ignore")
    rows = []
    for name, (build, shape) in CASES.items():
        torch.manual_seed(0)
        tm = build(torch.nn).eval()
        lm = build(tl.nn).eval()
        lm.load_state_dict({k: tl.from_numpy(v.numpy().copy()) for k, v in tm.state_dict().items()})
        x = torch.randn(*shape)
        lx = tl.from_numpy(x.numpy().copy())
        mha = "MultiheadAttention" in name
        ts, ls = torch.jit.script(tm), tl.jit.script(lm)
        ts = ts if hasattr(ts, "forward") else tm
        with torch.no_grad(), tl.no_grad():
            times = median_times([_call(ls, lx, mha), _call(ts, x, mha), _call(lm, lx, mha), _call(tm, x, mha)],
                                 number=50, repeat=11)
        rows.append((name, *[t * 1e6 for t in times]))
    print("| module | torchlite script µs | torch.jit.script µs | ratio | torchlite eager µs | torch eager µs | "
          "ratio | tl script / eager |")
    print("|---|---|---|---|---|---|---|---|")
    for name, ls_t, ts_t, le_t, te_t in rows:
        print(f"| {name} | {ls_t:.0f} | {ts_t:.0f} | {ls_t / ts_t:.2f} | {le_t:.0f} | {te_t:.0f} | {le_t / te_t:.2f} | "
              f"{ls_t / le_t:.2f} |")
    print(f"\nload average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
