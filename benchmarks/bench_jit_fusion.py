"""Elementwise fusion: chains of 5 pointwise ops on 10M float32 elements, torchlite beside PyTorch
in one run.

    python benchmarks/bench_jit_fusion.py [--repeat 9] [--size 10000000] [--threads N] [--cpu-time] [--train]
                                          [--train-memory] [--nnc-interpreter]

Chains: `((x * y + 1).sigmoid() * z).tanh()` (mul, add, sigmoid, mul, tanh: two transcendental
ops, whose arithmetic is most of the work) and `(x * y + z).relu() * 0.5 - x` (mul, add, relu,
mul, sub: arithmetic only, bound by memory traffic). Rows per chain: torchlite eager, torchlite
traced without fusion (the interpreter's node walk), torchlite traced with fusion
(`torchlite.jit.fuser("fuser1")`: one prim::FusionGroup run in cache-sized blocks), PyTorch eager,
and torch.jit.trace as PyTorch runs it by default (CPU fusion off). PyTorch's CPU fuser, NNC
(`torch.jit.fuser("fuser1")`), compiles with LLVM, which the PyPI CPU wheel lacks: it raises
"LLVM Backend not found" (the script says so); `--nnc-interpreter` times one call of NNC's IR
interpreter instead (`_jit_set_te_must_use_llvm_cpu(False)`, over a minute per call at 10M).
Inference (no_grad). Medians of `--repeat` rounds, all rows alternating call by call (the machine
is shared and noisy). Ratios: each row's time over torchlite eager's and over PyTorch eager's.
--cpu-time times process CPU time (with one thread the figure the load of other sessions disturbs
least; with several it sums the threads' time). --train adds a training step per chain: forward
on three leaves requiring grad, `.sum().backward()`, eager beside traced + fused (the group recorded
as one FusionGroupBackward node, which keeps each block's graph from the forward), traced + fused with
the backward running each block's forward again (`_jit_set_fusion_backward_recomputes(True)`, what the
backward did before the block graphs were kept) and PyTorch eager. --train-memory prints the bytes
torchlite's allocator holds after a training step's forward (the output and what the backward
keeps) for eager, fused and fused with the recomputing backward.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np
import torch

import torchlite as tl

from _timing import alternating_times, use_cpu_time


def transcendental(x, y, z):
    return ((x * y + 1).sigmoid() * z).tanh()


def arithmetic(x, y, z):
    return (x * y + z).relu() * 0.5 - x


def nnc_status(p_traced, px, interpreter):
    """What torch.jit.fuser('fuser1') does on this CPU build: its error, or (with `interpreter`) one
    call's time through NNC's IR interpreter."""
    try:
        with torch.jit.fuser("fuser1"):
            for _ in range(3):  # profiling runs, then the optimized graph
                p_traced(*px)
        status = "ran"
    except RuntimeError as e:
        status = f"raises RuntimeError: {e}"
    if interpreter:
        torch._C._jit_set_te_must_use_llvm_cpu(False)
        try:
            with torch.jit.fuser("fuser1"):
                for _ in range(3):
                    p_traced(*px)
                start = time.perf_counter()
                p_traced(*px)
                elapsed = time.perf_counter() - start
                groups = [n.kind() for n in torch.jit.last_executed_optimized_graph().findAllNodes(
                    "prim::TensorExprGroup")]
            status += (f"; with _jit_set_te_must_use_llvm_cpu(False) (NNC's IR interpreter): {elapsed * 1e3:.0f} ms "
                       f"for one call, {len(groups)} prim::TensorExprGroup")
        finally:
            torch._C._jit_set_te_must_use_llvm_cpu(True)
    return status


def run_chain(fn, tx, px, repeat, interpreter):
    traced = tl.jit.trace(fn, tuple(tx))
    p_traced = torch.jit.trace(fn, tuple(px))

    def tl_fused():
        with tl.jit.fuser("fuser1"):
            return traced(*tx)

    with tl.no_grad(), torch.no_grad():
        fused, eager = tl_fused(), fn(*tx)
        same = fused.numpy().tobytes() == eager.numpy().tobytes()
        groups = len(tl.jit.last_executed_optimized_graph().findAllNodes("prim::FusionGroup"))
        nnc = nnc_status(p_traced, px, interpreter)
        for _ in range(3):
            p_traced(*px)
        rows = [("torchlite eager", lambda: fn(*tx)),
                ("torchlite traced, no fusion", lambda: traced(*tx)),
                ("torchlite traced + fused", tl_fused),
                ("torch eager", lambda: fn(*px)),
                ("torch.jit.trace (CPU fusion off: torch's default)", lambda: p_traced(*px))]
        times = alternating_times([f for _, f in rows], number=1, repeat=repeat)
    return rows, [statistics.median(t) for t in times], same, groups, nnc


def run_training(fn, arrays, repeat):
    """One training step per call (forward, .sum().backward(), grads cleared) of each library."""
    tx = [tl.from_numpy(a.copy()).requires_grad_() for a in arrays]
    px = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    traced = tl.jit.trace(fn, tuple(tx), check_trace=False)

    def step(f, xs):
        def run():
            f(*xs).sum().backward()
            for t in xs:
                t.grad = None
        return run

    def fused(*xs):
        with tl.jit.fuser("fuser1"):
            return traced(*xs)

    def recomputing(*xs):
        tl._C._jit._jit_set_fusion_backward_recomputes(True)
        try:
            return fused(*xs)
        finally:
            tl._C._jit._jit_set_fusion_backward_recomputes(False)  # read by the forward only
    with tl.jit.fuser("fuser1"):
        node = traced(*tx).grad_fn.name()
    rows = [("torchlite eager", step(fn, tx)), ("torchlite traced + fused", step(fused, tx)),
            ("torchlite traced + fused, backward recomputes", step(recomputing, tx)),
            ("torch eager", step(fn, px))]
    times = alternating_times([f for _, f in rows], number=1, repeat=repeat)
    return rows, [statistics.median(t) for t in times], node


def train_memory(fn, arrays):
    """Bytes the torchlite allocator holds after a training step's forward (the output and what is kept
    for the backward), per variant, after a warm-up step (the plan made, as in a training loop)."""
    out = {}
    xs = [tl.from_numpy(a.copy()).requires_grad_() for a in arrays]
    traced = tl.jit.trace(fn, tuple(xs), check_trace=False)

    def fused(*a):
        with tl.jit.fuser("fuser1"):
            return traced(*a)
    for variant, run, recompute in (("torchlite eager", fn, False), ("torchlite traced + fused", fused, False),
                                    ("torchlite traced + fused, backward recomputes", fused, True)):
        tl._C._jit._jit_set_fusion_backward_recomputes(recompute)
        try:
            for measure in (False, True):
                for t in xs:
                    t.grad = None
                before = tl._C._cpu_allocated_bytes()
                loss = run(*xs).sum()
                if measure:
                    out[variant] = tl._C._cpu_allocated_bytes() - before
                loss.backward()
                del loss
        finally:
            tl._C._jit._jit_set_fusion_backward_recomputes(False)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, default=None, help="threads for both libraries (default: theirs)")
    parser.add_argument("--nnc-interpreter", action="store_true")
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--train-memory", action="store_true")
    args = parser.parse_args()
    if args.cpu_time:
        use_cpu_time()
    warnings.simplefilter("ignore")
    if args.threads:
        tl.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(args.size).astype(np.float32) for _ in range(3)]
    tx = [tl.from_numpy(a.copy()) for a in arrays]
    px = [torch.from_numpy(a.copy()) for a in arrays]
    print(f"{args.size} float32 elements, {tl.get_num_threads()} torchlite threads, {torch.get_num_threads()} torch "
          f"threads, median of {args.repeat} rounds, fusion block {tl._C._jit._jit_get_fusion_block_size()} elements, "
          f"{'process CPU time' if args.cpu_time else 'wall time'}, load average {os.getloadavg()[0]:.1f}")
    for name, fn in (("((x * y + 1).sigmoid() * z).tanh()", transcendental),
                     ("(x * y + z).relu() * 0.5 - x", arithmetic)):
        rows, med, same, groups, nnc = run_chain(fn, tx, px, args.repeat, args.nnc_interpreter)
        print(f"\n`{name}`: {groups} fusion group(s); fused result bit-identical to torchlite eager: {same}")
        print(f"torch.jit.fuser('fuser1') (NNC): {nnc}")
        print("| run | median ms | / torchlite eager | / torch eager |")
        print("|---|---|---|---|")
        for (row, _), m in zip(rows, med):
            print(f"| {row} | {m * 1e3:.1f} | {m / med[0]:.2f}x | {m / med[3]:.2f}x |")
        print(f"fusion speed-up over torchlite eager: {med[0] / med[2]:.2f}x")
        if args.train:
            rows, med, node = run_training(fn, arrays, args.repeat)
            print(f"\ntraining step (forward + .sum().backward()), grad_fn of the fused output: {node}")
            print("| run | median ms | / torchlite eager | / torch eager |")
            print("|---|---|---|---|")
            for (row, _), m in zip(rows, med):
                print(f"| {row} | {m * 1e3:.1f} | {m / med[0]:.2f}x | {m / med[3]:.2f}x |")
            print(f"fused training step speed-up over torchlite eager: {med[0] / med[1]:.2f}x (backward "
                  f"recomputing: {med[0] / med[2]:.2f}x)")
        if args.train_memory:
            held = train_memory(fn, arrays)
            mb = args.size * 4 / 1e6
            print(f"\ntraining step: torchlite memory held after the forward (output and what the backward keeps; "
                  f"one {args.size}-element float32 tensor is {mb:.0f} MB)")
            print("| run | MB | tensors' worth |")
            print("|---|---|---|")
            for variant, b in held.items():
                print(f"| {variant} | {b / 1e6:.1f} | {b / 1e6 / mb:.2f} |")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
