"""Worker for the launcher (`python -m torchlite.distributed.run --nproc-per-node N launched.py args`):
prints what each rank sees (argv, torchrun's variables, an all_reduce), or fails on purpose."""
import json
import os
import sys

import torchlite as tl
import torchlite.distributed as dist

if __name__ == "__main__":
    env = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                          "MASTER_ADDR", "MASTER_PORT")}
    launched = dist.is_torchelastic_launched()
    dist.init_process_group()
    t = tl.tensor([float(dist.get_rank())])
    dist.all_reduce(t)
    if "fail" in sys.argv[1:] and dist.get_rank() == 0:
        raise RuntimeError("rank 0 fails on purpose")
    report = json.dumps({"argv": sys.argv, "env": env, "sum": t.item(), "rank": dist.get_rank(),
                         "size": dist.get_world_size(), "elastic": launched, "name": __name__})
    # one file per rank: mpiexec may interleave the ranks' stdout within a line
    with open(os.path.join(os.environ["TORCHLITE_DIST_RESULTS"], f"{dist.get_rank()}.json"), "w") as f:
        f.write(report)
    print("LAUNCHED", report, flush=True)
    if "fail" in sys.argv[1:]:
        dist.barrier()  # rank 0 never comes: the abort must end this wait
    dist.destroy_process_group()
