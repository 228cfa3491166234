"""`a.mH @ b` for complex64/complex128 (docs/complex.md, "Products of conj operands"): torchlite beside PyTorch
in one run (alternating calls, medians; ratio = torchlite / PyTorch).

Rows per dtype and size n (n x n operands):
  a.mH @ b           the conj operand read by the BLAS through its conjugate-transpose op (this work)
  before: resolved   what the dispatcher's fallback did before: a.mH.resolve_conj() @ b (one extra pass)
  a @ b              the plain product, for reference
  a.conj() @ b       a conj operand read as stored: conjugated while it is packed (both libraries copy it)
  a.mH @ v           matrix-vector (gemv with ConjTrans), and its resolve-first "before" row

    python benchmarks/bench_conj_matmul.py [--threads 1] [--cpu-time] [--markdown] [--sizes 256 1024]
"""
from __future__ import annotations

import argparse

import torch

import torchlite as tl
from _timing import add_run_args, apply_run_args, median_times


def cases(dtype: str, n: int):
    g = torch.Generator().manual_seed(0)
    td = getattr(torch, dtype)
    ta = torch.randn(n, n, dtype=td, generator=g)
    tb = torch.randn(n, n, dtype=td, generator=g)
    tv = torch.randn(n, dtype=td, generator=g)
    a, b, v = (tl.from_numpy(t.numpy().copy()) for t in (ta, tb, tv))
    return [
        ("a.mH @ b", lambda: a.mH @ b, lambda: ta.mH @ tb),
        ("before: a.mH.resolve_conj() @ b", lambda: a.mH.resolve_conj() @ b, lambda: ta.mH.resolve_conj() @ tb),
        ("a @ b", lambda: a @ b, lambda: ta @ tb),
        ("a.conj() @ b", lambda: a.conj() @ b, lambda: ta.conj() @ tb),
        ("a.mH @ v", lambda: a.mH @ v, lambda: ta.mH @ tv),
        ("before: a.mH.resolve_conj() @ v", lambda: a.mH.resolve_conj() @ v, lambda: ta.mH.resolve_conj() @ tv),
    ]


def main() -> int:
    p = argparse.ArgumentParser()
    add_run_args(p)
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    apply_run_args(args, tl, torch)
    rows = []
    for dtype in ("complex64", "complex128"):
        for n in args.sizes:
            for name, ours, theirs in cases(dtype, n):
                number = 1 if n >= 1024 and "@ v" not in name else (20 if n <= 256 or "@ v" in name else 1)
                a, b = median_times([ours, theirs], number=number, repeat=args.repeat)
                rows.append((f"{name} ({dtype}, {n})", a, b))
                if not args.markdown:
                    print(f"{name:34s} {dtype:10s} {n:5d}  torchlite {a * 1e3:9.3f} ms  torch {b * 1e3:9.3f} ms  "
                          f"ratio {a / b:5.2f}", flush=True)
    if args.markdown:
        print("| case | torchlite (ms) | PyTorch (ms) | ratio |")
        print("|---|---:|---:|---:|")
        for name, a, b in rows:
            print(f"| {name} | {a * 1e3:.3f} | {b * 1e3:.3f} | {a / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
