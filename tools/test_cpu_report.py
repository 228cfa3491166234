"""Sums the per-test CPU times that `TORCHLITE_TEST_CPU_REPORT=DIR python -m pytest ...` wrote (tests/cpu_report.py),
by test file: where the suite's CPU time goes.

    TORCHLITE_TEST_CPU_REPORT=/tmp/cpu python -m pytest -q -n auto tests
    python tools/test_cpu_report.py /tmp/cpu [--top 40]
"""
import argparse
import collections
import glob
import os


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    by_file = collections.defaultdict(lambda: [0, 0.0, 0.0])
    slowest = []
    processes = []
    for path in sorted(glob.glob(os.path.join(args.dir, "cpu-*.tsv"))):
        with open(path) as f:
            for line in f:
                nodeid, cpu, wall = line.rstrip("\n").split("\t")
                if nodeid == "#process":
                    processes.append((os.path.basename(path), float(cpu)))
                    continue
                entry = by_file[nodeid.split("::")[0]]
                entry[0] += 1
                entry[1] += float(cpu)
                entry[2] += float(wall)
                slowest.append((float(cpu), nodeid))
    tests_cpu = sum(e[1] for e in by_file.values())
    total = sum(cpu for _, cpu in processes)
    print(f"processes: {', '.join(f'{n} {c:.0f} s' for n, c in processes)}; their CPU {total:.0f} s, "
          f"of which the tests {tests_cpu:.0f} s (the rest: imports, collection, xdist)")
    print(f"{'file':60} {'tests':>7} {'CPU s':>8} {'share':>6} {'wall s':>8}")
    for name, (n, cpu, wall) in sorted(by_file.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print(f"{name:60} {n:7d} {cpu:8.1f} {cpu / max(tests_cpu, 1e-9):6.1%} {wall:8.1f}")
    print("\nslowest tests (CPU s):")
    for cpu, nodeid in sorted(slowest, reverse=True)[:args.top]:
        print(f"{cpu:8.2f}  {nodeid}")


if __name__ == "__main__":
    main()
