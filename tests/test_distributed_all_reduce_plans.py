"""all_reduce's short path on a persistent request (torchlite/distributed/_all_reduce.py) on 2 and 4 MPI
processes (tests/distributed_workers/all_reduce_plans.py): results against NumPy call after call, the
argument check still raising on every rank for mismatched shapes, ops and collectives, async_op, AVG,
timeouts, subgroups, the per-call trace (torchlite/distributed/_trace.py), and the plans ending with their
group."""
import pytest

import dist_helpers

CHECKS = ["repeated_calls_reuse_the_plan", "mismatched_shapes_still_raise", "ranks_on_different_paths_agree",
          "async_op_on_a_plan", "a_plan_is_tested_only_after_an_async_start",
          "a_plan_only_some_ranks_hold_is_remade_by_all", "gradients_are_left_alone",
          "subgroups_have_their_own_plans",
          "a_rank_that_does_not_take_part_times_out_on_a_plan", "both_wait_policies_give_numpys_results",
          "mismatches_on_plans_raise_with_either_wait_policy", "a_tensor_resized_between_calls",
          "a_rank_that_does_not_take_part_times_out_while_the_machine_is_quiet", "traced_calls_record_their_pieces",
          "plans_end_with_the_group"]


@pytest.fixture(scope="module", params=[2, 4])
def plan_results(request):
    return request.param, dist_helpers.results(request.param, "all_reduce_plans.py", timeout=240)


@pytest.mark.parametrize("name", CHECKS)
def test_all_reduce_plans(plan_results, name):
    size, results = plan_results
    for rank in range(size):
        assert results[rank].get(name) == "ok", f"rank {rank} of {size}: {results[rank].get(name)}"
    assert all(set(r) == set(CHECKS) for r in results.values())
