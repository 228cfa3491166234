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


def _factory_out_that_fails(call):
    """out= of a factory (ones, zeros, full, arange) with a device, or a huge or non-finite number."""
    t = call.target
    return (t.variant == "out" and "factory" in t.fn.tags
            and ("device=" in call.call or {"huge_int", "special_float"} & call.features))


KNOWN = [
    Known(
        name="factory_out_resized_before_error",
        bug="A factory's out= (ones/zeros/full/arange) resizes `out` before it fails (result on another device, "
            "or an allocation too large), leaving a tensor whose sizes exceed its storage: the next use reads "
            "out of bounds and segfaults (or returns garbage).",
        source="import torchlite\n"
               "a = torchlite.zeros(3)\n"
               "try:\n"
               "    torchlite.ones(2**40, device='meta', out=a)\n"
               "except RuntimeError:\n"
               "    pass\n"
               "a.sum()\n",
        avoid=_factory_out_that_fails,
    ),
]
