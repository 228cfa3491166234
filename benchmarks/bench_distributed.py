"""all_reduce bandwidth across 2 processes: torchlite.distributed (MPI) beside raw mpi4py on the same buffers
and PyTorch's gloo backend, in one run (issue 14's targets at 1 MB and 100 MB: >= 0.9x mpi4py's bandwidth,
>= 1.0x gloo's; 16 B shows the fixed cost per call).

    python benchmarks/bench_distributed.py [--markdown] [--nproc 2]

starts itself under the installed MPI's mpiexec; each rank inits torchlite's process group (MPI) and
torch's (gloo, over loopback TCP). The three all_reduces (float32 SUM, in place) alternate round by round,
each round starting from a barrier; a round's time is the slowest rank's, and each figure the median.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

# (label, bytes, rounds); 16 B: the fixed cost of a call (argument check, Python, MPI's latency)
SIZES = [("16 B", 16, 1000), ("1 MB", 1 << 20, 200), ("100 MB", 100 << 20, 11)]


def worker(markdown):
    import numpy as np
    import torch
    import torch.distributed as tdist
    from mpi4py import MPI

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torchlite as tl
    import torchlite.distributed as dist

    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    port = [None]
    if rank == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port[0] = s.getsockname()[1]
    dist.broadcast_object_list(port, src=0)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port[0]}", rank=rank, world_size=size)
    comm = MPI.COMM_WORLD
    torch.set_num_threads(1)
    tl.set_num_threads(1)
    rows = []
    for label, nbytes, rounds in SIZES:
        n = nbytes // 4
        ours = tl.zeros(n)  # zeros: sums stay finite round after round
        raw = ours.numpy()  # the same memory, as NumPy hands it to mpi4py
        assert raw.ctypes.data == ours.data_ptr()
        theirs = torch.zeros(n)
        fns = {"torchlite": lambda: dist.all_reduce(ours),
               "mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, raw),
               "gloo": lambda: tdist.all_reduce(theirs)}
        times = {k: [] for k in fns}
        for f in fns.values():
            f()
        names = list(fns)
        for i in range(rounds):
            # the order rotates: each library follows each other equally often (gloo's threads stay
            # busy a moment after its call)
            for name in names[i % 3:] + names[:i % 3]:
                f = fns[name]
                comm.Barrier()
                start = time.perf_counter()
                f()
                elapsed = np.array([time.perf_counter() - start])
                comm.Allreduce(MPI.IN_PLACE, elapsed, op=MPI.MAX)
                times[name].append(float(elapsed[0]))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((label, nbytes, med))
        if rank == 0 and not markdown:
            print(f"{label:7s} torchlite {med['torchlite'] * 1e3:8.3f} ms  mpi4py {med['mpi4py'] * 1e3:8.3f} ms  "
                  f"gloo {med['gloo'] * 1e3:8.3f} ms  bandwidth vs mpi4py {med['mpi4py'] / med['torchlite']:.2f}x  "
                  f"vs gloo {med['gloo'] / med['torchlite']:.2f}x", flush=True)
    if rank == 0 and markdown:
        print(f"| all_reduce float32, {size} processes | torchlite (ms) | mpi4py (ms) | gloo (ms) | torchlite GB/s "
              "| bandwidth vs mpi4py | bandwidth vs gloo |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for label, nbytes, med in rows:
            print(f"| {label} | {med['torchlite'] * 1e3:.4f} | {med['mpi4py'] * 1e3:.4f} | {med['gloo'] * 1e3:.4f} | "
                  f"{nbytes / med['torchlite'] / 1e9:.2f} | {med['mpi4py'] / med['torchlite']:.2f} | "
                  f"{med['gloo'] / med['torchlite']:.2f} |")
    tdist.destroy_process_group()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.markdown)
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from torchlite.distributed.run import _mpiexec_path
    cmd = [_mpiexec_path(), "-n", str(args.nproc), sys.executable, os.path.abspath(__file__), "--worker"]
    if args.markdown:
        cmd.append("--markdown")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    sys.exit(subprocess.call(cmd, env=env))


if __name__ == "__main__":
    main()
