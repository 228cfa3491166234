"""tests/sharding.py: TORCHLITE_TEST_SHARD=k/n splits the suite into n disjoint parts covering every test."""
import pytest

from sharding import ALWAYS_RUN, in_shard, parse_shard

NODE_IDS = [f"tests/test_forward_generated.py::test_forward[op{i}-float32]" for i in range(300)] + [
    "tests/test_views.py::test_view", "tests/test_reliability.py::test_a", "tests/test_fuzz_smoke.py::test_b"]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_shards_partition_the_suite(n):
    counts = {node: sum(in_shard(node, k, n) for k in range(n)) for node in NODE_IDS}
    for node, count in counts.items():
        always = node.split("::")[0].endswith(ALWAYS_RUN)
        assert count == (n if always else 1), node
    sizes = [sum(in_shard(node, k, n) for node in NODE_IDS[:300]) for k in range(n)]
    assert sum(sizes) == 300 and min(sizes) > 300 / n / 2  # balanced enough to budget by


@pytest.mark.parametrize("bad", ["", "1", "3/3", "-1/2", "a/b", "0/0"])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="TORCHLITE_TEST_SHARD"):
        parse_shard(bad)


def test_parse():
    assert parse_shard("2/5") == (2, 5)
