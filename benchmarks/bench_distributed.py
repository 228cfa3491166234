"""all_reduce bandwidth across 2 processes: torchlite.distributed (MPI) beside raw mpi4py on the same buffers
and PyTorch's gloo backend, in one run (issue 14's targets at 1 MB and 100 MB: >= 0.9x mpi4py's bandwidth,
>= 1.0x gloo's; 16 B shows the fixed cost per call).

    python benchmarks/bench_distributed.py [--markdown] [--nproc 2] [--fifo] [--no-gloo] [--gloo-between]
                                           [--trace DIR] [--rotate]

starts itself under the installed MPI's mpiexec; --fifo runs rank i pinned to CPU i (taskset) as a SCHED_FIFO
task (chrt -f 10; needs root): on a shared machine, the ranks then have their cores as on an idle one (other
programs wait, a yield never hands the CPU to them, a sleep has no timer slack). Each rank inits torchlite's
process group (MPI) and torch's (gloo, over loopback TCP). torchlite's and mpi4py's all_reduces (float32 SUM, in
place, on the same memory) alternate, each following the other, each call starting from a barrier; gloo's calls
follow in a block of their own in the same processes (a gloo call leaves the caches cold and the ranks' scheduling
disturbed for the MPI call after it: --gloo-between interleaves all three in FOLLOW_ORDER, as the figures before
2026-12-06 15:xx did; --rotate: the plain rotation before that). A call's time is the slowest rank's, and each
figure the median.
--no-gloo leaves gloo out (no gloo group, no gloo threads in the ranks: torchlite against mpi4py alone).
--trace DIR records every round's timestamps per rank (and torchlite's check and data waits with their polls,
yields and sleeps: TORCHLITE_DIST_TRACE=1, torchlite/distributed/_trace.py) into DIR/rank<r>.json and prints
a summary (benchmarks/trace_all_reduce.py); traced figures carry the recording's cost, ~1-2 us per call.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

# (label, bytes, rounds); 16 B: the fixed cost of a call (argument check, Python, MPI's latency)
SIZES = [("16 B", 16, 1000), ("1 MB", 1 << 20, 200), ("100 MB", 100 << 20, 12)]
# The order of the calls, repeated: every library follows every other equally often. A call pays for the one
# before it (gloo's leaves the shared 1 MB buffer out of cache and its threads busy): a plain rotation of three
# (ABC BCA CAB ...) has A follow C twice as often as B, which put torchlite after gloo in 2/3 of its calls and
# mpi4py in 1/3 (bench_distributed.md, 2026-12-06 12:2x). For three: each ordered pair once per cycle.
FOLLOW_ORDER = {1: [0], 2: [0, 1], 3: [0, 1, 2, 0, 2, 1]}


def worker(markdown, gloo=True, trace_dir=None, rotate=False, gloo_between=False):
    import numpy as np
    from mpi4py import MPI

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torchlite as tl
    import torchlite.distributed as dist

    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    if gloo:
        import torch
        import torch.distributed as tdist
        port = [None]
        if rank == 0:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port[0] = s.getsockname()[1]
        dist.broadcast_object_list(port, src=0)
        tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port[0]}", rank=rank, world_size=size)
        torch.set_num_threads(1)
    comm = MPI.COMM_WORLD
    tl.set_num_threads(1)
    tracer = None
    if trace_dir:
        import resource
        from torchlite.distributed import _trace
        tracer = _trace
        getcpu = __import__("ctypes").CDLL(None).sched_getcpu
        RUSAGE_THREAD = resource.RUSAGE_THREAD
        getrusage = resource.getrusage
        trace = {"rank": rank, "sizes": {}}
    rows = []
    for label, nbytes, rounds in SIZES:
        n = nbytes // 4
        ours = tl.zeros(n)  # zeros: sums stay finite round after round
        raw = ours.numpy()  # the same memory, as NumPy hands it to mpi4py
        assert raw.ctypes.data == ours.data_ptr()
        fns = {"torchlite": lambda: dist.all_reduce(ours),
               "mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, raw)}
        if gloo:
            theirs = torch.zeros(n)
            fns["gloo"] = lambda: tdist.all_reduce(theirs)
        times = {k: [] for k in fns}
        for f in fns.values():
            f()
        names = list(fns)
        if rotate:  # the plain rotation of the figures before 2026-12-06 12:30 (biased, see FOLLOW_ORDER)
            order = [name for i in range(rounds) for name in names[i % len(names):] + names[:i % len(names)]]
        elif gloo_between or not gloo:
            cycle = FOLLOW_ORDER[len(names)]
            order = [names[j] for j in cycle] * (rounds * len(names) // len(cycle))
        else:  # the MPI pair alternating, then gloo's block
            order = ["torchlite", "mpi4py"] * rounds + ["gloo"] * rounds
        if tracer:
            tracer.take()
            calls = {name: [] for name in names}
        for name in order:
            f = fns[name]
            comm.Barrier()
            if tracer:
                cpu, ru = getcpu(), getrusage(RUSAGE_THREAD)
            start = time.perf_counter()
            f()
            end = time.perf_counter()
            if tracer:
                ru2 = getrusage(RUSAGE_THREAD)
                calls[name].append([start, end, cpu, getcpu(), ru2.ru_nvcsw - ru.ru_nvcsw,
                                    ru2.ru_nivcsw - ru.ru_nivcsw])
            elapsed = np.array([end - start])
            comm.Allreduce(MPI.IN_PLACE, elapsed, op=MPI.MAX)
            times[name].append(float(elapsed[0]))
        if tracer:
            trace["sizes"][label] = {"calls": calls, "torchlite": tracer.take()}
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((label, nbytes, med))
        if rank == 0 and not markdown:
            line = (f"{label:7s} torchlite {med['torchlite'] * 1e3:8.3f} ms  mpi4py {med['mpi4py'] * 1e3:8.3f} ms  ")
            if gloo:
                line += f"gloo {med['gloo'] * 1e3:8.3f} ms  "
            line += f"bandwidth vs mpi4py {med['mpi4py'] / med['torchlite']:.2f}x"
            if gloo:
                line += f"  vs gloo {med['gloo'] / med['torchlite']:.2f}x"
            print(line, flush=True)
    if rank == 0 and markdown:
        g = (" gloo (ms) |", " bandwidth vs gloo |", "---:|---:|") if gloo else ("", "", "")
        print(f"| all_reduce float32, {size} processes | torchlite (ms) | mpi4py (ms) |{g[0]} torchlite GB/s "
              f"| bandwidth vs mpi4py |{g[1]}")
        print(f"|---|---:|---:|---:|---:|{g[2]}")
        for label, nbytes, med in rows:
            line = f"| {label} | {med['torchlite'] * 1e3:.4f} | {med['mpi4py'] * 1e3:.4f} | "
            if gloo:
                line += f"{med['gloo'] * 1e3:.4f} | "
            line += f"{nbytes / med['torchlite'] / 1e9:.2f} | {med['mpi4py'] / med['torchlite']:.2f} |"
            if gloo:
                line += f" {med['gloo'] / med['torchlite']:.2f} |"
            print(line)
    if tracer:
        import json
        with open(os.path.join(trace_dir, f"rank{rank}.json"), "w") as fh:
            json.dump(trace, fh)
    if gloo:
        tdist.destroy_process_group()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--fifo", action="store_true", help="ranks pinned one per CPU, SCHED_FIFO (emulates idle cores)")
    p.add_argument("--no-gloo", action="store_true", help="torchlite against mpi4py only (no gloo group or threads)")
    p.add_argument("--trace", metavar="DIR", help="record per-round timestamps per rank into DIR, print a summary")
    p.add_argument("--gloo-between", action="store_true", help="gloo's calls interleaved with the MPI pair's")
    p.add_argument("--rotate", action="store_true", help="the earlier plain rotation (biased: see FOLLOW_ORDER)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.markdown, not args.no_gloo, args.trace, args.rotate, args.gloo_between)
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from torchlite.distributed.run import _mpiexec_path
    argv = [sys.executable, os.path.abspath(__file__), "--worker"] + (["--markdown"] if args.markdown else [])
    argv += (["--no-gloo"] if args.no_gloo else []) + (["--rotate"] if args.rotate else [])
    argv += ["--gloo-between"] if args.gloo_between else []
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if args.trace:
        os.makedirs(args.trace, exist_ok=True)
        argv += ["--trace", os.path.abspath(args.trace)]
        env["TORCHLITE_DIST_TRACE"] = "1"
    if args.fifo:  # one MPMD block per rank: mpiexec -n 1 chrt -f 10 taskset -c 0 python ... : -n 1 ...
        cmd = [_mpiexec_path()]
        for r in range(args.nproc):
            cmd += ([":"] if r else []) + ["-n", "1", "chrt", "-f", "10", "taskset", "-c", str(r % os.cpu_count())]
            cmd += argv
    else:
        cmd = [_mpiexec_path(), "-n", str(args.nproc)] + argv
    rc = subprocess.call(cmd, env=env)
    if args.trace and rc == 0:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from trace_all_reduce import summarize
        summarize(args.trace, args.nproc)
    sys.exit(rc)


if __name__ == "__main__":
    main()
