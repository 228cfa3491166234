"""torchlite.distributed's core on 2 and 4 MPI processes (tests/distributed_workers/core.py): init and rank
queries, all_reduce of every dtype and ReduceOp (checked against NumPy), non-contiguous / 0-d / empty
tensors, async Work, broadcast, barrier. One mpiexec launch per world size runs every check."""
import pytest

import dist_helpers

CHECKS = ["rank_queries", "all_reduce_every_dtype_and_op", "all_reduce_layouts", "all_reduce_async",
          "all_reduce_reuse_of_persistent_requests",
          "broadcast_every_dtype", "barrier_waits_for_everyone", "init_again_after_destroy"]


@pytest.fixture(scope="module", params=[2, 4])
def core_results(request):
    return request.param, dist_helpers.results(request.param, "core.py")


@pytest.mark.parametrize("name", CHECKS)
def test_core(core_results, name):
    size, results = core_results
    for rank in range(size):
        assert results[rank].get(name) == "ok", f"rank {rank} of {size}: {results[rank].get(name)}"
    assert all(set(r) == set(CHECKS) for r in results.values())
