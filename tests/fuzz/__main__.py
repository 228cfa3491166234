"""python -m tests.fuzz --calls N --seed S --workers W: fuzz every op of native_functions.yaml.

Exits 1 when a call crashed, hung or raised an unexpected exception type, printing one runnable
reproducer per distinct finding. See docs/testing.md.
"""
import argparse
import json
import sys

from .runner import run


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=10000, help="number of calls (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="call i of seed s is always the same call")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds before a call counts as a hang")
    p.add_argument("--time-limit", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--ops", nargs="*", help="only these ops (base names such as add, or overloads such as add.Tensor)")
    p.add_argument("--no-avoid-known", dest="avoid_known", action="store_false",
                   help="also generate calls that hit the known bugs of tests/fuzz/known.py")
    p.add_argument("--compare-torch", action="store_true",
                   help="also run each call with PyTorch and report disagreements (slower; needs torch)")
    p.add_argument("--progress", type=int, default=0, help="print counts every N calls")
    p.add_argument("--report", help="write the findings as JSON to this file")
    a = p.parse_args(argv)
    summary = run(calls=a.calls, seed=a.seed, workers=a.workers, timeout=a.timeout, avoid_known=a.avoid_known,
                  ops=a.ops, time_limit=a.time_limit, progress=a.progress or None,
                  compare_torch=a.compare_torch)
    print(summary.text())
    if a.report:
        with open(a.report, "w") as fh:
            findings = [vars(f) for f in summary.bad() + summary.mismatches()]
            json.dump({"calls": summary.calls, "classes": dict(summary.classes), "avoided": summary.avoided,
                       "seconds": summary.seconds, "findings": findings}, fh, indent=1)
    return 1 if summary.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
