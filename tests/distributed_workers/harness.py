"""The check runner of the distributed test workers: each worker registers checks with @check; run()
calls them in order on every rank (a barrier after each keeps ranks in step) and writes each rank's
{check: "ok" | traceback} as JSON to $TORCHLITE_DIST_RESULTS/<rank>.json (ranks' stdout lines can
interleave), which tests/dist_helpers.py reads."""
import datetime
import json
import os
import sys
import traceback

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import torchlite.distributed as dist  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def run(timeout_s=30):
    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=timeout_s))
    rank, size = dist.get_rank(), dist.get_world_size()
    results = {}
    for fn in CHECKS:
        try:
            fn(rank, size)
            results[fn.__name__] = "ok"
        except Exception:
            results[fn.__name__] = traceback.format_exc()
        try:
            dist.barrier()
        except Exception:
            results.setdefault("barrier_after_" + fn.__name__, traceback.format_exc())
            break
    with open(os.path.join(os.environ["TORCHLITE_DIST_RESULTS"], f"{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()
