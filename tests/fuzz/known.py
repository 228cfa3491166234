"""Reproducers of bugs the fuzzer found that are known and being fixed elsewhere.

Each is run by tests/test_fuzz_smoke.py as a strict xfail (the test fails once the bug is fixed, so
the entry is removed), and `avoid` says which generated calls may hit the same bug: the fuzzer skips
those unless run with --no-avoid-known, so that CI's smoke run reports only new problems. Remove an
entry (and its avoidance) when its bug is fixed.
"""
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Known:
    name: str
    bug: str                         # what goes wrong
    source: str                      # a runnable reproducer: it crashes while the bug is there
    avoid: Callable[[object], bool]  # True for a generated Call (tests/fuzz/generate.py) that may hit it


KNOWN = [
]
