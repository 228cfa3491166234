"""ctc_loss: torchlite beside PyTorch in one run.

    python benchmarks/bench_ctc_loss.py [--quick] [--markdown]

ctc_loss (mean reduction) of log_softmax'd (T, N, C) float32 inputs with padded targets of length S, forward
and forward+backward. Medians of several repeats, the two libraries measured alternately; the ratio is
torchlite's time over PyTorch's (below 1.0: torchlite is faster). float32, 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import torchlite as tl

import torch

from _timing import median_pair, print_markdown, print_progress

CASES = [(50, 4, 20, 10), (200, 16, 32, 40), (400, 8, 64, 100)]  # T, N, C, S


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    rows = []
    for T, N, C, S in CASES:
        logits = rng.standard_normal((T, N, C), dtype=np.float32)
        lp = torch.from_numpy(logits).log_softmax(2).numpy()
        targets = rng.integers(1, C, (N, S))
        input_lengths = [T] * N
        target_lengths = [S - i % 3 for i in range(N)]

        def run(lib, backward):
            x = lib.from_numpy(lp)
            if backward:
                x.requires_grad_()
            loss = lib.nn.functional.ctc_loss(x, lib.from_numpy(targets), input_lengths, target_lengths)
            if backward:
                loss.backward()
            return loss

        name = f"ctc_loss T={T} N={N} C={C} S={S}"
        rows.append((name, "forward", *median_pair(lambda: run(tl, False), lambda: run(torch, False), 1, rep)))
        rows.append((name, "forward+backward", *median_pair(lambda: run(tl, True), lambda: run(torch, True), 1, rep)))
        if not args.markdown:
            for r in rows[-2:]:
                print_progress(r, 34)
    if args.markdown:
        print_markdown(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
