"""What each process started by `python -m torchlite.distributed.run` runs: torchrun's environment
variables from the MPI launcher's (MPICH/Hydra, Open MPI, or Slurm's srun), then the user's script as
__main__. A script that raises (or exits non-zero) aborts the whole MPI job, so the other ranks do not
wait for it in a collective."""
import os
import runpy
import sys
import time
import traceback

_SOURCES = (  # (rank, size, local rank, local size) as each launcher names them
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"),
)


def torchrun_environment(environ):
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (the node's index) and the rest of
    what torchrun exports, from the MPI launcher's variables in `environ`."""
    for rank_key, size_key, local_key, local_size_key in _SOURCES:
        if rank_key in environ and size_key in environ:
            rank, size = int(environ[rank_key]), int(environ[size_key])
            local = int(environ.get(local_key, rank))
            per_node = int(environ.get("TORCHLITE_NPROC_PER_NODE") or environ.get(local_size_key, "0").split("(")[0]
                           or size)
            break
    else:
        rank, size, local, per_node = 0, 1, 0, 1
    return {"RANK": str(rank), "WORLD_SIZE": str(size), "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(per_node),
            "GROUP_RANK": str(rank // max(per_node, 1)), "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(size),
            "ROLE_NAME": "default", "MASTER_ADDR": environ.get("MASTER_ADDR", "127.0.0.1"),
            "MASTER_PORT": environ.get("MASTER_PORT", "29500"), "TORCHELASTIC_RUN_ID": "none",
            "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0"}


def _abort(code):
    """Ends this process and, when MPI is up, the whole job (mpiexec then stops the other ranks)."""
    sys.stdout.flush()
    sys.stderr.flush()
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        time.sleep(0.5)  # mpiexec forwards this rank's output before the abort tears the job down
        MPI.COMM_WORLD.Abort(code)
    os._exit(code)


def main(argv):
    as_module = bool(argv) and argv[0] == "-m"
    if as_module:
        argv = argv[1:]
    if not argv:
        sys.exit("usage: python -m torchlite.distributed._bootstrap [-m] script.py [args]")
    os.environ.update(torchrun_environment(os.environ))
    target, sys.argv = argv[0], list(argv)
    rank = os.environ["RANK"]
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path[0] = os.path.dirname(os.path.abspath(target))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code:
            if not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
            print(f"[rank {rank}] exited with code {code}: aborting the job", file=sys.stderr)
            _abort(code)
    except BaseException:
        traceback.print_exc()
        print(f"[rank {rank}] raised: aborting the job", file=sys.stderr)
        _abort(1)


if __name__ == "__main__":
    main(sys.argv[1:])
