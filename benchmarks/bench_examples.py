"""Issue 12's speed rows for the examples: one training epoch of the digits CNN (examples/digits_cnn.py,
1,437 images, batch 64, Adam + OneCycle) and one training step of the character-level GPT
(examples/char_gpt.py's default model: 2 layers, width 64, batch 32 × 64 characters, AdamW + clipping),
torchlite beside PyTorch in one run.

    python benchmarks/bench_examples.py [--threads 2] [--rounds 5] [--markdown]

Each round times torchlite then PyTorch (alternating, the same work, the same seeds); the table gives the
median over rounds of each library's time and of the per-round ratio (torchlite / PyTorch). Data loading is
in memory (num_workers=0) so the rows measure the model, autograd and the optimizer.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from types import SimpleNamespace

import numpy as np
import torch

import torchlite as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
from char_gpt import build_model  # noqa: E402


def digits_epoch(L, images, labels, seed=0):
    """A function running one epoch of the digits CNN in library L (the model built once)."""
    nn = L.nn
    L.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
        nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, 10))
    optimizer = L.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    x_all, y_all = L.tensor(images), L.tensor(labels)
    batches = [(x_all[i:i + 64], y_all[i:i + 64]) for i in range(0, len(labels), 64)]
    scheduler = L.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-3, total_steps=100 * len(batches))

    def epoch():
        model.train()
        for x, y in batches:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
        return loss.item()
    return epoch


def gpt_step(L, data, vocab, seed=0):
    """A function running one training step of char_gpt's default model in library L."""
    args = SimpleNamespace(layers=2, heads=4, width=64, dropout=0.2, block_size=64)
    L.manual_seed(seed)
    model = build_model(L, vocab, args)
    optimizer = L.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    source = L.tensor(data)
    gen = L.Generator().manual_seed(seed)

    def step():
        starts = L.randint(len(data) - 65, (32,), generator=gen).tolist()
        x = L.stack([source[s:s + 64] for s in starts])
        y = L.stack([source[s + 1:s + 65] for s in starts])
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        L.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.item()
    return step


def timed(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)

    rng = np.random.default_rng(0)
    images = rng.random((1437, 1, 8, 8), dtype=np.float32)  # the digits' shapes; values do not change the time
    labels = rng.integers(0, 10, 1437)
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "data",
                             "lighthouse.txt")).read()
    chars = sorted(set(text))
    data = np.array([chars.index(c) for c in text], dtype=np.int64)

    rows = [("digits CNN: one epoch (23 steps of batch 64)", lambda L: digits_epoch(L, images, labels), 1),
            ("char-GPT: one training step (batch 32 × 64, 111k parameters)", lambda L: gpt_step(L, data, len(chars)), 10)]
    table = []
    for name, make, repeat in rows:
        ours, theirs = make(tl), make(torch)
        ours(), theirs()  # warm-up
        a, b, r = [], [], []
        for _ in range(args.rounds):
            ta, tb = timed(ours, repeat), timed(theirs, repeat)
            a.append(ta), b.append(tb), r.append(ta / tb)
        table.append((name, 1e3 * statistics.median(a), 1e3 * statistics.median(b), statistics.median(r)))
    if args.markdown:
        print(f"| row ({args.threads} threads) | torchlite (ms) | PyTorch (ms) | ratio |\n|---|---|---|---|")
        for name, ta, tb, ratio in table:
            print(f"| {name} | {ta:.1f} | {tb:.1f} | {ratio:.2f} |")
    else:
        for name, ta, tb, ratio in table:
            print(f"{name:64s} torchlite {ta:8.1f} ms  PyTorch {tb:8.1f} ms  ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
