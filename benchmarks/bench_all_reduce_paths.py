"""Where torchlite's all_reduce time goes, 2 processes: torchlite's call beside the MPI paths it could take, on
the same buffer, in one run (medians; "vs mpi4py" = mpi4py's time / this time, above 1.0 faster).

    python benchmarks/bench_all_reduce_paths.py [--rounds 400]

- torchlite: dist.all_reduce(t) on a tensor reduced before (the short path: argument check, persistent request);
- mpi4py blocking: comm.Allreduce(MPI.IN_PLACE, array), MPICH's blocking call (its own algorithm and wait);
- persistent + Wait: MPI_Allreduce_init's request started and waited on in C (no timeout possible);
- persistent + poll: the same request polled by torchlite's wait loop (Test, yielding, the timeout);
- persistent + poll, no check: what skipping the argument check would give (not safe: docs/distributed.md);
- Iallreduce + poll, check: a new nonblocking (not persistent) allreduce per call after the check, polled the
  same way (what torchlite ran before it kept persistent requests; MPICH may pick another algorithm for it);
- Iallreduce + Wait: the same request waited on in C.

Float32 SUM in place, 16 B and 1 MB; the variants alternate round by round in a rotating order, each from a
barrier; a round's time is the slowest rank's. Starts itself under the installed MPI's mpiexec.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

SIZES = [("16 B", 16), ("1 MB", 1 << 20)]


def worker(rounds):
    import numpy as np
    from mpi4py import MPI

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torchlite as tl
    import torchlite.distributed as dist
    from torchlite.distributed._work import wait_test

    dist.init_process_group("mpi")
    tl.set_num_threads(1)
    pg = dist.group.WORLD
    comm = MPI.COMM_WORLD
    out = []
    for label, nbytes in SIZES:
        t = tl.zeros(nbytes // 4)
        raw = t.numpy()
        dist.all_reduce(t)
        dist.all_reduce(t)
        plan = pg._persistent[(t.data_ptr(), t.numel(), t.dtype, dist.ReduceOp.SUM)]
        req = plan.req

        def wait_c():
            req.Start()
            req.Wait()

        def poll():
            req.Start()
            wait_test(req.Test, pg, "all_reduce", None, [req])

        def ipoll():
            pg._agree("all_reduce", None, reuse=2, fingerprint=plan.fingerprint)
            r = comm.Iallreduce(MPI.IN_PLACE, raw)
            wait_test(r.Test, pg, "all_reduce", None, [r])

        fns = {"torchlite": lambda: dist.all_reduce(t),
               "mpi4py blocking": lambda: comm.Allreduce(MPI.IN_PLACE, raw),
               "persistent + Wait": wait_c, "persistent + poll, check": lambda: (
                   pg._agree("all_reduce", None, reuse=2, fingerprint=plan.fingerprint), poll()),
               "persistent + poll, no check": poll,
               "Iallreduce + poll, check": ipoll,
               "Iallreduce + Wait": lambda: comm.Iallreduce(MPI.IN_PLACE, raw).Wait()}
        names = list(fns)
        times = {k: [] for k in names}
        for i in range(rounds):
            for name in names[i % len(names):] + names[:i % len(names)]:
                comm.Barrier()
                start = time.perf_counter()
                fns[name]()
                elapsed = np.array([time.perf_counter() - start])
                comm.Allreduce(MPI.IN_PLACE, elapsed, op=MPI.MAX)
                times[name].append(float(elapsed[0]))
        out.append((label, {k: statistics.median(v) for k, v in times.items()}))
    if dist.get_rank() == 0:
        print(f"load average {os.getloadavg()[0]:.1f}")
        print("| size | " + " | ".join(out[0][1]) + " |")
        print("|---|" + "---:|" * len(out[0][1]))
        for label, med in out:
            base = med["mpi4py blocking"]
            print(f"| {label} | " + " | ".join(f"{v * 1e6:.1f} us ({base / v:.2f})" for v in med.values()) + " |")
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=400)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.rounds)
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from torchlite.distributed.run import _mpiexec_path
    cmd = [_mpiexec_path(), "-n", "2", sys.executable, os.path.abspath(__file__), "--worker", "--rounds",
           str(args.rounds)]
    sys.exit(subprocess.call(cmd, env={**os.environ, "OMP_NUM_THREADS": "1"}))


if __name__ == "__main__":
    main()
