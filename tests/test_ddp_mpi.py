"""The data-parallel layer over real process groups: tests/distributed_workers/ddp_checks.py under mpiexec with 2
ranks (every check) and 4 ranks (every check), one launch each. DDP on N ranks x batch B equals one process on the
N * B batch after several SGD steps; no_sync accumulation; unused parameters (find_unused_parameters, and PyTorch's
error without it); buffers broadcast from rank 0; SyncBatchNorm on uneven per-rank batches equals BatchNorm2d
(PyTorch) on the concatenated batch; ZeroRedundancyOptimizer equals Adam, and its consolidated state dict Adam's."""
import json
import os

import pytest

import dist_helpers

CHECKS = ["ddp_matches_one_process", "no_sync_accumulation", "unused_parameters", "buffers_broadcast",
          "sync_batchnorm", "zero_matches_adam"]


@pytest.fixture(scope="module", params=[2, 4])
def results(request, tmp_path_factory):
    n = request.param
    out = tmp_path_factory.mktemp(f"ddp{n}")
    proc = dist_helpers.mpiexec(n, "ddp_checks.py", str(out), timeout=180)
    files = sorted(os.listdir(out))
    assert files == [f"rank{r}.json" for r in range(n)], f"{proc.stdout}\n{proc.stderr}"
    return n, {r: json.load(open(out / f"rank{r}.json")) for r in range(n)}


@pytest.mark.parametrize("name", CHECKS)
def test_ddp_check(results, name):
    n, per_rank = results
    for rank in range(n):
        assert per_rank[rank].get("check_" + name) == "ok", f"rank {rank} of {n}: {per_rank[rank].get('check_' + name)}"
