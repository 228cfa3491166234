"""`python -m torchlite.distributed.run`: torchrun's command line on MPI.

    python -m torchlite.distributed.run --nproc-per-node 4 train.py --lr 0.1
    python -m torchlite.distributed.run --nnodes 2 --nproc-per-node 8 --hostfile hosts train.py

execs the installed MPI's mpiexec, which starts nnodes x nproc-per-node copies of the script (on the
hosts of --hostfile, or of the scheduler's allocation), each through torchlite.distributed._bootstrap:
it sets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, then runs the script
as __main__; an uncaught exception aborts the whole MPI job. torchrun's rendezvous options are
accepted and ignored where MPI does that job (docs/distributed.md)."""
import argparse as _argparse
import os
import shutil as _shutil
import subprocess as _subprocess
import sys


def _mpiexec_path():
    """The mpiexec of the MPI installed beside this Python (the `distributed` extra's wheel puts it in
    the environment's bin/), else the first on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = _shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("torchlite.distributed.run: no mpiexec found: pip install torchlite[distributed] "
                           "(mpi4py and MPICH), or put an MPI's mpiexec on PATH")
    return found


def _is_open_mpi(mpiexec):
    try:
        out = _subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, _subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def _nproc(value):
    if value in ("auto", "cpu", "gpu"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise _argparse.ArgumentTypeError(f"--nproc-per-node must be at least 1, got {n}")
    return n


def _nnodes(value):
    # torchrun takes MIN:MAX for elastic jobs; an MPI job has a fixed size: the upper bound
    n = int(str(value).split(":")[-1])
    if n < 1:
        raise _argparse.ArgumentTypeError(f"--nnodes must be at least 1, got {n}")
    return n


def get_args_parser():
    p = _argparse.ArgumentParser(prog="python -m torchlite.distributed.run",
                                description="Start a torchlite.distributed script on MPI (torchrun's options).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=_nproc, default=1,
                   help="processes per node (an int, or auto/cpu: one per CPU)")
    p.add_argument("--nnodes", type=_nnodes, default=1, help="number of nodes (N or MIN:MAX, which uses MAX)")
    p.add_argument("--hostfile", "--host-file", default=None,
                   help="file listing the nodes, one host per line (MPI's host file format)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                   help="exported as MASTER_ADDR (MPI does the rendezvous itself)")
    p.add_argument("--master-port", "--master_port", type=int, default=29500, help="exported as MASTER_PORT")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0,
                   help="accepted for torchrun scripts: mpiexec starts every node from one place")
    p.add_argument("--standalone", action="store_true", help="accepted (a single-node job needs nothing more)")
    for name in ("--rdzv-backend", "--rdzv_backend", "--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-id",
                 "--rdzv_id", "--max-restarts", "--max_restarts", "--monitor-interval", "--monitor_interval"):
        p.add_argument(name, default=None, help=_argparse.SUPPRESS)
    p.add_argument("--mpiexec-args", default="", help="extra arguments for mpiexec, one string")
    p.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run the target as a program, not a Python script (no environment setup then)")
    p.add_argument("training_script", help="the script (or module, or program) to run")
    p.add_argument("training_script_args", nargs=_argparse.REMAINDER)
    return p


def _mpiexec_command(args, mpiexec=None):
    """The mpiexec command line for parsed `args`."""
    mpiexec = mpiexec or _mpiexec_path()
    total = args.nproc_per_node * args.nnodes
    cmd = [mpiexec, "-n", str(total)]
    open_mpi = _is_open_mpi(mpiexec)
    if open_mpi:
        cmd += ["--oversubscribe", "--map-by", f"ppr:{args.nproc_per_node}:node"]
        if os.geteuid() == 0:
            cmd += ["--allow-run-as-root"]
    elif args.nnodes > 1 or args.hostfile:
        cmd += ["-ppn", str(args.nproc_per_node)]
    if args.hostfile:
        cmd += ["--hostfile" if open_mpi else "-f", args.hostfile]
    env_flag = "-x" if open_mpi else "-genv"
    for key, value in (("MASTER_ADDR", args.master_addr), ("MASTER_PORT", str(args.master_port)),
                       ("TORCHLITE_NPROC_PER_NODE", str(args.nproc_per_node))):
        cmd += [env_flag, f"{key}={value}"] if open_mpi else [env_flag, key, value]
    cmd += args.mpiexec_args.split()
    if args.no_python:
        target = [args.training_script]
    else:
        target = [sys.executable, "-u", "-m", "torchlite.distributed._bootstrap"]
        target += ["-m", args.training_script] if args.module else [args.training_script]
    return cmd + target + list(args.training_script_args)


def parse_args(args):
    return get_args_parser().parse_args(args)


def run(args):
    """Replaces this process with mpiexec running parsed `args`' script on every rank."""
    cmd = _mpiexec_command(args)
    env = os.environ.copy()
    # the processes import torchlite from where this launcher did (a source checkout included)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    sys.stdout.flush()
    os.execvpe(cmd[0], cmd, env)


def main(args=None):
    run(parse_args(args))


if __name__ == "__main__":
    main()
