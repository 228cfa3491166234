"""TORCHLITE_TEST_CPU_REPORT=DIR: each pytest process (the controller and every xdist worker) writes
DIR/cpu-<worker>.tsv: one line per test (node id, CPU seconds, wall seconds of its setup, call and teardown),
then the process's whole CPU time (imports and collection included). `python tools/test_cpu_report.py DIR`
sums them by file. For budgeting CI's test phase (docs/testing.md): CPU time (time.process_time, every thread
of the process) is what CI's 2-core machine pays, and it stays put under the load of a shared machine, where
wall-clock durations (`--durations`) do not."""
import os
import time

import pytest

_DIR = os.environ.get("TORCHLITE_TEST_CPU_REPORT")
_rows = []

if _DIR:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return (yield)
        finally:
            _rows.append((item.nodeid, time.process_time() - cpu, time.perf_counter() - wall))

    def pytest_sessionfinish(session):
        os.makedirs(_DIR, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(_DIR, f"cpu-{name}.tsv"), "w") as f:
            for nodeid, cpu, wall in _rows:
                f.write(f"{nodeid}\t{cpu:.6f}\t{wall:.6f}\n")
            f.write(f"#process\t{time.process_time():.3f}\t{len(_rows)}\n")
