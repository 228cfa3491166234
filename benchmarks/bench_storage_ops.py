"""The storage part of issue 9 beside PyTorch in one run: multinomial and poisson (the same numbers
for a seed in both), scatter_reduce / index_reduce, and the cost of the storage objects.

    python benchmarks/bench_storage_ops.py [--quick]

Medians of several repeats, the two libraries timed alternately; ratio = torchlite's time / PyTorch's.
"""
from __future__ import annotations

import argparse
import warnings

import torchlite as tl

import torch

from _timing import median_pair


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    warnings.simplefilter("ignore")
    data = {}
    for L in (tl, torch):
        L.manual_seed(0)
        data[L] = {
            "probs": L.rand(1000, 1000), "row": L.rand(1_000_000), "rates": L.rand(1_000_000) * 20,
            "self": L.rand(1000, 1000), "src": L.rand(1000, 1000), "scatter_index": L.randint(0, 1000, (1000, 1000)),
            "index": L.randint(0, 1000, (1000,)), "x": L.zeros(1000),
        }
    cases = [
        ("multinomial 1000x1000, 1 sample", lambda L, d: L.multinomial(d["probs"], 1), 1),
        ("multinomial 1000x1000, 100 w/o replacement", lambda L, d: L.multinomial(d["probs"], 100), 1),
        ("multinomial 1000x1000, 100 with replacement", lambda L, d: L.multinomial(d["probs"], 100, True), 1),
        ("multinomial 1M categories, 1000 with repl.", lambda L, d: L.multinomial(d["row"], 1000, True), 1),
        ("poisson 1M rates in [0, 20)", lambda L, d: L.poisson(d["rates"]), 1),
        ("scatter_reduce sum 1M", lambda L, d: d["self"].scatter_reduce(1, d["scatter_index"], d["src"], "sum"), 1),
        ("scatter_reduce amax 1M", lambda L, d: d["self"].scatter_reduce(1, d["scatter_index"], d["src"], "amax"), 1),
        ("scatter_reduce mean 1M", lambda L, d: d["self"].scatter_reduce(1, d["scatter_index"], d["src"], "mean"), 1),
        ("index_reduce prod 1000x1000", lambda L, d: d["self"].index_reduce(0, d["index"], d["src"], "prod"), 1),
        ("index_reduce amax 1000x1000", lambda L, d: d["self"].index_reduce(0, d["index"], d["src"], "amax"), 1),
        ("untyped_storage() (per call)", lambda L, d: d["x"].untyped_storage(), 2000),
        ("storage().tolist() 1000 (per call)", lambda L, d: d["x"].storage().tolist(), 200),
        ("set_(storage, 0, (10,)) (per call)", lambda L, d: L.empty(0).set_(d["x"].untyped_storage(), 0, (10,)), 2000),
        ("multinomial 4 categories (per call)", lambda L, d: L.multinomial(d["x"][:4] + 1, 1), 500),
    ]
    print(f"medians of {rep}")
    print(f"{'':46s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, f, number in cases:
        a, b = median_pair(lambda: f(tl, data[tl]), lambda: f(torch, data[torch]), number=number, repeat=rep)
        unit, scale = ("us", 1e6) if "per call" in name else ("ms", 1e3)
        print(f"{name:46s} {a * scale:8.2f}{unit} {b * scale:8.2f}{unit} {a / b:6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
