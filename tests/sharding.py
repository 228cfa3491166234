"""`TORCHLITE_TEST_SHARD=k/n` runs a deterministic n-th of the suite: the tests whose node id hashes to k
modulo n, plus every test of the files in ALWAYS_RUN. CI uses it for the sanitized run (several times slower
than the plain one), rotating k with the commit so successive landings cover the whole suite; the full
sanitized suite is `tools/sanitize.sh` with the variable unset."""
import os
import zlib

# Regression tests of memory-safety findings and the smoke fuzz: cheap, and what the sanitizers exist for.
ALWAYS_RUN = ("test_reliability.py", "test_sanitizer_findings.py", "test_fuzz_smoke.py")


def parse_shard(value):
    try:
        k, n = (int(part) for part in value.split("/"))
    except ValueError:
        raise ValueError(f"TORCHLITE_TEST_SHARD must look like k/n, got {value!r}") from None
    if n < 1 or not 0 <= k < n:
        raise ValueError(f"TORCHLITE_TEST_SHARD={value!r}: need 0 <= k < n")
    return k, n


def in_shard(nodeid, k, n):
    return nodeid.split("::")[0].endswith(ALWAYS_RUN) or zlib.crc32(nodeid.encode()) % n == k


def pytest_collection_modifyitems(config, items):
    value = os.environ.get("TORCHLITE_TEST_SHARD")
    if not value:
        return
    k, n = parse_shard(value)
    kept = [item for item in items if in_shard(item.nodeid, k, n)]
    dropped = [item for item in items if not in_shard(item.nodeid, k, n)]
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
