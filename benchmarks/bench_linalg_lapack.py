"""torch.linalg on LAPACK: torchlite beside PyTorch in one run (issue 10's speed rows).

    python benchmarks/bench_linalg_lapack.py [--quick] [--markdown] [--min] [--cpu-time] [-k cholesky]
                                             [--dtypes complex64,complex128]

Rows: each op on a 512 x 512 matrix and on a batch of 64 x 32 x 32 matrices, float32 and float64,
well conditioned (a random matrix plus n on the diagonal): time per call of each library and the
ratio torchlite / PyTorch (at most 1.2: within 1.2x of PyTorch). `--dtypes` picks the dtypes (complex64 and
complex128 run the c/z LAPACK routines; `eig` is geev, complex output for every dtype). Each figure is the median of several
repeats (or, with --min, the fastest call), the libraries taking turns call by call so that load from
other processes hits both alike. Both use 2 threads.
"""
from __future__ import annotations

import argparse

import numpy as np

import torchlite as tl

import torch

from _timing import median_times, use_cpu_time

THREADS = 2
USE_MIN = False


def pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    if shape[-1] == shape[-2]:
        a = a + shape[-1] * np.eye(shape[-1])  # well conditioned (and positive definite after a @ a.T)
    a = a.astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


# op name -> callable(lib, A, B, S): B is a right-hand side with A's batch and 16 columns, S = A A^T
# (symmetric positive definite)
OPS = {
    "solve": lambda lib, a, b, s: lib.linalg.solve(a, b),
    "inv": lambda lib, a, b, s: lib.linalg.inv(a),
    "cholesky": lambda lib, a, b, s: lib.linalg.cholesky(s),
    "svd": lambda lib, a, b, s: lib.linalg.svd(a, full_matrices=False),
    "det": lambda lib, a, b, s: lib.linalg.det(a),
    "eigh": lambda lib, a, b, s: lib.linalg.eigh(s),
    "qr": lambda lib, a, b, s: lib.linalg.qr(a),
    "eig": lambda lib, a, b, s: lib.linalg.eig(a),
}


def rows(quick: bool, keyword: str | None = None, dtypes=("float32", "float64")):
    out = []
    for name, op in OPS.items():
        if keyword and keyword not in name:
            continue
        for dtype in dtypes:
            for shape in [(512, 512), (64, 32, 32)]:
                la, ta = pair(shape, dtype, 0)
                lb, tb = pair(shape[:-1] + (16,), dtype, 1)
                ls = la @ la.mH  # Hermitian positive definite (A A^T for real dtypes)
                ts = ta @ ta.mH
                number = 2 if quick else 5
                t_tl, t_torch = median_times([lambda: op(tl, la, lb, ls), lambda: op(torch, ta, tb, ts)], 1,
                                             number * (2 if quick else 5), fastest=USE_MIN)
                label = f"{name} {dtype} {'x'.join(map(str, shape))}"
                out.append((label, f"{t_tl * 1e3:.3f} ms / {t_torch * 1e3:.3f} ms", t_tl / t_torch))
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--min", action="store_true", help="fastest call instead of the median")
    p.add_argument("--cpu-time", action="store_true",
                   help="process CPU time instead of wall time (all threads' time added: a library that keeps "
                        "two threads busy is charged for both)")
    p.add_argument("-k", dest="keyword", help="only the ops whose name contains this")
    p.add_argument("--dtypes", default="float32,float64", help="comma-separated: float32,float64,complex64,complex128")
    args = p.parse_args()
    global USE_MIN
    USE_MIN = args.min
    if args.cpu_time:
        use_cpu_time()
    tl.set_num_threads(THREADS)
    torch.set_num_threads(THREADS)
    table = rows(args.quick, args.keyword, tuple(args.dtypes.split(",")))
    if args.markdown:
        print("| case | torchlite / PyTorch | ratio |\n|---|---|---|")
        for name, fig, r in table:
            print(f"| {name} | {fig} | **{r:.2f}** (time ratio, target <= 1.2) |")
    else:
        for name, fig, r in table:
            print(f"{name:36s} {fig:36s} {r:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
