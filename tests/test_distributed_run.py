"""The launcher, `python -m torchlite.distributed.run` (torchrun's command line on mpiexec): torchrun's
environment in each rank, the script's arguments, a failing rank ending the job; the mpiexec command it
builds for several nodes; the variables it derives from each MPI launcher's."""
import json
import os
import subprocess
import sys
import tempfile
import time

import dist_helpers
from torchlite.distributed import run
from torchlite.distributed._bootstrap import torchrun_environment

SCRIPT = os.path.join(dist_helpers.WORKERS, "launched.py")


def launch(*args, timeout=90):
    """The launcher's CompletedProcess, with .reports: each rank's report (launched.py), by rank."""
    with tempfile.TemporaryDirectory() as where:
        proc = subprocess.run([sys.executable, "-m", "torchlite.distributed.run", *args], capture_output=True,
                              text=True, timeout=timeout, env={**dist_helpers.env(), "TORCHLITE_DIST_RESULTS": where},
                              cwd=dist_helpers.ROOT)
        found = []
        for name in os.listdir(where):
            with open(os.path.join(where, name)) as f:
                found.append(json.load(f))
    proc.reports = sorted(found, key=lambda r: r["rank"])
    return proc


def reports(proc):
    return proc.reports


def test_runs_the_script_on_n_ranks_with_torchruns_environment():
    proc = launch("--nproc-per-node", "2", SCRIPT, "--flag", "value")
    assert proc.returncode == 0, proc.stderr
    got = reports(proc)
    assert [r["rank"] for r in got] == [0, 1]
    for r in got:
        assert r["argv"] == [SCRIPT, "--flag", "value"] and r["name"] == "__main__"
        assert r["size"] == 2 and r["sum"] == 1.0 and r["elastic"] is True
        env = r["env"]
        assert env["RANK"] == str(r["rank"]) and env["WORLD_SIZE"] == "2" and env["LOCAL_RANK"] == str(r["rank"])
        assert env["LOCAL_WORLD_SIZE"] == "2" and env["GROUP_RANK"] == "0"
        assert env["MASTER_ADDR"] == "127.0.0.1" and env["MASTER_PORT"] == "29500"


def test_torchrun_spelling_and_four_ranks():
    proc = launch("--nproc_per_node=4", "--master_port", "1234", SCRIPT)
    assert proc.returncode == 0, proc.stderr
    got = reports(proc)
    assert [r["rank"] for r in got] == [0, 1, 2, 3] and all(r["sum"] == 6.0 for r in got)
    assert all(r["env"]["MASTER_PORT"] == "1234" for r in got)


def test_a_failing_rank_aborts_the_job():
    start = time.monotonic()
    proc = launch("--nproc-per-node", "2", SCRIPT, "fail")
    assert time.monotonic() - start < 60
    assert proc.returncode != 0
    assert "RuntimeError: rank 0 fails on purpose" in proc.stderr
    assert "[rank 0] raised: aborting the job" in proc.stderr


def test_command_for_several_nodes(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("node1:8\nnode2:8\n")
    args = run.parse_args(["--nnodes", "1:2", "--nproc-per-node", "8", "--hostfile", str(hosts),
                                    "--master-addr", "node1", "train.py", "--lr", "0.1"])
    cmd = run._mpiexec_command(args, mpiexec=run._mpiexec_path())
    assert cmd[1:3] == ["-n", "16"]
    assert cmd[cmd.index("-ppn") + 1] == "8" and cmd[cmd.index("-f") + 1] == str(hosts)
    assert "MASTER_ADDR" in cmd and cmd[cmd.index("MASTER_ADDR") + 1] == "node1"
    assert cmd[-5:] == ["-m", "torchlite.distributed._bootstrap", "train.py", "--lr", "0.1"]
    module = run._mpiexec_command(run.parse_args(["-m", "pkg.train", "x"]), mpiexec=run._mpiexec_path())
    assert module[-3:] == ["-m", "pkg.train", "x"] and module[1:3] == ["-n", "1"]


def test_environment_from_each_mpi_launcher():
    mpich = torchrun_environment({"PMI_RANK": "5", "PMI_SIZE": "8", "MPI_LOCALRANKID": "1",
                                  "TORCHLITE_NPROC_PER_NODE": "4"})
    assert (mpich["RANK"], mpich["WORLD_SIZE"], mpich["LOCAL_RANK"], mpich["LOCAL_WORLD_SIZE"],
            mpich["GROUP_RANK"]) == ("5", "8", "1", "4", "1")
    ompi = torchrun_environment({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4",
                                 "OMPI_COMM_WORLD_LOCAL_RANK": "0", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"})
    assert (ompi["RANK"], ompi["LOCAL_RANK"], ompi["GROUP_RANK"]) == ("2", "0", "1")
    slurm = torchrun_environment({"SLURM_PROCID": "3", "SLURM_NTASKS": "4", "SLURM_LOCALID": "1",
                                  "SLURM_NTASKS_PER_NODE": "2(x2)"})
    assert (slurm["RANK"], slurm["LOCAL_WORLD_SIZE"], slurm["GROUP_RANK"]) == ("3", "2", "1")
    alone = torchrun_environment({})
    assert (alone["RANK"], alone["WORLD_SIZE"], alone["TORCHELASTIC_RUN_ID"]) == ("0", "1", "none")


def test_a_script_started_alone_with_world_size_set_refuses_to_train_alone():
    code = ("import torchlite.distributed as dist\n"
            "try:\n    dist.init_process_group('gloo')\nexcept RuntimeError as e:\n    print('REFUSED', e)\n"
            "else:\n    print('WORLD', dist.get_world_size())\n")
    env = {**dist_helpers.env(), "WORLD_SIZE": "2", "RANK": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                          cwd=dist_helpers.ROOT)
    assert "REFUSED init_process_group: world_size is 2 but MPI started 1 process(es)" in proc.stdout, proc.stderr
    assert "torchlite.distributed.run --nproc-per-node 2" in proc.stdout
    env.pop("WORLD_SIZE")
    env.pop("RANK")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                          cwd=dist_helpers.ROOT)
    assert "WORLD 1" in proc.stdout, proc.stderr
