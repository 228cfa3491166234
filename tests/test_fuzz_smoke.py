"""A bounded run of the YAML-driven fuzzer (tests/fuzz, docs/testing.md): no call may crash, hang or
raise an unexpected exception type. Known bugs being fixed elsewhere are avoided by the fuzzer and
checked here as strict xfails, so each one shows up when it gets fixed."""

import pytest
from hypothesis import given, settings

from fuzz.known import FIXED, KNOWN
from fuzz.runner import Worker, reproduce, run, worker_env
from fuzz.strategies import calls
from fuzz.targets import load_targets

# About 20 s on an idle 2-core machine; well under the 3-minute budget on a busy one.
SMOKE_CALLS = 20000


def test_fuzz_smoke():
    summary = run(calls=SMOKE_CALLS, seed=20261124, workers=2, timeout=30.0, time_limit=150)
    assert summary.calls > SMOKE_CALLS // 4, summary.text()
    assert not summary.bad(), summary.text()
    assert summary.classes["ok"] > summary.calls // 5, f"too few calls got past argument checks: {summary.text()}"


def test_every_target_is_reached():
    """Targets are taken in turn: one pass over them calls every op in every variant."""
    targets = load_targets()
    names = {str(t) for t in targets}
    assert {"add.Tensor:function", "add.Tensor:method", "add_.Tensor:inplace", "add.Tensor_out:out"} <= names


@given(calls())
@settings(max_examples=300, deadline=None)
def test_generated_calls_are_valid_python(call):
    compile(call.source(), "<call>", "exec")
    assert call.target.name in call.call


@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed_reproducer_stays_fixed(name):
    """A crash the fuzzer once found runs cleanly now (a fresh process, so a regression shows as a crash)."""
    assert reproduce(FIXED[name]) == ("exit", "0")


if KNOWN:  # defined only while there are open known bugs (an empty parametrization would show as a skip)
    @pytest.mark.parametrize("known", [pytest.param(k, id=k.name, marks=pytest.mark.xfail(strict=True, reason=k.bug))
                                       for k in KNOWN])
    def test_known_bug_fixed(known):
        """Strict xfail while the bug is there; once it is fixed this passes, which fails the suite: then remove
        the entry from tests/fuzz/known.py, and with it the fuzzer's avoidance of it."""
        assert reproduce(known.source) == ("exit", "0")


def _worker():
    return Worker(worker_env())


@pytest.mark.parametrize("body,expected", [
    ("x = torchlite.zeros(2) + 1\n", "ok"),
    ("torchlite.zeros(2).view(3)\n", "expected"),
    ("raise AttributeError('internal')\n", "unexpected"),
    ("raise RuntimeError('vector::_M_range_check: __n (which is 3) >= this->size() (which is 2)')\n", "unexpected"),
    ("import os\nos.abort()\n", "crash"),
    ("import time\ntime.sleep(60)\n", "hang"),
])
def test_worker_classifies(body, expected):
    """The harness itself: each class is recognised, and the worker survives (is restarted after) each."""
    worker = _worker()
    try:
        assert worker.run("probe", body, timeout=3)[0] == expected
        assert worker.run("after", "x = 1\n", timeout=30)[0] == "ok"
    finally:
        worker.close()


def test_compare_torch_mode_runs():
    """--compare-torch (reporting only): agreeing calls are not findings, and it finds no crash of its own."""
    summary = run(calls=100, seed=5, workers=1, timeout=60.0, ops=["add", "mul", "sum"], compare_torch=True)
    assert not summary.bad(), summary.text()
    assert summary.classes["ok"] > 0, summary.text()
    assert all(f.kind == "mismatch" and f.detail for f in summary.mismatches())
