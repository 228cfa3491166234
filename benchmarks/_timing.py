"""The timer of the benchmark scripts: torchlite's and PyTorch's calls alternate, so that load from other
processes on the shared machine hits both alike, and each figure is a median over repeats.

    from _timing import median_pair, median_times   # the scripts run from this folder

Each function is called once first (page faults of a fresh output, lazy initialisation), then `repeat`
rounds each time every function `number` times in turn; a round's time is divided by `number`.
`number=1, repeat=n` alternates call by call, which spreads bursts of load most evenly.
"""
from __future__ import annotations

import os
import random
import statistics
import time
from typing import Callable, Sequence

# The clock of every figure: wall time, or with use_cpu_time() the process's CPU time (with one thread, the
# figure the load of other processes on the shared machine disturbs least).
_clock = time.perf_counter


def use_cpu_time() -> None:
    """Times from here on are process CPU time (the scripts' --cpu-time)."""
    global _clock
    _clock = time.process_time


def add_run_args(parser, threads: int = 2) -> None:
    """The options most benchmarks share: --threads, --cpu-time, --markdown (see apply_run_args)."""
    parser.add_argument("--threads", type=int, default=threads)
    parser.add_argument("--cpu-time", action="store_true",
                        help="CPU time instead of the wall clock (with --threads 1, the calling thread's)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")


def apply_run_args(args, *libs) -> None:
    """Applies add_run_args' options: each library (torchlite, torch) on args.threads threads, and the clock.
    With one thread the clock is the calling thread's CPU time: process time would also count idle pool threads'
    spin-waits (PyTorch's softmax row read 10 ms instead of 2.6 ms right after the other library's calls)."""
    global _clock
    if args.cpu_time:
        _clock = time.thread_time if args.threads == 1 else time.process_time
    for lib in libs:
        lib.set_num_threads(args.threads)


def alternating_times(fns: Sequence[Callable[[], object]], number: int = 1, repeat: int = 7,
                      shuffled: bool = False) -> list[list[float]]:
    """Seconds per call of each function, one figure per round (fns[i] -> result[i]). With `shuffled`, each
    round calls them in a new (seeded) random order: with a fixed order each function always runs right after
    the same one, and a call that follows another library's (cold caches, its workers still spinning) or one
    that just read the same operands (warm caches) is charged or spared that every time."""
    for f in fns:
        f()
    times: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    rng = random.Random(0)
    for _ in range(repeat):
        if shuffled:
            rng.shuffle(order)
        for i in order:
            start = _clock()
            for _ in range(number):
                fns[i]()
            times[i].append((_clock() - start) / number)
    return times


def median_times(fns: Sequence[Callable[[], object]], number: int = 1, repeat: int = 7,
                 fastest: bool = False, shuffled: bool = False) -> list[float]:
    """Median seconds per call of each function (with `fastest`, its fastest round instead)."""
    pick = min if fastest else statistics.median
    return [pick(t) for t in alternating_times(fns, number, repeat, shuffled)]


def median_pair(ours: Callable[[], object], theirs: Callable[[], object], number: int = 1,
                repeat: int = 7) -> tuple[float, float]:
    """Median seconds per call of torchlite's and PyTorch's version."""
    a, b = median_times([ours, theirs], number, repeat)
    return a, b


def median_pair_fastest(ours: Callable[[], object], theirs: Callable[[], object], number: int = 1,
                        repeat: int = 7) -> tuple[float, float, float]:
    """median_pair, and the ratio of the two fastest rounds (the steadier figure under heavy load)."""
    a, b = alternating_times([ours, theirs], number, repeat)
    return statistics.median(a), statistics.median(b), min(a) / min(b)


def print_progress(row, width: int) -> None:
    """One (case, pass, torchlite s, PyTorch s) row as a progress line while a script runs."""
    name, kind, ours, theirs = row
    print(f"{name:{width}s} {kind:17s} torchlite {ours * 1e3:9.2f} ms  torch {theirs * 1e3:9.2f} ms  "
          f"ratio {ours / theirs:5.2f}", flush=True)


def print_markdown(rows) -> None:
    """(case, pass, torchlite s, PyTorch s) rows as the markdown table of the scripts' .md files."""
    print("| case | pass | torchlite (ms) | PyTorch (ms) | ratio |")
    print("|---|---|---:|---:|---:|")
    for name, kind, ours, theirs in rows:
        print(f"| {name} | {kind} | {ours * 1e3:.2f} | {theirs * 1e3:.2f} | {ours / theirs:.2f} |")


def load_line(when: str) -> str:
    return f"{when} load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def run_groups(groups, only: str, repeat: int, markdown: bool, warmup=lambda group: 3, rounds=None,
               fastest: bool = False) -> None:
    """Runs the (case, pass, ours, theirs) rows that each `groups[name]()` makes, for the groups whose name starts
    with one of the comma-separated prefixes in `only` (all when empty): `warmup(group)` calls of each function, then
    `rounds(group)` alternating rounds (default `repeat`), each figure their median (`fastest`: the fastest round).
    Prints a progress line per row, or the markdown table at the end, between two load-average lines."""
    prefixes = [s for s in only.split(",") if s]
    print(load_line("start"), flush=True)
    rows = []
    for group, make in groups.items():
        if prefixes and not any(group.startswith(o) for o in prefixes):
            continue
        n = repeat if rounds is None else rounds(group)
        for name, kind, ours, theirs in make():
            for _ in range(warmup(group)):
                ours(), theirs()
            if fastest:
                a, b = (min(t) for t in alternating_times([ours, theirs], 1, n))
            else:
                a, b = median_pair(ours, theirs, 1, n)
            rows.append((name, kind, a, b))
            if not markdown:
                print_progress(rows[-1], 44)
    if markdown:
        print_markdown(rows)
    print(load_line("end"), flush=True)

