"""torchlite.jit.trace_module beside torch.jit.trace_module: the time to trace a small model's `forward` and
`encode` (check_trace on, as by default), and the per-call time of the traced `forward` and of the ScriptMethod
`traced.encode(a, b)` (the Python side of a traced method's call is most of it at this size). Medians of
alternating rounds (_timing.py); one thread's CPU time with --threads 1 --cpu-time.

    cd benchmarks && PYTHONPATH=.. python bench_jit_trace_module.py --threads 1 --cpu-time --repeat 31
"""
from __future__ import annotations

import argparse
import warnings

import torch
from _timing import add_run_args, apply_run_args, load_line, median_pair

import torchlite as tl


def make(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(16, 16)

        def forward(self, x):
            return self.lin(x).relu()

        def half(self, x):
            return self.lin(x) * 0.5

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()
            self.w = lib.nn.Parameter(lib.ones(16))

        def forward(self, x):
            return self.sub(x) + self.w

        def encode(self, a, b):
            return self.sub.half(a) * b, a + 1
    return Net().eval()


def main():
    parser = argparse.ArgumentParser()
    add_run_args(parser, threads=1)
    parser.add_argument("--repeat", type=int, default=31)
    args = parser.parse_args()
    apply_run_args(args, tl, torch)
    warnings.simplefilter("ignore")
    print(load_line("before"))
    nets = {tl: make(tl), torch: make(torch)}
    inputs = {lib: {"forward": lib.ones(4, 16), "encode": (lib.ones(4, 16), lib.ones(4, 16) * 2)} for lib in nets}
    traced = {lib: lib.jit.trace_module(nets[lib], inputs[lib]) for lib in nets}
    rows = [
        ("trace_module (2 methods, checked)",
         *median_pair(lambda: tl.jit.trace_module(nets[tl], inputs[tl]),
                      lambda: torch.jit.trace_module(nets[torch], inputs[torch]), number=1, repeat=args.repeat)),
        ("traced(x)",
         *median_pair(lambda: traced[tl](inputs[tl]["forward"]), lambda: traced[torch](inputs[torch]["forward"]),
                      number=200, repeat=args.repeat)),
        ("traced.encode(a, b)",
         *median_pair(lambda: traced[tl].encode(*inputs[tl]["encode"]),
                      lambda: traced[torch].encode(*inputs[torch]["encode"]), number=200, repeat=args.repeat)),
    ]
    for name, ours, theirs in rows:
        print(f"{name:36s} torchlite {ours * 1e6:10.1f} us  torch {theirs * 1e6:10.1f} us  ratio {ours / theirs:5.2f}")
    print(load_line("after"))


if __name__ == "__main__":
    with tl.no_grad(), torch.no_grad():
        main()
