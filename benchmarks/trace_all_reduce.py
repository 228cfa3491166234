"""Summary of a traced all_reduce benchmark run (`bench_distributed.py --trace DIR`): per size, for each library the
median round time (the slowest rank's), how often a rank was preempted during its call (involuntary context
switches), slept or blocked (voluntary ones), and how often both ranks started on the same CPU; for torchlite the
call's pieces per rank (Python before the check, the check, Python between, the data wait, Python after), the
ranks' skew at the check's start and the data's end, and the waits' polls, yields and sleeps.

    python benchmarks/trace_all_reduce.py DIR [--nproc 2]
"""
import json
import os
import statistics
import sys


def _med(xs):
    return statistics.median(xs) if xs else float("nan")


def _previous(calls, lib):
    """For each round of `lib` (rank 0's calls), the library called just before it."""
    starts = sorted((c[0], name) for name, cs in calls.items() for c in cs)
    prev = {}
    for (_, p), (t, name) in zip(starts, starts[1:]):
        if name == lib:
            prev[t] = p
    return [prev.get(c[0]) for c in calls[lib]]


def summarize(trace_dir, nproc=2):
    ranks = [json.load(open(os.path.join(trace_dir, f"rank{r}.json"))) for r in range(nproc)]
    for label in ranks[0]["sizes"]:
        sizes = [t["sizes"][label] for t in ranks]
        print(f"== {label}")
        libs = list(sizes[0]["calls"])
        for lib in libs:
            # per round: each rank's [start, end, cpu at start, cpu at end, voluntary, involuntary switches]
            rows = list(zip(*(s["calls"][lib] for s in sizes)))
            t = [max(c[1] - c[0] for c in row) for row in rows]
            pre = [any(c[5] for c in row) for row in rows]
            vol = [any(c[4] for c in row) for row in rows]
            same = [len({c[2] for c in row}) < len(row) for row in rows]
            skew = [max(c[0] for c in row) - min(c[0] for c in row) for row in rows]
            after = _previous(sizes[0]["calls"], lib)
            by_prev = ", ".join(f"after {p} {_med([x for x, q in zip(t, after) if q == p]) * 1e6:.1f}"
                                for p in libs if p != lib)
            print(f"{lib:9s} median {_med(t) * 1e6:7.1f} us ({by_prev}) | preempted {sum(pre):4d}/{len(rows)} rounds "
                  f"(median {_med([x for x, p in zip(t, pre) if p]) * 1e6:.1f} us, else "
                  f"{_med([x for x, p in zip(t, pre) if not p]) * 1e6:.1f}) | blocked/slept {sum(vol):4d} "
                  f"(median {_med([x for x, p in zip(t, vol) if p]) * 1e6:.1f} us) | same CPU {sum(same):4d} | "
                  f"start skew {_med(skew) * 1e6:.1f} us")
        recs = [s["torchlite"] for s in sizes]
        calls = [s["calls"]["torchlite"] for s in sizes]
        n = min(len(r) for r in recs)
        if n != len(calls[0]):
            print(f"torchlite: {n} trace records for {len(calls[0])} calls (not aligned; pieces not shown)")
            continue
        t = [max(calls[r][i][1] - calls[r][i][0] for r in range(nproc)) for i in range(n)]
        for r in range(nproc):
            rec, c = recs[r], calls[r]
            pieces = {"before check": [x["check_start"] - y[0] for x, y in zip(rec, c)],
                      "check": [x["check_end"] - x["check_start"] for x in rec],
                      "between": [x["data_start"] - x["check_end"] for x in rec],
                      "data wait": [x["data_end"] - x["data_start"] for x in rec],
                      "after": [y[1] - x["data_end"] for x, y in zip(rec, c)]}
            print(f"rank {r}: " + ", ".join(f"{k} {_med(v) * 1e6:.1f}" for k, v in pieces.items()) + " us (medians)")
            for wait in ("check", "data"):
                polls = [x[f"{wait}_polls"] for x in rec]
                yields = [x[f"{wait}_yields"] for x in rec]
                sleeps = [x[f"{wait}_sleeps"] for x in rec]
                slept = [s > 0 for s in sleeps]
                print(f"  {wait:5s} wait: polls median {_med(polls):.0f} (max {max(polls)}), yields median "
                      f"{_med(yields):.0f} (max {max(yields)}), sleeps {sum(sleeps)} in {sum(slept)}/{n} calls "
                      f"(round median {_med([x for x, s in zip(t, slept) if s]) * 1e6:.1f} us, else "
                      f"{_med([x for x, s in zip(t, slept) if not s]) * 1e6:.1f}), loadavg reads "
                      f"{sum(x[f'{wait}_crowd_reads'] for x in rec)}")
        def skew(field):
            return [max(recs[r][i][field] for r in range(nproc)) - min(recs[r][i][field] for r in range(nproc))
                    for i in range(n)]
        cs, ce, de = skew("check_start"), skew("check_end"), skew("data_end")
        last = [max(range(nproc), key=lambda r: recs[r][i]["check_start"]) for i in range(n)]
        print(f"skew across ranks: check start {_med(cs) * 1e6:.1f} us (rank arriving last: "
              + ", ".join(f"{r} {last.count(r)}x" for r in range(nproc))
              + f"), check end {_med(ce) * 1e6:.1f}, data end {_med(de) * 1e6:.1f} us (medians)")


if __name__ == "__main__":
    args = sys.argv[1:]
    nproc = int(args[args.index("--nproc") + 1]) if "--nproc" in args else 2
    summarize(args[0], nproc)
