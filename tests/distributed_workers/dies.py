"""Worker: rank 1 leaves the job (`raise`: an uncaught exception; `exit`: os._exit, a crash) while the
others wait in an all_reduce with a long timeout: mpiexec must stop them all, promptly."""
import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import torchlite as tl  # noqa: E402
import torchlite.distributed as dist  # noqa: E402

dist.init_process_group("mpi")
if dist.get_rank() == 1:
    if sys.argv[1] == "raise":
        raise ValueError("rank 1 fails on purpose")
    os._exit(3)
t = tl.ones(2)
dist.all_reduce(t)
print("UNREACHABLE: all_reduce returned", flush=True)
