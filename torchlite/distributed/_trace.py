"""Per-call timing of all_reduce's short path, for measuring where a call's time goes across ranks: off
unless TORCHLITE_DIST_TRACE=1 is set before torchlite.distributed is imported (or enable() is called).
When off nothing here runs: enable() swaps wrappers into the modules' namespaces, so the hot path carries
no flag test.

Each planned all_reduce appends a record to `records` (see FIELDS): CLOCK_MONOTONIC timestamps (seconds,
comparable across the processes of one machine) at the argument check's start and end and the data
wait's start and end, and for each of the two waits its polls (Test calls), yields, sleeps and loadavg
readings. The wrappers cost about a microsecond per call and ~0.1 us per poll: compare traced runs with
traced runs."""
import os
import time

FIELDS = ("check_start", "check_end", "check_polls", "check_yields", "check_sleeps", "check_crowd_reads",
          "data_start", "data_end", "data_polls", "data_yields", "data_sleeps", "data_crowd_reads")
records = []
_counts = [0, 0, 0, 0]  # polls, yields, sleeps, crowded() readings, since the wait began
_saved = None  # what enable() replaced, for disable()


def enable():
    """Installs the counting wrappers (idempotent)."""
    global _saved
    if _saved is not None:
        return
    from torchlite.distributed import _all_reduce, _crowding, _groups, _work
    _saved = (_work._yield, _work._sleep, _crowding.crowded, _groups.wait_test, _groups.ProcessGroup._agree,
              _all_reduce.wait_test)
    now = time.perf_counter
    counts = _counts
    real_yield, real_sleep, real_crowded = _work._yield, _work._sleep, _crowding.crowded
    real_agree, real_wait_test = _groups.ProcessGroup._agree, _work.wait_test

    def counted_yield():
        counts[1] += 1
        real_yield()

    def counted_sleep(s):
        counts[2] += 1
        real_sleep(s)

    def counted_crowded():
        counts[3] += 1
        return real_crowded()

    def counted_wait(test, *args, **kwargs):
        def counted_test():
            counts[0] += 1
            return test()
        counts[:] = [0, 0, 0, 0]
        return real_wait_test(counted_test, *args, **kwargs)

    def agree(self, *args, **kwargs):
        start = now()
        out = real_agree(self, *args, **kwargs)
        records.append([start, now(), *counts])
        return out

    def data_wait(test, *args, **kwargs):
        start = now()
        counted_wait(test, *args, **kwargs)
        if records and len(records[-1]) == 6:  # completes the record its argument check began
            records[-1] += [start, now(), *counts]

    _work._yield, _work._sleep, _crowding.crowded = counted_yield, counted_sleep, counted_crowded
    _groups.wait_test = counted_wait  # the argument check's wait
    _groups.ProcessGroup._agree = agree
    _all_reduce.wait_test = data_wait  # the short path's blocking wait


def disable():
    """Puts back what enable() replaced; keeps the records."""
    global _saved
    if _saved is None:
        return
    from torchlite.distributed import _all_reduce, _crowding, _groups, _work
    (_work._yield, _work._sleep, _crowding.crowded, _groups.wait_test, _groups.ProcessGroup._agree,
     _all_reduce.wait_test) = _saved
    _saved = None


def take():
    """The records so far (complete ones: check and data), as dicts; clears them."""
    out = [dict(zip(FIELDS, r)) for r in records if len(r) == len(FIELDS)]
    records.clear()
    return out


if os.environ.get("TORCHLITE_DIST_TRACE") == "1":
    enable()
