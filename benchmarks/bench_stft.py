"""torch.stft / istft beside torchlite's in one run: a batch of 16 one-second 16 kHz float32 signals and one
float64 signal of 2^18 points, n_fft 512, hop 128, Hann window (the common audio front end), forward and
backward (gradient of a real loss through the signal).

    python benchmarks/bench_stft.py [--quick] [--markdown] [--cpu-time] [--threads N]

Medians of alternating rounds (benchmarks/_timing.py); ratio = torchlite / PyTorch (below 1.0: torchlite is
faster). Threads: 1 by default on both (the steadier figure on the shared machine).
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair, print_markdown, print_progress, use_cpu_time


def run(m, x, w, backward):
    s = m.stft(x, 512, hop_length=128, window=w, return_complex=True)
    y = m.istft(s, 512, hop_length=128, window=w, length=x.shape[-1])
    if backward:
        (y * y).sum().backward()
    return y


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--cpu-time", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    if args.cpu_time:
        use_cpu_time()
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    warnings.simplefilter("ignore")
    repeat = 3 if args.quick else 9
    rng = np.random.default_rng(0)
    rows = []
    for name, a in (("16 x 16000 float32", rng.standard_normal((16, 16000)).astype("float32")),
                    ("2^18 float64", rng.standard_normal(1 << 18))):
        for backward in (False, True):
            def ours():
                x = tl.tensor(a, requires_grad=backward)
                return run(tl, x, tl.hann_window(512, dtype=x.dtype), backward)

            def theirs():
                x = torch.tensor(a, requires_grad=backward)
                return run(torch, x, torch.hann_window(512, dtype=x.dtype), backward)

            o, t = median_pair(ours, theirs, repeat=repeat)
            row = (f"stft+istft {name}", "forward+backward" if backward else "forward", o, t)
            rows.append(row)
            print_progress(row, 30)
    if args.markdown:
        print()
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
