"""A small CNN on scikit-learn's handwritten digits (1,797 8x8 images, no download): Conv2d, BatchNorm,
MaxPool, Dropout and Linear layers, a DataLoader with worker processes, Adam with a OneCycle schedule, a
progress bar, the test accuracy, the loss/accuracy curves saved as a PNG, and a checkpoint saved and
reloaded.

    pip install ".[examples]"            # scikit-learn, tqdm, matplotlib
    python examples/digits_cnn.py        # torchlite
    python examples/digits_cnn.py --backend torch   # the same script on PyTorch, for comparison

The script is PyTorch code: only the import differs between the two runs.
"""
from __future__ import annotations

import argparse
import importlib
import os
import tempfile
import time

import numpy as np


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["torchlite", "torch"], default="torchlite")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", default="digits_cnn.png", help="where to save the curves ('' for none)")
    return p.parse_args()


def main():
    args = parse_args()
    torch = importlib.import_module(args.backend)
    nn = torch.nn
    F = nn.functional
    from sklearn.datasets import load_digits
    from tqdm import tqdm
    data_mod = importlib.import_module(args.backend + ".utils.data")

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    digits = load_digits()
    images = (digits.images.astype(np.float32) / 16.0)[:, None]  # (1797, 1, 8, 8) in [0, 1]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(args.seed).permutation(len(labels))
    test_idx, train_idx = order[:360], order[360:]

    def dataset(idx):
        return data_mod.TensorDataset(torch.tensor(images[idx]), torch.tensor(labels[idx]))

    train = data_mod.DataLoader(dataset(train_idx), batch_size=args.batch_size, shuffle=True,
                                num_workers=args.workers, generator=torch.Generator().manual_seed(args.seed),
                                persistent_workers=args.workers > 0)
    test = data_mod.DataLoader(dataset(test_idx), batch_size=256)

    def make_model():
        return nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
            nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, 10))

    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-3, total_steps=args.epochs * len(train))

    def evaluate(m):
        m.eval()
        correct = 0
        with torch.no_grad():
            for x, y in test:
                correct += (m(x).argmax(1) == y).sum().item()
        return correct / len(test_idx)

    history = {"loss": [], "accuracy": []}
    start = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        total, count = 0.0, 0
        bar = tqdm(train, desc=f"epoch {epoch + 1:2d}/{args.epochs}", leave=False)
        for x, y in bar:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(y)
            count += len(y)
            bar.set_postfix(loss=f"{loss.item():.4f}")
        accuracy = evaluate(model)
        history["loss"].append(total / count)
        history["accuracy"].append(accuracy)
        print(f"epoch {epoch + 1:2d}  train loss {total / count:.4f}  test accuracy {accuracy:.2%}")
    elapsed = time.perf_counter() - start
    print(f"{args.backend}: {args.epochs} epochs in {elapsed:.1f}s, test accuracy {history['accuracy'][-1]:.2%}")

    # A checkpoint, saved and loaded into a fresh model: the same accuracy.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits_cnn.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": args.epochs}, path)
        checkpoint = torch.load(path)
        restored = make_model()
        restored.load_state_dict(checkpoint["model"])
        assert evaluate(restored) == history["accuracy"][-1], "the reloaded model disagrees"
        print(f"checkpoint reloaded: test accuracy {evaluate(restored):.2%}")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
        epochs = range(1, args.epochs + 1)
        a.plot(epochs, history["loss"], marker="o")
        a.set_xlabel("epoch"), a.set_ylabel("train loss"), a.set_yscale("log")
        b.plot(epochs, [100 * v for v in history["accuracy"]], marker="o", color="tab:green")
        b.set_xlabel("epoch"), b.set_ylabel("test accuracy (%)")
        fig.suptitle(f"digits CNN ({args.backend})")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"curves saved to {args.plot}")
    if history["accuracy"][-1] < 0.97:
        raise SystemExit(f"test accuracy {history['accuracy'][-1]:.2%} is below the expected 97%")


if __name__ == "__main__":
    main()
