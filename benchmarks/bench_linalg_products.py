"""Matrix products and einsum: torchlite beside PyTorch in one run (issue 10's speed rows).

    python benchmarks/bench_linalg_products.py [--quick] [--markdown] [--min] [--cpu-time] [-k matmul|einsum]

Rows: matmul float32/float64 of n x n by n x n (n = 256, 1024, 2048) and batched (64 x 128 x 128,
512 x 32 x 32), reported as GFLOP/s (2 n^3 per product) and the ratio torchlite / PyTorch of
GFLOP/s (at least 1.0: torchlite as fast or faster); then a 3-operand einsum
(`ij,jk,kl->il` with a thin middle, and `bij,bjk,bkl->bil`) beside the best hand-written sequence
of matmuls in torchlite, and PyTorch's einsum. Each figure is the median of several repeats, the
libraries taking turns call by call so load from other processes hits both alike (the einsum rows in a
random order each round, see SHUFFLED). Both use 2 threads.
"""
from __future__ import annotations

import argparse

import numpy as np

import torchlite as tl

import torch

from _timing import median_times, use_cpu_time

THREADS = 2
USE_MIN = False
# The einsum rows call their three functions in a new random order each round (--fixed-order: einsum,
# matmuls, PyTorch's einsum, the order of the figures before 2026-12-06 15:40): in the fixed order einsum always
# ran right after PyTorch's einsum (caches cold) and the hand-written matmuls right after einsum, on the same
# operands (caches warm), which alone moved the ratio by 0.1-0.5 (one thread, CPU time: 1.17 in that order,
# 0.99 with the two torchlite calls swapped).
SHUFFLED = True


def pair(shape, dtype, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def matmul_rows(quick: bool):
    rows = []
    cases = [((256, 256), (256, 256)), ((1024, 1024), (1024, 1024)), ((2048, 2048), (2048, 2048)),
             ((64, 128, 128), (64, 128, 128)), ((512, 32, 32), (512, 32, 32))]
    for dtype in ("float32", "float64"):
        for sa, sb in cases:
            if quick and sa[-1] == 2048:
                continue
            la, ta = pair(sa, dtype, 0)
            lb, tb = pair(sb, dtype, 1)
            flops = 2.0 * np.prod(sa) * sb[-1]
            number = max(1, int(2e8 / flops))
            t_tl, t_torch = median_times([lambda: la @ lb, lambda: ta @ tb], 1, number * (3 if quick else 7),
                                           fastest=USE_MIN)
            g_tl, g_torch = flops / t_tl / 1e9, flops / t_torch / 1e9
            name = f"matmul {dtype} {'x'.join(map(str, sa))} @ {'x'.join(map(str, sb))}"
            rows.append((name, f"{g_tl:.1f} / {g_torch:.1f} GFLOP/s", g_tl / g_torch))
    return rows


def einsum_rows(quick: bool):
    rows = []
    cases = [
        # A (512x512) B (512x16) C (16x512): (A @ B) @ C needs 8M multiply-adds, A @ (B @ C) 17x more
        ("ij,jk,kl->il", [(512, 512), (512, 16), (16, 512)], lambda lib, a, b, c: lib.mm(lib.mm(a, b), c)),
        ("ij,jk,kl->il", [(16, 512), (512, 512), (512, 512)], lambda lib, a, b, c: lib.mm(lib.mm(a, b), c)),
        ("bij,bjk,bkl->bil", [(32, 64, 128), (32, 128, 8), (32, 8, 128)],
         lambda lib, a, b, c: lib.bmm(lib.bmm(a, b), c)),
    ]
    for eq, shapes, best in cases:
        lts, tts = zip(*(pair(s, "float32", i) for i, s in enumerate(shapes)))
        number = 5 if quick else 20
        t_es, t_hand, t_torch = median_times(
            [lambda: tl.einsum(eq, *lts), lambda: best(tl, *lts), lambda: torch.einsum(eq, *tts)],
            1, number * (3 if quick else 7), fastest=USE_MIN, shuffled=SHUFFLED)
        name = f"einsum {eq} {' '.join('x'.join(map(str, s)) for s in shapes)} float32"
        rows.append((name, f"{t_es * 1e3:.3f} ms vs matmuls {t_hand * 1e3:.3f} ms (torch einsum {t_torch * 1e3:.3f} ms)",
                     t_es / t_hand))
    return rows


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats, no 2048 (a smoke run)")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--min", action="store_true", help="fastest call instead of the median")
    p.add_argument("-k", dest="keyword", choices=["matmul", "einsum"], help="only the matmul or the einsum rows")
    p.add_argument("--fixed-order", action="store_true",
                   help="einsum rows: the same call order every round (einsum, matmuls, PyTorch's einsum)")
    p.add_argument("--cpu-time", action="store_true",
                   help="process CPU time instead of wall time (all threads' time added: a library that keeps "
                        "two threads busy is charged for both)")
    args = p.parse_args()
    global USE_MIN, SHUFFLED
    USE_MIN = args.min
    SHUFFLED = not args.fixed_order
    if args.cpu_time:
        use_cpu_time()
    tl.set_num_threads(THREADS)
    torch.set_num_threads(THREADS)
    rows = matmul_rows(args.quick) if args.keyword != "einsum" else []
    erows = einsum_rows(args.quick) if args.keyword != "matmul" else []
    if args.markdown:
        print("| case | torchlite / PyTorch | ratio |\n|---|---|---|")
        for name, fig, r in rows:
            print(f"| {name} | {fig} | **{r:.2f}** (GFLOP/s ratio, target >= 1.0) |")
        for name, fig, r in erows:
            print(f"| {name} | {fig} | **{r:.2f}** (einsum / matmuls, target <= 1.2) |")
    else:
        for name, fig, r in rows + erows:
            print(f"{name:58s} {fig:60s} {r:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
