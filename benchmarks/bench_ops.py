"""torchlite beside PyTorch and NumPy in one run: per-call overhead, large pointwise ops, matmul.

    python benchmarks/bench_ops.py [--quick]

Every figure is the median of several repeats; the table's ratios are torchlite's time divided
by the peer's (below 1.0: torchlite is faster). Both libraries use 2 threads.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import timeit

import numpy as np

import torchlite as tl

try:
    import torch
except ImportError:  # the peer is optional; the table then shows NumPy only
    torch = None


def bench(stmt, number: int, repeat: int) -> float:
    """Median seconds per call."""
    times = timeit.repeat(stmt, number=number, repeat=repeat)
    return statistics.median(times) / number


def row(name: str, tl_s: float, torch_s: float | None, np_s: float | None, unit: float, unit_name: str):
    def fmt(s):
        return "-" if s is None else f"{s / unit:9.2f}"

    def ratio(peer):
        return "-" if peer is None else f"{tl_s / peer:6.2f}x"

    print(f"{name:38s} {fmt(tl_s)} {fmt(torch_s)} {fmt(np_s)} {unit_name:3s}  "
          f"vs torch {ratio(torch_s)}  vs numpy {ratio(np_s)}")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(2)
    if torch is not None:
        torch.set_num_threads(2)
    print(f"{'':38s} {'torchlite':>9s} {'torch':>9s} {'numpy':>9s}")

    # Per-call overhead on 1-element tensors.
    a, b = tl.ones(1), tl.ones(1)
    na, nb = np.ones(1, np.float32), np.ones(1, np.float32)
    ta, tb = (torch.ones(1), torch.ones(1)) if torch else (None, None)
    n = 20000 if args.quick else 200000
    row("a + b (1 element)", bench(lambda: a + b, n, rep), torch and bench(lambda: ta + tb, n, rep),
        bench(lambda: na + nb, n, rep), 1e-6, "us")
    row("a.add(b) (1 element)", bench(lambda: a.add(b), n, rep), torch and bench(lambda: ta.add(tb), n, rep),
        None, 1e-6, "us")
    row("torchlite.add(a, b, alpha=2)", bench(lambda: tl.add(a, b, alpha=2), n, rep),
        torch and bench(lambda: torch.add(ta, tb, alpha=2), n, rep), None, 1e-6, "us")
    row("a.sum() (1 element)", bench(lambda: a.sum(), n, rep), torch and bench(lambda: ta.sum(), n, rep),
        bench(lambda: na.sum(), n, rep), 1e-6, "us")
    row("x[0] (basic indexing)", bench(lambda: a[0], n, rep), torch and bench(lambda: ta[0], n, rep),
        bench(lambda: na[0], n, rep), 1e-6, "us")

    # Large pointwise ops: 10M float32, contiguous and transposed.
    side = 3162
    x_np = np.random.default_rng(0).standard_normal((side, side), dtype=np.float32)
    y_np = np.random.default_rng(1).standard_normal((side, side), dtype=np.float32)
    x, y = tl.from_numpy(x_np), tl.from_numpy(y_np)
    tx, ty = (torch.from_numpy(x_np), torch.from_numpy(y_np)) if torch else (None, None)
    m = 3 if args.quick else 10
    for label, f_tl, f_torch, f_np in [
        ("add 10M f32", lambda: x + y, lambda: tx + ty, lambda: x_np + y_np),
        ("mul 10M f32", lambda: x * y, lambda: tx * ty, lambda: x_np * y_np),
        ("exp 10M f32", lambda: x.exp(), lambda: tx.exp(), lambda: np.exp(x_np)),
        ("add 10M f32 transposed", lambda: x.t() + y.t(), lambda: tx.t() + ty.t(), lambda: x_np.T + y_np.T),
        ("mul 10M f32 transposed", lambda: x.t() * y, lambda: tx.t() * ty, lambda: x_np.T * y_np),
        ("exp 10M f32 transposed", lambda: x.t().exp(), lambda: tx.t().exp(), lambda: np.exp(x_np.T)),
        ("sum 10M f32", lambda: x.sum(), lambda: tx.sum(), lambda: x_np.sum()),
    ]:
        row(label, bench(f_tl, m, rep), torch and bench(f_torch, m, rep), bench(f_np, m, rep), 1e-3, "ms")

    # Matrix multiply through BLAS.
    for k, dt, npdt in [(1024, tl.float32, np.float32), (1024, tl.float64, np.float64), (256, tl.float32, np.float32)]:
        p_np = np.random.default_rng(2).standard_normal((k, k)).astype(npdt)
        q_np = np.random.default_rng(3).standard_normal((k, k)).astype(npdt)
        p_, q_ = tl.from_numpy(p_np), tl.from_numpy(q_np)
        tp, tq = (torch.from_numpy(p_np), torch.from_numpy(q_np)) if torch else (None, None)
        reps = 3 if args.quick else 10
        row(f"matmul {k}x{k} {str(dt).split('.')[-1]}", bench(lambda: p_ @ q_, reps, rep),
            torch and bench(lambda: tp @ tq, reps, rep), bench(lambda: p_np @ q_np, reps, rep), 1e-3, "ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
