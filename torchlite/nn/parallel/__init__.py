"""torch.nn.parallel: DataParallel (a pass-through without accelerators, as PyTorch's on such a machine) and
DistributedDataParallel (over torchlite.distributed's process groups)."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["data_parallel", "DataParallel", "DistributedDataParallel"]
