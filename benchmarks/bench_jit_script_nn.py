"""Scripted torchlite.nn modules beside PyTorch's in one run: an LSTM, a TransformerEncoderLayer and a
MultiheadAttention (inference, small inputs: the scripted graph's overhead matters), each scripted and eager
in both libraries.

    python benchmarks/bench_jit_script_nn.py [--cpu-time] [--no-compile]

Medians of 11 alternating rounds of 50 calls; float32, 1 thread; the shared machine is noisy (say the load
with the figures). Ratios: torchlite / PyTorch (below 1.0: torchlite faster) for the scripted modules and
for eager, and scripted / eager within torchlite.

Then the compile time (process CPU seconds of `script(module)`), torchlite.jit.script beside
torch.jit.script, each in a fresh process per measurement (both libraries imported and their script
machinery used once on a small function first, so that neither counts its one-time setup): "cold" is the
first module of its class the process scripts, "again" a second instance (each library reuses what it
keeps: torchlite its parsed sources and its compiled methods per concrete type, torch its compiled types).
Medians of 3 processes per library, alternating. `--compile-only` runs only these rows (`--only A,B`: the
cases whose names contain A or B); `--no-type-cache`
turns torchlite's cache of compiled methods off in them (the "before" of that cache, on the same tree),
`--no-call-cache` its cache of compiled call sites (each call site compiles its callee: the "before" of
call_cache.py). `--call-cache-ab N`: torchlite alone, cold script() with that cache off and on in fresh
processes alternating N times per case (medians).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
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


COMPILE_CASES = {
    "MultiheadAttention(64, 4)": lambda nn: nn.MultiheadAttention(64, 4),
    "TransformerEncoderLayer(64, 4, 128)": lambda nn: nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0),
    "TransformerDecoder(2 x TransformerDecoderLayer(64, 4, 128))": lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(64, 4, 128, dropout=0.0), 2),
    "TransformerEncoder(2 x TransformerEncoderLayer(64, 4, 128))": lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0), 2, enable_nested_tensor=False),
    "LSTM(32, 64, 2 layers)": lambda nn: nn.LSTM(32, 64, num_layers=2),
}


def _warm_up_script(lib):
    def f(x, n: int):
        if n > 1:
            return x + n
        return x * 2
    lib.jit.script(f)


def _compile_one(name, which):
    """In this (fresh) process: CPU seconds of scripting COMPILE_CASES[name] with `which` ('tl' or 'torch'),
    cold and again, printed as JSON."""
    warnings.filterwarnings("ignore")
    lib = tl if which == "tl" else torch
    if "--no-type-cache" in sys.argv:
        from torchlite.jit._script import concrete_type
        concrete_type.enabled = False
    if "--no-call-cache" in sys.argv:
        from torchlite.jit._script import call_cache
        call_cache.enabled = False
    _warm_up_script(lib)
    times = []
    for _ in range(2):
        m = COMPILE_CASES[name](lib.nn).eval()
        start = time.process_time()
        lib.jit.script(m)
        times.append(time.process_time() - start)
    print(json.dumps(times))


def compile_rows(repeat=3):
    rows = []
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    for name in COMPILE_CASES:
        if only and not any(o and o in name for o in only.split(",")):
            continue
        got = {"tl": [], "torch": []}
        for _ in range(repeat):
            for which in ("tl", "torch"):
                flags = [f for f in ("--no-type-cache", "--no-call-cache") if f in sys.argv]
                out = subprocess.run([sys.executable, __file__, "--compile-one", name, which] + flags,
                                     capture_output=True, text=True, check=True).stdout
                got[which].append(json.loads(out.strip().splitlines()[-1]))
        med = {w: [statistics.median(t[i] for t in got[w]) for i in range(2)] for w in got}
        rows.append((name, med["tl"], med["torch"]))
    return rows


def call_cache_ab(repeat):
    """torchlite only: cold script() CPU seconds with the call-site cache off and on, in fresh processes
    alternating off / on `repeat` times per case (medians), so that both see the same machine load."""
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    print("| module | cold, call cache off (s) | cold, call cache on (s) | on / off |")
    print("|---|---|---|---|")
    for name in COMPILE_CASES:
        if only and not any(o and o in name for o in only.split(",")):
            continue
        got = {"off": [], "on": []}
        for _ in range(repeat):
            for which, flags in (("off", ["--no-call-cache"]), ("on", [])):
                out = subprocess.run([sys.executable, __file__, "--compile-one", name, "tl"] + flags,
                                     capture_output=True, text=True, check=True).stdout
                got[which].append(json.loads(out.strip().splitlines()[-1])[0])
        off, on = statistics.median(got["off"]), statistics.median(got["on"])
        print(f"| {name} | {off:.3f} | {on:.3f} | {on / off:.2f} |")
    print(f"\nload average: {os.getloadavg()[0]:.1f}")


def _call(m, x, mha):
    return (lambda: m(x, x, x)) if mha else (lambda: m(x))


def main():
    if "--cpu-time" in sys.argv:
        use_cpu_time()
    torch.set_num_threads(1)
    tl.set_num_threads(1) if hasattr(tl, "set_num_threads") else None
    warnings.filterwarnings("ignore")
    if "--call-cache-ab" in sys.argv:
        return call_cache_ab(int(sys.argv[sys.argv.index("--call-cache-ab") + 1]))
    if "--compile-only" in sys.argv:
        return _print_compile_rows()
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
    if "--no-compile" in sys.argv:
        return
    _print_compile_rows()


def _print_compile_rows():
    print("\n| module | torchlite script, cold (s) | torch.jit.script, cold (s) | ratio | torchlite, again (s) | "
          "torch, again (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, (l_cold, l_again), (t_cold, t_again) in compile_rows():
        print(f"| {name} | {l_cold:.3f} | {t_cold:.3f} | {l_cold / t_cold:.2f} | {l_again:.3f} | {t_again:.3f} | "
              f"{l_again / t_again:.2f} |")
    print(f"\nload average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    if "--compile-one" in sys.argv:
        i = sys.argv.index("--compile-one")
        _compile_one(sys.argv[i + 1], sys.argv[i + 2])
    else:
        main()
