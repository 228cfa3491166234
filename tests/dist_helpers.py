"""Starting the distributed test workers (tests/distributed_workers/) under mpiexec and reading their
per-rank results."""
import json
import os
import subprocess
import sys
import tempfile

from torchlite.distributed.run import _mpiexec_path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKERS = os.path.join(ROOT, "tests", "distributed_workers")


def env():
    e = os.environ.copy()
    # the checkout last: a PYTHONPATH that puts another torchlite first (the sanitized build's) wins
    e["PYTHONPATH"] = os.pathsep.join(p for p in (e.get("PYTHONPATH"), ROOT) if p)
    e["OMP_NUM_THREADS"] = "1"  # 4 ranks on 2 cores: no OpenMP pools fighting over them
    return e


def mpiexec(n, worker, *args, timeout=120, extra_env=None):
    """Runs `mpiexec -n n python worker args`; the CompletedProcess (text output)."""
    cmd = [_mpiexec_path(), "-n", str(n), sys.executable, os.path.join(WORKERS, worker), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**env(), **(extra_env or {})},
                          cwd=ROOT)


def results(n, worker, *args, timeout=120):
    """{rank: {check: "ok" | traceback}} of a harness.run() worker."""
    with tempfile.TemporaryDirectory() as where:
        proc = mpiexec(n, worker, *args, timeout=timeout, extra_env={"TORCHLITE_DIST_RESULTS": where})
        out = {}
        for name in os.listdir(where):
            with open(os.path.join(where, name)) as f:
                out[int(name.split(".")[0])] = json.load(f)
    assert sorted(out) == list(range(n)), f"ranks reported {sorted(out)}\n{proc.stdout}\n{proc.stderr}"
    return out
