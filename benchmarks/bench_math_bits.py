"""The lazy conjugate/negative bits (docs/complex.md): what the dispatcher's test of the inputs' bits costs
on the fast path (ops on plain 1-element tensors: per-call overhead), and the ops on conj() views, torchlite
beside PyTorch in one run (alternating calls, medians; ratio = torchlite / PyTorch).

    python benchmarks/bench_math_bits.py [--cpu-time] [--threads 1] [--markdown] [--overhead-only]

--overhead-only prints the fast-path rows alone (to compare builds before/after the bits: run it on each).
"""
from __future__ import annotations

import argparse

import torch

import torchlite as tl
from _timing import add_run_args, apply_run_args, median_times


def overhead_cases():
    a, b = tl.ones(1), tl.ones(1)
    ta, tb = torch.ones(1), torch.ones(1)
    m, tm = tl.ones(2, 2), torch.ones(2, 2)
    return [
        ("a + b (1 element)", lambda: a + b, lambda: ta + tb),
        ("a.mul(b) (1 element)", lambda: a.mul(b), lambda: ta.mul(tb)),
        ("a.neg() (1 element)", lambda: a.neg(), lambda: ta.neg()),
        ("a.add_(b) (1 element)", lambda: a.add_(b), lambda: ta.add_(tb)),
        ("a.sum() (1 element)", lambda: a.sum(), lambda: ta.sum()),
        ("m.t() (2x2 view)", lambda: m.t(), lambda: tm.t()),
        ("torch.cat([a, b])", lambda: tl.cat([a, b]), lambda: torch.cat([ta, tb])),
    ]


def conj_cases():
    g = torch.Generator().manual_seed(0)
    t = torch.randn(1000, 1000, dtype=torch.complex64, generator=g)
    x = tl.from_numpy(t.numpy().copy())
    s, ts = x[:1], t[:1]
    mat, tmat = x[:256, :256].contiguous(), t[:256, :256].contiguous()
    return [
        ("x.conj() (view)", lambda: x.conj(), lambda: t.conj()),
        ("x.conj().imag (neg view)", lambda: x.conj().imag, lambda: t.conj().imag),
        ("c + 1, c = x.conj() (1 element)", lambda: s.conj() + 1, lambda: ts.conj() + 1),
        ("c + 1, c = x.conj() (1M complex64)", lambda: x.conj() + 1, lambda: t.conj() + 1),
        ("c.resolve_conj() (1M complex64)", lambda: x.conj().resolve_conj(), lambda: t.conj().resolve_conj()),
        ("c.mul_(1) in place (1M complex64)", lambda: x.conj().mul_(1), lambda: t.conj().mul_(1)),
        ("a.mH @ a (256x256 complex64)", lambda: mat.mH @ mat, lambda: tmat.mH @ tmat),
    ]


def main() -> int:
    p = argparse.ArgumentParser()
    add_run_args(p)
    p.add_argument("--overhead-only", action="store_true")
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args()
    apply_run_args(args, tl, torch)
    rows = []
    groups = [("fast path", overhead_cases(), 20000)]
    if not args.overhead_only:
        groups.append(("conj view", conj_cases(), 0))
    for kind, cases, number in groups:
        for name, ours, theirs in cases:
            n = number or 20
            if "1 element" in name or "view)" in name:
                n = 20000
            a, b = median_times([ours, theirs], number=n, repeat=args.repeat)
            row = (name, kind, a, b)
            rows.append(row)
            if not args.markdown:
                print(f"{name:36s} {kind:10s} torchlite {a * 1e6:9.2f} us  torch {b * 1e6:9.2f} us  ratio {a / b:5.2f}",
                      flush=True)
    if args.markdown:  # microseconds: the fast-path rows are below a millisecond
        print("| case | pass | torchlite (us) | PyTorch (us) | ratio |")
        print("|---|---|---:|---:|---:|")
        for name, kind, a, b in rows:
            print(f"| {name} | {kind} | {a * 1e6:.2f} | {b * 1e6:.2f} | {a / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
