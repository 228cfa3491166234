"""torchlite.distributed: PyTorch's torch.distributed API on MPI (mpi4py and an MPI from PyPI:
`pip install torchlite[distributed]`). Start processes with `python -m torchlite.distributed.run
--nproc-per-node N script.py` or with mpiexec / srun; docs/distributed.md."""
from torchlite.distributed import _mpi


def is_available() -> bool:
    """True when the MPI backend can run here (mpi4py is installed); checked without initializing MPI."""
    return _mpi.available()


from torchlite.distributed.distributed_c10d import *  # noqa: E402,F401,F403
from torchlite.distributed._errors import (  # noqa: E402,F401
    DistBackendError, DistError, DistNetworkError, DistStoreError)

import os as _os  # noqa: E402

if _os.environ.get("TORCHLITE_DIST_TRACE") == "1":  # per-call timing of all_reduce (measurement only)
    from torchlite.distributed import _trace  # noqa: E402,F401
del _os
