"""Elementwise fusion: chains of 5 pointwise ops on 10M float32 elements, torchlite beside PyTorch
in one run.

    python benchmarks/bench_jit_fusion.py [--repeat 9] [--size 10000000] [--threads N] [--cpu-time] [--train]
                                          [--train-memory] [--nnc-interpreter] [--compute-floor]

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
keeps) for eager, fused and fused with the recomputing backward. --compute-floor times each op of a chain
on one in-cache block (the fusion block size), called size / block times: the sum is the kernels' own
arithmetic, the floor of a fused run that calls them (fused / floor near 1: fusion has removed the rest),
and eager / floor is the most fusion could gain with these kernels.
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


# The chains op by op, on block-sized operands (out= where the op has it, as the fused executor calls them).
def transcendental_ops(x, y, z, t):
    return [("mul", lambda: tl.mul(x, y, out=t[0])), ("add", lambda: tl.add(t[0], 1, out=t[1])),
            ("sigmoid", lambda: tl.sigmoid(t[1], out=t[2])), ("mul", lambda: tl.mul(t[2], z, out=t[3])),
            ("tanh", lambda: tl.tanh(t[3], out=t[4]))]


def arithmetic_ops(x, y, z, t):
    return [("mul", lambda: tl.mul(x, y, out=t[0])), ("add", lambda: tl.add(t[0], z, out=t[1])),
            ("relu", lambda: tl.clamp(t[1], min=0, out=t[2])), ("mul", lambda: tl.mul(t[2], 0.5, out=t[3])),
            ("sub", lambda: tl.sub(t[3], x, out=t[4]))]


def compute_floor(make_ops, arrays, size, repeat):
    """Each op's time on operands that stay in cache: one fusion block (block-size elements, the block's own
    values of the chain), called size / block times in a row, so the figure is the op's arithmetic with no
    memory traffic beyond L2 (plus a Python call per block, ~1 us). The sum over the chain is what a fused run
    that still calls these kernels cannot go below; eager's time over it bounds the speed-up fusion can give.
    Also each op on the whole arrays into preallocated outputs (out=): eager's memory traffic without the
    fresh outputs' page faults, which swing with the machine's memory state. (relu is clamp(min=0), the
    same result, for its out= form.)"""
    block = tl._C._jit._jit_get_fusion_block_size()
    x, y, z = (tl.from_numpy(a[:block].copy()) for a in arrays)
    t = [tl.empty(block) for _ in range(5)]
    ops = make_ops(x, y, z, t)
    for _, f in ops:  # the intermediates hold the chain's values (sigmoid sees x * y + 1, ...)
        f()
    blocks = max(1, size // block)

    def loop(f):
        def run():
            for _ in range(blocks):
                f()
        return run
    fx, fy, fz = (tl.from_numpy(a[:blocks * block].copy()) for a in arrays)
    ft = [tl.empty(blocks * block) for _ in range(5)]
    full = make_ops(fx, fy, fz, ft)
    times = alternating_times([loop(f) for _, f in ops] + [f for _, f in full], number=1, repeat=repeat)
    med = [statistics.median(ts) for ts in times]
    return [(n, m) for (n, _), m in zip(ops, med)], [(n, m) for (n, _), m in zip(full, med[len(ops):])]


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
    parser.add_argument("--compute-floor", action="store_true",
                        help="also time each op of the chain on one in-cache block, size / block times")
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
    for name, fn, make_ops in (("((x * y + 1).sigmoid() * z).tanh()", transcendental, transcendental_ops),
                               ("(x * y + z).relu() * 0.5 - x", arithmetic, arithmetic_ops)):
        rows, med, same, groups, nnc = run_chain(fn, tx, px, args.repeat, args.nnc_interpreter)
        print(f"\n`{name}`: {groups} fusion group(s); fused result bit-identical to torchlite eager: {same}")
        print(f"torch.jit.fuser('fuser1') (NNC): {nnc}")
        print("| run | median ms | / torchlite eager | / torch eager |")
        print("|---|---|---|---|")
        for (row, _), m in zip(rows, med):
            print(f"| {row} | {m * 1e3:.1f} | {m / med[0]:.2f}x | {m / med[3]:.2f}x |")
        print(f"fusion speed-up over torchlite eager: {med[0] / med[2]:.2f}x")
        if args.compute_floor:
            floor, full = compute_floor(make_ops, arrays, args.size, args.repeat)
            total, eager_pre = sum(s for _, s in floor), sum(s for _, s in full)
            threads = tl.get_num_threads()
            print(f"ops on one in-cache block x {args.size // tl._C._jit._jit_get_fusion_block_size()} "
                  f"(one thread each; a block is below the parallel grain): "
                  + ", ".join(f"{n} {s * 1e3:.1f} ms" for n, s in floor) + f"; sum {total * 1e3:.1f} ms")
            print("ops on the whole arrays into preallocated outputs (eager without page faults): "
                  + ", ".join(f"{n} {s * 1e3:.1f} ms" for n, s in full) + f"; sum {eager_pre * 1e3:.1f} ms")
            # Wall time: the floor if the threads split the blocks perfectly; CPU time already sums the threads.
            share = total if args.cpu_time else total / threads
            print(f"compute floor {share * 1e3:.1f} ms ({threads} thread(s)): fused / floor {med[2] / share:.2f}, "
                  f"eager / floor {med[0] / share:.2f}, eager preallocated / floor {eager_pre / share:.2f} (the most "
                  f"fusion could gain calling these kernels); fused speed-up over eager preallocated "
                  f"{eager_pre / med[2]:.2f}x")
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
