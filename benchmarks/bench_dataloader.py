"""DataLoader: torchlite beside PyTorch in one run.

    python benchmarks/bench_dataloader.py [--quick] [--markdown]

One epoch over a TensorDataset of 60000x784 float32 images and int64 labels (MNIST's shape), and over 20000
3x32x32 float32 images (CIFAR's shape, the issue's 64x3x32x32 batches), batch_size 64, shuffled, with
num_workers 0 and 2 (fork). Each library's epoch time is the median of several epochs, the two
libraries measured alternately; the ratio is torchlite's time over PyTorch's (below 1.0: torchlite is faster).
2 intra-op threads in the main process (workers use 1, as in PyTorch). Worker start-up counts: a fresh iterator
per epoch, as a training loop without persistent_workers does.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import torchlite as tl
import torchlite.utils.data as tld

import torch
import torch.utils.data as tud

BATCH = 64
DATASETS = {"60000x784": (60000, (784,)), "20000x3x32x32": (20000, (3, 32, 32))}


def epoch_seconds(loader, n) -> float:
    t0 = time.perf_counter()
    count = 0
    for x, y in loader:
        count += x.shape[0]
    assert count == n
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="2 epochs per setting instead of 5")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    repeat = 2 if args.quick else 5
    tl.set_num_threads(2)
    torch.set_num_threads(2)

    rows = []
    for name, (n, shape) in DATASETS.items():
        images = np.random.default_rng(0).standard_normal((n, *shape), dtype=np.float32)
        labels = np.random.default_rng(1).integers(0, 10, n)
        ds_tl = tld.TensorDataset(tl.from_numpy(images), tl.from_numpy(labels))
        ds_torch = tud.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
        for workers in (0, 2):
            kw = dict(batch_size=BATCH, shuffle=True, num_workers=workers)
            if workers:
                kw["multiprocessing_context"] = "fork"
            loader_tl = tld.DataLoader(ds_tl, **kw)
            loader_torch = tud.DataLoader(ds_torch, **kw)
            a, b = [], []
            for _ in range(repeat):
                a.append(epoch_seconds(loader_tl, n))
                b.append(epoch_seconds(loader_torch, n))
            rows.append((name, workers, -(-n // BATCH), statistics.median(a), statistics.median(b)))

    if args.markdown:
        print("| dataset | num_workers | torchlite epoch (s) | PyTorch epoch (s) | torchlite batches/s "
              "| PyTorch batches/s | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, w, nb, a, b in rows:
            print(f"| {name} | {w} | {a:.3f} | {b:.3f} | {nb / a:.0f} | {nb / b:.0f} | {a / b:.2f} |")
    else:
        for name, w, nb, a, b in rows:
            print(f"{name} num_workers={w}: torchlite {a:.3f} s ({nb / a:.0f} batches/s), "
                  f"PyTorch {b:.3f} s ({nb / b:.0f} batches/s), ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
