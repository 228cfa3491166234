"""Every collective, point-to-point op, group and object collective of torchlite.distributed on 2 and 4 MPI
processes (tests/distributed_workers/collectives.py: one mpiexec launch per world size), then the failure
paths (errors.py, dies.py): mismatched arguments, timeouts, a rank that raises or dies."""
import time

import pytest

import dist_helpers

CHECKS = ["reduce_to_each_root", "all_gather_lists", "all_gather_into_tensor_concat_and_stack",
          "reduce_scatter_both_forms", "gather_and_scatter", "all_to_all_both_forms", "send_recv_and_async_p2p",
          "recv_of_the_wrong_size_raises", "groups", "object_collectives"]
ERROR_CHECKS = ["mismatched_shapes_name_op_rank_and_shapes", "different_collectives_are_caught",
                "argument_errors_like_pytorch", "a_rank_that_does_not_take_part_times_out"]


def _assert_ok(size, results, names, name):
    for rank in range(size):
        assert results[rank].get(name) == "ok", f"rank {rank} of {size}: {results[rank].get(name)}"
    assert all(set(r) == set(names) for r in results.values()), results


@pytest.fixture(scope="module", params=[2, 4])
def collective_results(request):
    return request.param, dist_helpers.results(request.param, "collectives.py")


@pytest.mark.parametrize("name", CHECKS)
def test_collective(collective_results, name):
    _assert_ok(*collective_results, CHECKS, name)


@pytest.fixture(scope="module")
def error_results():
    return 2, dist_helpers.results(2, "errors.py")


@pytest.mark.parametrize("name", ERROR_CHECKS)
def test_errors(error_results, name):
    _assert_ok(*error_results, ERROR_CHECKS, name)


@pytest.mark.parametrize("how", ["raise", "exit"])
def test_a_rank_that_dies_ends_the_job(how):
    start = time.monotonic()
    proc = dist_helpers.mpiexec(2, "dies.py", how, timeout=60)
    assert time.monotonic() - start < 30
    assert proc.returncode != 0
    assert "UNREACHABLE" not in proc.stdout
    if how == "raise":
        assert "ValueError: rank 1 fails on purpose" in proc.stderr


GLOO_CHECKS = ["gloo_starts", "all_reduce_like_gloo", "reduce_and_reduce_scatter_like_gloo", "data_movement_like_gloo"]


@pytest.fixture(scope="module")
def gloo_results():
    return 2, dist_helpers.results(2, "gloo_oracle.py")


@pytest.mark.parametrize("name", GLOO_CHECKS)
def test_same_results_as_pytorchs_gloo(gloo_results, name):
    _assert_ok(*gloo_results, GLOO_CHECKS, name)
