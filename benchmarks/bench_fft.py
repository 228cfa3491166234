"""torch.fft beside torchlite.fft in one run, and the FFT library candidates measured on the same sizes.

    python benchmarks/bench_fft.py [--quick] [--candidates] [--markdown]

Cases (issue 10's speed targets): fft of complex64 and complex128 signals and rfft of float32/float64
signals of 2^20 and of 1,000,003 (a prime) points; and a batched 2-D case (64 x 256 x 256 complex64
fft2). Medians of several repeats, the libraries measured alternately (benchmarks/_timing.py); the
ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster).

--candidates also times the libraries considered for torchlite.fft through their Python bindings on the
same inputs: ducc0 (pocketfft's successor; ducc0.fft.c2c / r2c) and FFTW (pyFFTW's builders, planned with
FFTW_ESTIMATE and with FFTW_MEASURE, the plan made outside the timing). MKL's figure is torchlite's own
(torchlite.fft calls oneMKL's DFTI directly). Threads: every library left at its default.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair, median_times, print_markdown, print_progress


def cases(quick: bool):
    rng = np.random.default_rng(0)
    for n in (1 << 20, 1_000_003):
        for dt in ("complex64", "complex128"):
            a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
            yield f"fft {dt} n={n}", "fft", a
        for dt in ("float32", "float64"):
            yield f"rfft {dt} n={n}", "rfft", rng.standard_normal(n).astype(dt)
    if not quick:
        a = (rng.standard_normal((64, 256, 256)) + 1j * rng.standard_normal((64, 256, 256))).astype("complex64")
        yield "fft2 complex64 64x256x256", "fft2", a
        yield "irfft float64 n=2^20 (from rfft)", "irfft", np.fft.rfft(rng.standard_normal(1 << 20))


def candidate_fns(kind, a):
    fns = {}
    try:
        import ducc0

        if kind == "fft":
            fns["ducc0"] = lambda: ducc0.fft.c2c(a, forward=True, nthreads=0)
        elif kind == "rfft":
            fns["ducc0"] = lambda: ducc0.fft.r2c(a, forward=True, nthreads=0)
    except ImportError:
        pass
    try:
        import pyfftw

        if kind in ("fft", "rfft"):
            for flag in ("FFTW_ESTIMATE", "FFTW_MEASURE"):
                make = pyfftw.builders.fft if kind == "fft" else pyfftw.builders.rfft
                plan = make(a.copy(), planner_effort=flag, threads=pyfftw.config.NUM_THREADS)
                fns[f"fftw {flag[5:].lower()}"] = plan
    except ImportError:
        pass
    return fns


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats, no 2-D case")
    p.add_argument("--candidates", action="store_true", help="also time ducc0 and FFTW on the 1-D cases")
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = p.parse_args()
    repeat = 3 if args.quick else 9
    rows, cand_rows = [], []
    for name, kind, a in cases(args.quick):
        x, t = tl.tensor(a), torch.tensor(a)
        ours = lambda: getattr(tl.fft, kind)(x)  # noqa: E731
        theirs = lambda: getattr(torch.fft, kind)(t)  # noqa: E731
        a_s, b_s = median_pair(ours, theirs, repeat=repeat)
        row = (name, "forward", a_s, b_s)
        rows.append(row)
        print_progress(row, 34)
        if args.candidates:
            fns = candidate_fns(kind, a)
            if fns:
                names = list(fns)
                times = median_times([theirs, ours] + [fns[n] for n in names], repeat=repeat)
                cand_rows.append((name, times[0], times[1], dict(zip(names, times[2:]))))
                print(f"  torch {times[0] * 1e3:.2f} ms, torchlite (MKL) {times[1] * 1e3:.2f} ms, " +
                      ", ".join(f"{n} {v * 1e3:.2f} ms" for n, v in zip(names, times[2:])), flush=True)
    if args.markdown:
        print()
        print_markdown(rows)
        if cand_rows:
            names = sorted({n for _, _, _, d in cand_rows for n in d})
            print()
            print("| case | torch ms | torchlite (MKL) ms | " + " | ".join(f"{n} ms" for n in names) + " |")
            print("|---|---|---|" + "---|" * len(names))
            for name, tt, ot, d in cand_rows:
                print(f"| {name} | {tt * 1e3:.2f} | {ot * 1e3:.2f} | " +
                      " | ".join(f"{d[n] * 1e3:.2f}" if n in d else "-" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
