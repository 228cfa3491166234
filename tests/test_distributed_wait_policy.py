"""The waits' policy (torchlite/distributed/_work.py wait_test, _crowding.py) in one process, on a fake request:
a long wait sleeps between rounds only while more tasks are runnable than there are CPUs (else it keeps
yielding), reads the machine again every 64 rounds, and still raises DistBackendError past its timeout in
either state. The multi-process checks are in tests/distributed_workers/all_reduce_plans.py."""
import datetime
import os
import subprocess
import sys
import tempfile
import time

import pytest

from torchlite.distributed import _crowding, _work
from torchlite.distributed._errors import DistBackendError


class _FakeMPI:
    class Exception(Exception):
        pass


class _FakeGroup:
    _mpi = _FakeMPI
    _global_rank = 0
    timeout = datetime.timedelta(seconds=30)

    def __init__(self):
        self.abandoned = []

    def size(self):
        return 2

    def _abandon(self, requests, opname):
        self.abandoned.append((requests, opname))


def _request_done_after(polls):
    count = [0]

    def test():
        count[0] += 1
        return count[0] > polls
    return test, count


@pytest.fixture
def recorded(monkeypatch):
    """Counts the wait's sleeps, yields and readings of the machine; `state` sets what the reading says."""
    calls = {"sleep": 0, "yield": 0, "read": 0}
    state = {"crowded": False}

    def read():
        calls["read"] += 1
        return state["crowded"]
    monkeypatch.setattr(_work, "_sleep", lambda s: calls.__setitem__("sleep", calls["sleep"] + 1))
    monkeypatch.setattr(_work, "_yield", lambda: calls.__setitem__("yield", calls["yield"] + 1))
    monkeypatch.setattr(_crowding, "crowded", read)
    return calls, state


def test_procs_running_parses_loadavg_lines():
    assert _crowding.procs_running(b"0.61 2.16 2.84 3/412 12345\n") == 3
    assert _crowding.procs_running(b"11.54 7.88 5.06 10/169 23326\n") == 10
    assert _crowding.procs_running(b"0.00 0.00 0.00 1/1 1") == 1


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="Linux's /proc/loadavg")
def test_crowded_reads_this_machine():
    with open("/proc/loadavg", "rb") as f:
        running = _crowding.procs_running(f.read())
    assert running >= 1  # this process
    assert isinstance(_crowding.crowded(), bool)
    # a machine with as many CPUs as runnable tasks is not crowded; one CPU fewer than them is
    real = _crowding._CPUS
    try:
        _crowding._CPUS = 1 << 20
        assert _crowding.crowded() is False
        _crowding._CPUS = 0
        assert _crowding.crowded() is True
    finally:
        _crowding._CPUS = real


def test_crowded_without_loadavg_keeps_sleeping(monkeypatch):
    monkeypatch.setattr(_crowding, "_LOADAVG", -1)  # could not be opened (not Linux)
    assert _crowding.crowded() is True
    monkeypatch.setattr(_crowding, "_LOADAVG", 1 << 20)  # a closed descriptor: OSError
    assert _crowding.crowded() is True
    with tempfile.TemporaryFile() as f:  # a descriptor of another file: unparsable (ValueError)
        f.write(b"no slash here\n")
        f.flush()
        monkeypatch.setattr(_crowding, "_LOADAVG", f.fileno())
        with pytest.raises(ValueError):
            _crowding.procs_running(os.pread(f.fileno(), 128, 0))
        assert _crowding.crowded() is True


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="Linux's /proc/loadavg")
def test_loadavg_is_opened_on_first_reading_and_kept(monkeypatch):
    monkeypatch.setattr(_crowding, "_LOADAVG", None)
    _crowding.crowded()
    fd = _crowding._LOADAVG
    assert fd >= 0
    _crowding.crowded()
    assert _crowding._LOADAVG == fd
    os.close(fd)


def test_a_quick_request_neither_yields_nor_reads(recorded):
    calls, _ = recorded
    test, count = _request_done_after(5)
    _work.wait_test(test, _FakeGroup(), "all_reduce")
    assert count[0] == 6 and calls == {"sleep": 0, "yield": 0, "read": 0}


@pytest.mark.parametrize("crowded", [False, True])
def test_a_long_wait_sleeps_only_on_a_crowded_machine(recorded, crowded):
    calls, state = recorded
    state["crowded"] = crowded
    rounds = 300  # rounds of eight polls: past _SLEEP_AFTER (64), then four readings of the machine
    test, count = _request_done_after(8 * rounds)
    _work.wait_test(test, _FakeGroup(), "all_reduce")
    assert count[0] == 8 * rounds + 1
    past = rounds - _work._SLEEP_AFTER  # rounds that would sleep: the last round's polls succeed
    assert calls["read"] == -(-past // _work._CROWD_EVERY)
    assert calls["sleep"] == (past if crowded else 0)
    assert calls["yield"] == _work._SLEEP_AFTER - _work._YIELD_AFTER + (0 if crowded else past)


def test_the_reading_follows_the_machine_during_a_wait(recorded, monkeypatch):
    calls, state = recorded
    # done in round 257: rounds 65-256 wait past _SLEEP_AFTER, read at 65, 129 and 193
    test, count = _request_done_after(8 * 256)
    flips = iter([True, False, True])
    counted_read = _crowding.crowded

    def read():
        state["crowded"] = next(flips)
        return counted_read()
    monkeypatch.setattr(_crowding, "crowded", read)
    _work.wait_test(test, _FakeGroup(), "all_reduce")
    assert calls["read"] == 3
    assert calls["sleep"] == 2 * 64 and calls["yield"] == (64 - _work._YIELD_AFTER) + 64


@pytest.mark.parametrize("crowded", [False, True])
def test_the_timeout_holds_on_a_quiet_or_crowded_machine(recorded, crowded):
    calls, state = recorded
    state["crowded"] = crowded
    group = _FakeGroup()
    start = time.monotonic()
    with pytest.raises(DistBackendError, match=r"all_reduce: timed out after 0.2 s on rank 0"):
        _work.wait_test(lambda: False, group, "all_reduce", datetime.timedelta(seconds=0.2), ["req"])
    assert 0.2 <= time.monotonic() - start < 5
    assert group.abandoned == [(["req"], "all_reduce")]
    assert (calls["sleep"] > 0) == crowded


def _wrapped_names(env):
    code = ("import torchlite.distributed as d\n"
            "from torchlite.distributed import _all_reduce, _groups, _work\n"
            "print(_groups.wait_test is _work.wait_test, _all_reduce.wait_test is _work.wait_test, "
            "_work._yield.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_trace_is_off_unless_asked_for():
    # TORCHLITE_DIST_TRACE=1 at import installs the counting wrappers (torchlite/distributed/_trace.py); without
    # it the waits run the plain functions
    assert _wrapped_names({"TORCHLITE_DIST_TRACE": "0"}) == ["True", "True", "sched_yield"]
    assert _wrapped_names({"TORCHLITE_DIST_TRACE": "1"}) == ["False", "False", "counted_yield"]
