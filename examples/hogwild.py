"""Hogwild training: two processes update one model in shared memory at the same time, without locks.

    python examples/hogwild.py                    # torchlite
    python examples/hogwild.py --backend torch    # the same script on PyTorch, for comparison

The model's parameters are moved to shared memory (`model.share_memory()`); `multiprocessing.spawn` starts
the workers, which receive the model pickled through shared memory, so each optimizer step writes the one
copy of the weights every process (and the parent) reads. Each worker trains on its own shard of a synthetic
4-class problem (Gaussian blobs, no download); the parent then evaluates the shared model. Runs in seconds.
"""
from __future__ import annotations

import argparse
import importlib
import time


def make_data(torch, n, seed):
    """n points in 2-D around 4 centres, labelled by centre (with some overlap)."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.tensor([[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
    labels = torch.randint(0, 4, (n,), generator=g)
    points = centres[labels] + 1.2 * torch.randn(n, 2, generator=g)
    return points, labels


def make_model(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 4))


def train(rank, backend, model, epochs, batch_size, lr):
    """One Hogwild worker: plain SGD on this rank's shard, writing the shared parameters in place."""
    torch = importlib.import_module(backend)
    torch.set_num_threads(1)
    torch.manual_seed(rank)
    points, labels = make_data(torch, 2000, seed=100 + rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.5)
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for idx in torch.randperm(len(points)).split(batch_size):
            optimizer.zero_grad()
            loss_fn(model(points[idx]), labels[idx]).backward()
            optimizer.step()


def accuracy(torch, model):
    points, labels = make_data(torch, 4000, seed=0)
    with torch.no_grad():
        return (model(points).argmax(1) == labels).float().mean().item()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["torchlite", "torch"], default="torchlite")
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args(argv)
    torch = importlib.import_module(args.backend)
    mp = importlib.import_module(f"{args.backend}.multiprocessing")

    torch.manual_seed(0)
    model = make_model(torch)
    model.share_memory()  # the parameters' bytes move to shared memory; the workers map the same pages
    before = accuracy(torch, model)
    t0 = time.perf_counter()
    mp.spawn(train, args=(args.backend, model, args.epochs, args.batch_size, args.lr), nprocs=args.processes)
    seconds = time.perf_counter() - t0
    after = accuracy(torch, model)
    print(f"{args.backend}: {args.processes} Hogwild processes, {args.epochs} epochs each in {seconds:.1f} s; "
          f"test accuracy {before:.3f} before, {after:.3f} after")
    return after


if __name__ == "__main__":
    main()
